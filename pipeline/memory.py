"""How the server's native memory is allocated and given back (glibc only; a no-op elsewhere).

Why: in a long live session (``bench.soak --llm none``) the Python heap grows only by the session's
event log (tracemalloc: ~1 MB per 10 minutes, bounded by ``log_max_bytes``), yet RSS climbed in steps
(426 -> 548 MB in 10 minutes).  ``mallinfo2`` showed why: 137-160 MB in use, but 110-220 MB freed and
still held by glibc's malloc.  Speech decodes free buffers of a few MB (attention scores grow with
the batch and the window); glibc raises its mmap threshold to the size of each such block freed, so
later ones come from the arenas' heaps, which keep their high-water mark.  Each bigger batch (more
of them when the machine is loaded) raised the mark again.  (Most of the steps turned out to be memory
in use, not freed: oneDNN kept a compiled kernel per decode shape, now off, :data:`pipeline.whisper.ONEDNN_CACHE`;
and the log now lives on disk, :mod:`pipeline.eventlog.memory`.)  Three settings, all made here:

- a fixed ``M_MMAP_THRESHOLD`` (opt-in): blocks that large are mapped on their own and unmapped
  when freed, as glibc does before its threshold slides; the heaps keep small blocks only (1 MB and
  2 arenas, same soak: ~60 MB freed-and-held instead of 110-220, RSS ~390 MB instead of ~550).  The
  price is a page fault for every page of every such block: 8 batches of 4 decodes took 24-27 CPU
  seconds instead of 18-20 (4 MB: 22, 16 MB: 21), which is why it is not on by default;
- ``M_ARENA_MAX`` (opt-in): the threads share a few arenas instead of each keeping its own
  high-water mark (with the threshold: RSS 389 MB at 5 minutes with 2 arenas, 417 with 13);
- ``malloc_trim(0)`` once the server has no session left (checked every ``interval_s``, in a worker
  thread; on by default): what the last session freed between live blocks goes back (407 -> 347 MB
  when a soak's session ended).  Not during a session: the decodes take it back within seconds.
"""

from __future__ import annotations

import asyncio
import ctypes
import logging
from typing import Any, Callable

log = logging.getLogger(__name__)

M_MMAP_THRESHOLD = -3  # glibc malloc.h
M_ARENA_MAX = -8


def glibc() -> Any | None:
    """The process's C library if it is glibc (it has ``malloc_trim`` and ``mallopt``), else None."""
    try:
        libc = ctypes.CDLL(None)
    except OSError:
        return None
    if not (hasattr(libc, "malloc_trim") and hasattr(libc, "mallopt")):
        return None
    return libc


class NativeMemory:
    """The allocator's settings, made once, then a trim each time the server becomes idle.

    A setting of 0 leaves glibc's own; ``interval_s`` 0: no trims; ``libc`` None: nothing at all.
    """

    def __init__(
        self,
        interval_s: float,
        arena_max: int,
        mmap_threshold: int = 0,
        libc: Any | None = None,
        idle: Callable[[], bool] = lambda: True,
    ) -> None:
        self.interval_s = interval_s
        self.arena_max = arena_max
        self.mmap_threshold = mmap_threshold
        self._libc = libc
        self._idle = idle
        self._task: asyncio.Task[None] | None = None
        self.trims = 0

    def start(self) -> None:
        """Set the options (before more threads make arenas of their own) and start watching; on the loop."""
        if self._libc is None:
            return
        for option, value, name in (
            (M_ARENA_MAX, self.arena_max, "M_ARENA_MAX"),
            (M_MMAP_THRESHOLD, self.mmap_threshold, "M_MMAP_THRESHOLD"),
        ):
            if value > 0 and not self._libc.mallopt(option, value):
                log.warning("mallopt(%s, %d) refused", name, value)
        if self.interval_s > 0 and self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._trim_when_idle())

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
            self._task = None

    async def trim(self) -> None:
        """One ``malloc_trim(0)``, off the event loop."""
        if self._libc is not None:
            await asyncio.to_thread(self._libc.malloc_trim, 0)
            self.trims += 1

    async def _trim_when_idle(self) -> None:
        trimmed = False
        while True:
            await asyncio.sleep(self.interval_s)
            if not self._idle():
                trimmed = False
            elif not trimmed:
                await self.trim()
                trimmed = True
