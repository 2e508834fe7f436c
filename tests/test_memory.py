"""Freed native memory goes back to the system (streamtwin/service/native_memory.py): the real glibc, a fake one for
the calls, and the server that runs it."""

from __future__ import annotations

import asyncio
import ctypes
import ctypes.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

from streamtwin.service.native_memory import (
    JEMALLOC_CONF, M_ARENA_MAX, M_MMAP_THRESHOLD, RERUN_MARK, NativeMemory, glibc, rerun_environment,
)
from tests.cli import run_main

ROOT = Path(__file__).resolve().parent.parent


def rss_mb() -> float:
    status = Path("/proc/self/status").read_text().splitlines()
    return next(int(line.split()[1]) for line in status if line.startswith("VmRSS:")) / 1024


@pytest.mark.skipif(glibc() is None, reason="glibc only")
async def test_a_trim_returns_memory_freed_between_live_blocks():
    """Freed memory between blocks still in use stays resident until a trim."""
    libc = glibc()
    libc.malloc.restype = ctypes.c_void_p
    libc.malloc.argtypes = [ctypes.c_size_t]
    libc.free.argtypes = [ctypes.c_void_p]
    libc.memset.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_size_t]
    size = 16 * 1024  # well under the mmap threshold: these come from the arena
    blocks = [libc.malloc(size) for _ in range(16000)]  # 250 MB
    for block in blocks:
        libc.memset(block, 1, size)  # resident
    for block in blocks[::2]:  # a live neighbour on each side: nothing coalesces into the heap's top
        libc.free(block)
    held = rss_mb()
    memory = NativeMemory(interval_s=0, arena_max=0, libc=libc)
    await memory.trim()
    returned = held - rss_mb()
    for block in blocks[1::2]:
        libc.free(block)
    assert returned > 60, returned


# In a fresh process (the threshold is process-wide): glibc raises its mmap threshold to the size of a
# freed mmapped block, so later blocks of a few MB come from the heap and stay resident after free;
# prints the MB that freeing 160 MB of them gave back.
RETAINED = """
import asyncio, ctypes, sys
from pathlib import Path
from streamtwin.service.native_memory import NativeMemory, glibc

def rss_mb():
    status = Path("/proc/self/status").read_text().splitlines()
    return next(int(line.split()[1]) for line in status if line.startswith("VmRSS:")) / 1024

libc = glibc()
libc.malloc.restype = ctypes.c_void_p
libc.malloc.argtypes = [ctypes.c_size_t]
libc.free.argtypes = [ctypes.c_void_p]
libc.memset.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_size_t]
async def start():
    NativeMemory(0, 0, mmap_threshold=int(sys.argv[1]), libc=libc).start()
asyncio.run(start())
first = libc.malloc(8 << 20)
libc.memset(first, 1, 8 << 20)
libc.free(first)
blocks = [libc.malloc(4 << 20) for _ in range(80)]
for block in blocks:
    libc.memset(block, 1, 4 << 20)
before = rss_mb()
for block in blocks[::2]:  # every other one: a live neighbour on each side, as in a busy heap
    libc.free(block)
print(before - rss_mb())
"""


def returned_mb(mmap_threshold: int) -> float:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-c", RETAINED, str(mmap_threshold)], env=env, capture_output=True,
                         text=True, check=True)
    return float(out.stdout)


@pytest.mark.skipif(glibc() is None, reason="glibc only")
def test_a_fixed_mmap_threshold_returns_freed_buffers_of_a_few_mb_at_once():
    """What a soak showed: decode buffers of a few MB kept the heap at its high-water mark."""
    assert returned_mb(0) < 20  # glibc's own (sliding) threshold: 160 MB freed and still resident
    assert returned_mb(1 << 20) > 150


class FakeLibc:
    def __init__(self) -> None:
        self.calls: list[tuple[str, tuple[int, ...]]] = []
        self.trimmed = asyncio.Event()

    def mallopt(self, option: int, value: int) -> int:
        self.calls.append(("mallopt", (option, value)))
        return 1

    def malloc_trim(self, pad: int) -> int:
        self.calls.append(("malloc_trim", (pad,)))
        self.trimmed.set()
        return 1

    def trims(self) -> int:
        return sum(name == "malloc_trim" for name, _ in self.calls)


async def until(condition, *, checks: int = 2000) -> None:
    for _ in range(checks):
        if condition():
            return
        await asyncio.sleep(0.005)


async def test_start_sets_the_options_then_trims_once_each_time_the_server_becomes_idle():
    libc = FakeLibc()
    sessions = {"a": 1}
    memory = NativeMemory(0.001, 2, 1 << 20, libc, idle=lambda: not sessions)
    memory.start()
    assert libc.calls == [("mallopt", (M_ARENA_MAX, 2)), ("mallopt", (M_MMAP_THRESHOLD, 1 << 20))]
    await asyncio.sleep(0.05)  # busy: the decodes would take freed pages back within seconds
    assert libc.trims() == 0
    sessions.clear()
    await asyncio.wait_for(libc.trimmed.wait(), 10)
    await asyncio.sleep(0.05)  # still idle: nothing new to give back
    assert libc.trims() == 1
    sessions["b"] = 1
    await asyncio.sleep(0.05)
    sessions.clear()
    await until(lambda: libc.trims() == 2)
    await memory.close()
    assert libc.trims() == 2
    calls = len(libc.calls)
    await asyncio.sleep(0.02)
    assert len(libc.calls) == calls


async def test_zero_settings_and_no_glibc_do_nothing():
    libc = FakeLibc()
    memory = NativeMemory(0, 0, 0, libc)
    memory.start()
    await memory.close()
    assert libc.calls == []
    nothing = NativeMemory(0.001, 2, 1 << 20, None)
    nothing.start()
    await nothing.trim()
    await nothing.close()
    assert nothing.trims == 0


@pytest.mark.skipif(glibc() is None, reason="glibc only")
async def test_the_server_trims_when_it_has_no_session(make_server):
    server = await make_server(malloc_trim_s=0.001, malloc_arena_max=2, malloc_mmap_threshold=1 << 20)
    await until(lambda: server.memory.trims >= 1)
    assert server.memory.trims == 1
    assert (server.memory.arena_max, server.memory.mmap_threshold) == (2, 1 << 20)


# --- the allocator: jemalloc when installed (streamtwin/service/native_memory.py: rerun_environment, use_allocator) ---------

JEMALLOC = "libjemalloc.so.2"


def test_auto_runs_again_with_jemalloc_preloaded_before_any_other_preload():
    env = rerun_environment("auto", {"PATH": "/bin", "LD_PRELOAD": "libother.so"}, loaded=False, library=JEMALLOC)
    assert env is not None
    assert env["LD_PRELOAD"] == f"{JEMALLOC} libother.so"
    assert env["MALLOC_CONF"] == JEMALLOC_CONF and env["PATH"] == "/bin" and env[RERUN_MARK]


def test_a_malloc_conf_of_the_users_own_is_kept():
    env = rerun_environment("jemalloc", {"MALLOC_CONF": "narenas:2"}, loaded=False, library=JEMALLOC)
    assert env is not None and env["MALLOC_CONF"] == "narenas:2"


@pytest.mark.parametrize(
    "allocator, environ, loaded, library",
    [
        ("glibc", {}, False, JEMALLOC),  # asked for the C library's malloc
        ("auto", {}, True, JEMALLOC),  # jemalloc already serves the process
        ("auto", {RERUN_MARK: "1"}, False, JEMALLOC),  # ran again once and the preload did not take: no loop
        ("auto", {}, False, None),  # not installed: glibc, tuned by the malloc_* settings
    ],
)
def test_when_it_goes_on_as_it_is(allocator, environ, loaded, library):
    assert rerun_environment(allocator, environ, loaded, library) is None


def test_jemalloc_by_name_without_it_installed_or_an_unknown_allocator_is_an_error():
    with pytest.raises(ValueError, match="apt-get install libjemalloc2"):
        rerun_environment("jemalloc", {}, loaded=False, library=None)
    with pytest.raises(ValueError, match="auto, jemalloc, glibc"):
        rerun_environment("tcmalloc", {}, loaded=False, library=JEMALLOC)


def run_command(allocator: str) -> subprocess.CompletedProcess:
    env = {key: value for key, value in os.environ.items() if key not in ("LD_PRELOAD", "MALLOC_CONF", RERUN_MARK)}
    return subprocess.run(
        [sys.executable, "-m", "streamtwin", "-v", "run", "no-such-file.wav", "--llm", "none"],
        capture_output=True, text=True, timeout=120, cwd=ROOT, env={**env, "STREAMTWIN_ALLOCATOR": allocator},
    )


@pytest.mark.skipif(ctypes.util.find_library("jemalloc") is None, reason="libjemalloc2 is not installed")
def test_run_starts_again_under_jemalloc_and_glibc_keeps_the_c_library():
    """The real command: by default the process that opens the source has jemalloc for its malloc."""
    ran = run_command("auto")
    assert "memory allocator: jemalloc" in ran.stderr
    assert ran.returncode == 1 and ran.stderr.strip().splitlines()[-1].startswith("streamtwin: error: ")
    kept = run_command("glibc")
    assert "memory allocator: the C library's malloc" in kept.stderr and kept.returncode == 1


def test_an_unknown_allocator_is_one_clear_line(capfd, monkeypatch):
    monkeypatch.setenv("STREAMTWIN_ALLOCATOR", "tcmalloc")
    ran = run_main(capfd, "run", "no-such-file.wav", "--llm", "none")
    assert ran.returncode == 1 and "Traceback" not in ran.stderr
    assert ran.stderr.strip().splitlines()[-1] == (
        "streamtwin: error: unknown allocator 'tcmalloc': choose one of auto, jemalloc, glibc")
