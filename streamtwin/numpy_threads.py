"""numpy's own BLAS at one thread, in every process that runs a speech or speaker model.

Two reasons.  Speed: the products numpy computes here are small (Whisper's log-mel filter bank, the speaker
encoder's layers on 80-frame partials); a second BLAS thread gains little and spins beside CTranslate2 on the
same cores.  Determinism: the last bits of a product depend on how many threads split it, and Whisper base
(int8) turns a last bit of its features into another word on a marginal one ("project costs" / "product
costs").  Set by whichever model loads first, decodes of the same audio no longer depend on whether the
speaker encoder happened to load before the speech model.  Only numpy's BLAS is touched, not CTranslate2's
OpenMP pool.
"""

from __future__ import annotations

import logging
from pathlib import Path

log = logging.getLogger(__name__)


def one_blas_thread() -> None:
    """Set numpy's BLAS to one thread (once: later calls find it set)."""
    try:
        from threadpoolctl import ThreadpoolController
    except ImportError:  # pragma: no cover - a dependency; without it the models only cost more
        return
    for library in ThreadpoolController().select(user_api="blas").lib_controllers:
        if "numpy" in library.filepath and library.num_threads != 1:
            library.set_num_threads(1)
            log.info("numpy's BLAS (%s) set to one thread", Path(library.filepath).name)
