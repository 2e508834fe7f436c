"""How the server's native memory is allocated and given back: jemalloc when installed, else glibc's malloc.

jemalloc (``allocator`` auto, the default, when ``libjemalloc.so.2`` is installed: Debian's libjemalloc2,
which redis-server brings): :func:`use_allocator` runs the command again with it preloaded.  It gives
freed pages back on its own after a few seconds (a background thread purges them), where glibc keeps its
heaps' high-water marks.  The same 30-minute soak with the local LLM (``bench.soak``, see the README):
under glibc RSS medians 2595, 2617, 2630 MB over minutes 3-10, 10-20, 20-30 (slope 21 MB per 10 minutes,
the memory in use level after 10 minutes, the freed-and-held growing); under jemalloc 2381, 2407, 2395
(slope 7 after 3 minutes, -6 after 10), for ~3% more CPU per decoded second.  ``allocator`` glibc keeps
the C library's malloc, tuned by the settings below.

Why glibc needs help: in a long live session (``bench.soak --llm none``) the Python heap grows only by the session's
event log (tracemalloc: ~1 MB per 10 minutes, bounded by ``log_max_bytes``), yet RSS climbed in steps
(426 -> 548 MB in 10 minutes).  ``mallinfo2`` showed why: 137-160 MB in use, but 110-220 MB freed and
still held by glibc's malloc.  Speech decodes free buffers of a few MB (attention scores grow with
the batch and the window); glibc raises its mmap threshold to the size of each such block freed, so
later ones come from the arenas' heaps, which keep their high-water mark.  Each bigger batch (more
of them when the machine is loaded) raised the mark again.  (Most of the steps turned out to be memory
in use, not freed: oneDNN kept a compiled kernel per decode shape, now off, :data:`streamtwin.speech.whisper.ONEDNN_CACHE`;
and the log now lives on disk, :mod:`streamtwin.eventlog.memory_store`.)  Three settings, all made here:

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
import ctypes.util
import logging
import os
import sys
from typing import Any, Callable, Mapping

log = logging.getLogger(__name__)

M_MMAP_THRESHOLD = -3  # glibc malloc.h
M_ARENA_MAX = -8

ALLOCATORS = ("auto", "jemalloc", "glibc")
# Purge freed pages on a timer (after jemalloc's dirty_decay_ms, 10 s), not only when another allocation
# happens by; a MALLOC_CONF of the user's own is kept.
JEMALLOC_CONF = "background_thread:true"
# Set on the re-run: if the preload did not take (a static or musl Python), do not run again.
RERUN_MARK = "STREAMTWIN_ALLOCATOR_RERUN"


def _process_symbols() -> Any | None:
    """The symbols the process links against (its malloc among them), or None where ctypes cannot open them."""
    try:
        return ctypes.CDLL(None)
    except OSError:
        return None


def jemalloc() -> Any | None:
    """The process's symbols if jemalloc is its malloc (it exports ``mallctl``), else None."""
    symbols = _process_symbols()
    return symbols if symbols is not None and hasattr(symbols, "mallctl") else None


def glibc() -> Any | None:
    """The process's C library if glibc's malloc serves it (``malloc_trim`` and ``mallopt``, no jemalloc)."""
    libc = _process_symbols()
    if libc is None or not (hasattr(libc, "malloc_trim") and hasattr(libc, "mallopt")) or hasattr(libc, "mallctl"):
        return None
    return libc


def rerun_environment(
    allocator: str, environ: Mapping[str, str], loaded: bool, library: str | None
) -> dict[str, str] | None:
    """The environment to run this command again in, with jemalloc (``library``) preloaded; None: go on as is.

    ``loaded``: jemalloc already serves this process.  Raises ValueError for an unknown ``allocator``, or
    jemalloc asked for by name and not installed."""
    if allocator not in ALLOCATORS:
        raise ValueError(f"unknown allocator {allocator!r}: choose one of {', '.join(ALLOCATORS)}")
    if allocator == "glibc" or loaded or environ.get(RERUN_MARK):
        return None
    if library is None:
        if allocator == "jemalloc":
            raise ValueError(
                "allocator jemalloc: libjemalloc.so.2 is not installed (Debian: apt-get install libjemalloc2)"
            )
        return None
    env = dict(environ)
    env["LD_PRELOAD"] = " ".join(part for part in (library, environ.get("LD_PRELOAD", "")) if part)
    env.setdefault("MALLOC_CONF", JEMALLOC_CONF)
    env[RERUN_MARK] = "1"
    return env


def use_allocator(allocator: str, rerun: bool = True) -> None:
    """Run this command again with jemalloc preloaded when ``allocator`` asks for it and it is not in use yet.

    Call first thing in ``main``, before threads or input: the process is replaced (same pid, same
    arguments, same descriptors).  ``rerun`` False (``main`` called from Python, not as the process's
    command): only check the setting.  Raises ValueError as :func:`rerun_environment` does."""
    loaded = jemalloc() is not None
    env = rerun_environment(allocator, os.environ, loaded, ctypes.util.find_library("jemalloc"))
    if env is None or not rerun:
        log.info("memory allocator: %s", "jemalloc" if loaded else "the C library's malloc")
        return
    for stream in (sys.stdout, sys.stderr):
        stream.flush()
    os.execve(sys.executable, sys.orig_argv, env)


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
