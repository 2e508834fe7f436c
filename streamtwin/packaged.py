"""Model files that ship inside PyPI packages: find them, and join split ones once, verified.

PyPI caps a file's size, so larger models arrive split over several packages
(the default LLM over 22, Whisper base over 2).  Parts are found through the
import system without running any package's ``__init__``, joined once into a
cache directory through a temp file, and renamed into place only when the
pinned sha256 and size check out: a file in the cache is always a verified one.
"""

from __future__ import annotations

import hashlib
import importlib.util
import logging
import os
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path

log = logging.getLogger(__name__)

_READ_BLOCK = 4 << 20


class JoinError(RuntimeError):
    """Joined parts do not match the pinned hash (a corrupt or tampered package)."""


def default_cache_dir(env: Mapping[str, str] | None = None) -> Path:
    """``$STREAMTWIN_CACHE`` or ``~/.cache/streamtwin``: where joined models live."""
    env = os.environ if env is None else env
    configured = env.get("STREAMTWIN_CACHE")
    return Path(configured).expanduser() if configured else Path.home() / ".cache" / "streamtwin"


def package_dir(package: str) -> Path | None:
    """Directory of an installed regular package, found without running its ``__init__``."""
    try:
        spec = importlib.util.find_spec(package)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


def join_parts(parts: Sequence[Path], target: Path, *, sha256: str, size: int, fix: str) -> Path:
    """Join ``parts`` into ``target``; raises :class:`JoinError` (naming ``fix``) on a hash mismatch."""
    target.parent.mkdir(parents=True, exist_ok=True)
    progress = _ProgressLog(target.name, size)
    digest = hashlib.sha256()
    written = 0
    fd, temp_name = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    temp = Path(temp_name)
    try:
        with os.fdopen(fd, "wb") as sink:
            for part in parts:
                with part.open("rb") as source:
                    while block := source.read(_READ_BLOCK):
                        sink.write(block)
                        digest.update(block)
                        written += len(block)
                        progress.update(written)
            sink.flush()
            os.fsync(sink.fileno())
        if written != size or digest.hexdigest() != sha256:
            raise JoinError(
                f"joined parts of {target.name} do not match the pinned model "
                f"({written} bytes, sha256 {digest.hexdigest()}; expected {size} bytes, sha256 {sha256}); "
                f"reinstall the part packages with: {fix}"
            )
        os.replace(temp, target)
    finally:
        temp.unlink(missing_ok=True)
    log.info("assembled %s (%d bytes, sha256 verified)", target, size)
    return target


class _ProgressLog:
    """Logs each 10% step of a long copy so a first start does not look hung."""

    def __init__(self, label: str, total: int) -> None:
        self.label = label
        self.total = max(total, 1)
        self.next_step = 10

    def update(self, done: int) -> None:
        percent = done * 100 // self.total
        if percent >= self.next_step:
            log.info("assembling %s: %d%% (%d of %d MB)", self.label, percent, done >> 20, self.total >> 20)
            self.next_step = (percent // 10 + 1) * 10
