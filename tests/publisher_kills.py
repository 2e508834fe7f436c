"""A server, in a process of its own, whose publishers are SIGKILLed mid-stream one after another; after each
kill it prints one JSON line: what the viewer saw and the server process's footprint.

python -m tests.publisher_kills KILLS

``tests/test_faults.py`` runs it and asserts on the lines. A fresh process is the point: measured inside the
test process, the footprint also holds whatever the ~600 tests before it loaded and freed (RSS 630-680 MB),
and that swings by more than the leak the check is there to catch.
"""

from __future__ import annotations

import asyncio
import ctypes
import gc
import json
import os
import signal
import sys
import threading
import tracemalloc
from pathlib import Path

from streamtwin.config import Config
from streamtwin.service.server import Server
from streamtwin.service.webrtc import use_loopback_candidates
from tests.live import hello, open_ws

ROOT = Path(__file__).resolve().parent.parent
MP4 = ROOT / "samples" / "meeting.mp4"


def footprint() -> dict[str, int]:
    """Tasks, threads, open descriptors, the heap that Python and numpy hold (traced, kB) and resident memory
    (kB) of this process, once garbage is collected and the C allocator has handed freed pages back."""
    gc.collect()
    ctypes.CDLL("libc.so.6").malloc_trim(0)
    rss = next(int(line.split()[1]) for line in Path("/proc/self/status").read_text().splitlines()
               if line.startswith("VmRSS:"))
    # The loop's default executor ("asyncio_N": asyncio.to_thread, e.g. the idle server's malloc_trim) starts its
    # threads when first used, whenever that falls, and keeps a bounded few: not threads a session left behind.
    threads = sum(1 for thread in threading.enumerate() if not thread.name.startswith("asyncio_"))
    return {"tasks": len(asyncio.all_tasks()), "threads": threads,
            "fds": len(os.listdir("/proc/self/fd")), "traced_kb": tracemalloc.get_traced_memory()[0] // 1024,
            "rss_kb": rss}


async def watch(server: Server, session_id: str) -> list[dict]:
    live = server.sessions[session_id]
    ws = await open_ws(server)
    assert (await hello(ws, "viewer", session=live.id, token=live.viewer_token))["type"] == "welcome"
    return [json.loads(raw) async for raw in ws]


async def kill_once(server: Server) -> dict:
    """Start a publisher, let 2 s of media flow, SIGKILL it, and wait for its session to end."""
    publisher = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "tests.killable_publisher", str(MP4), f"ws://127.0.0.1:{server.port}",
        cwd=ROOT, stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL,
    )
    async with asyncio.timeout(60):
        while not server.sessions:
            await asyncio.sleep(0.05)
        live = next(iter(server.sessions.values()))
        viewer = asyncio.ensure_future(watch(server, live.id))
        while live.ingest is None or live.ingest.position < 2.0:  # media flows
            await asyncio.sleep(0.05)
    publisher.send_signal(signal.SIGKILL)
    await publisher.wait()
    seen = await asyncio.wait_for(viewer, 60)
    await asyncio.sleep(0.5)  # let closed transports and tasks go
    return {
        "last": seen[-1]["type"], "audio_s": seen[-1].get("stats", {}).get("audio_s", 0.0),
        "publisher_left": any(m.get("code") == "publisher_left" for m in seen),
        "sessions_left": len(server.sessions), **footprint(),
    }


async def main(kills: int) -> None:
    use_loopback_candidates()
    server = Server(Config(llm="none", host="127.0.0.1", port=0, max_speech_load=0.0,
                           resume_grace_s=1.0, idle_media_timeout_s=3.0))
    await server.start()
    try:
        for _ in range(kills):
            print(json.dumps(await kill_once(server)), flush=True)
    finally:
        await server.close()


if __name__ == "__main__":
    tracemalloc.start()  # one frame per allocation: ~2 MB of its own, and no measurable slowdown here
    asyncio.run(main(int(sys.argv[1])))
