"""Clean shutdown of the two long-running commands, as a person (or a supervisor) stops them.

``run``: Ctrl-C ends within about a second with ``session.ended`` and the transcript so far.
``serve``: SIGTERM/SIGINT ends every session (speech flushed, ``session.ended``, close 1001),
closes every other client with 1001 and exits 0 within a bounded time.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

pytestmark = pytest.mark.model

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "samples" / "meeting.wav"
# The target is 1 s; bench/ctrl_c.py measures it (with load average 9-10 on the shared 2 cores: session.ended
# after ~0.7 s, the process gone after ~1.05 s).  eeb9b39 never exits; the bound catches that and gross
# regressions, not the target.
RUN_EXIT_BOUND_S = 8.0
SAMPLE_S = 61.6
SERVE_EXIT_BOUND_S = 15.0


def wait_for_line(stream, pattern: str, timeout: float) -> str:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        line = stream.readline()
        if not line:
            break
        if re.search(pattern, line):
            return line
    raise AssertionError(f"no line matching {pattern!r} within {timeout} s")


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_run_ends_soon_after_ctrl_c_with_the_transcript_so_far(sig):
    process = subprocess.Popen(
        [sys.executable, "-m", "streamtwin", "run", str(SAMPLE), "--realtime", "--format", "jsonl", "--llm", "none"],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    try:
        lines = [wait_for_line(process.stdout, r'"type": ?"transcript.final"', timeout=120)]
        process.send_signal(sig)
        sent = time.monotonic()
        out, err = process.communicate(timeout=RUN_EXIT_BOUND_S + 30)  # eeb9b39: never returns
        elapsed = time.monotonic() - sent
    finally:
        process.kill()
    events = [json.loads(line) for line in lines + out.splitlines()]
    assert events[-1]["type"] == "session.ended", events[-3:]
    assert any(e["type"] == "transcript.final" for e in events)
    # It stopped early, it did not play to the end (on a loaded machine the first final can take 20 s).
    assert events[-1]["stats"]["audio_s"] < SAMPLE_S - 20
    assert "Traceback" not in err
    assert process.returncode == 128 + sig
    assert elapsed < RUN_EXIT_BOUND_S, f"took {elapsed:.2f} s after the signal"


async def _serve_and_stop(sig: int) -> tuple[int, float, dict, list, tuple, tuple]:
    env = {**os.environ, "STREAMTWIN_LLM": "none", "STREAMTWIN_SHUTDOWN_TIMEOUT_S": "8"}
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "streamtwin", "serve", "--port", "0", cwd=ROOT, env=env,
        stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE,
    )
    try:
        port = None
        async with asyncio.timeout(120):
            while port is None:
                line = (await process.stderr.readline()).decode()
                assert line, "serve exited before listening"
                if match := re.search(r"serving http://127\.0\.0\.1:(\d+)", line):
                    port = int(match.group(1))
        url = f"ws://127.0.0.1:{port}/ws"
        publisher = await connect(url, proxy=None)
        await publisher.send(json.dumps({"type": "hello", "role": "publisher"}))
        welcome = json.loads(await publisher.recv())
        idle = await connect(url, proxy=None)  # connected, never said hello
        slow = await connect(url, proxy=None, max_queue=1)  # a viewer that stops reading
        await slow.send(json.dumps({"type": "hello", "role": "viewer", "session": welcome["session"],
                                    "token": welcome.get("viewer_token")}))
        await asyncio.sleep(0.5)
        slow.transport.pause_reading()
        process.send_signal(sig)
        sent = time.monotonic()
        seen = []
        try:
            async with asyncio.timeout(SERVE_EXIT_BOUND_S):
                async for raw in publisher:
                    seen.append(json.loads(raw))
        except ConnectionClosed:
            pass
        publisher_close = (publisher.close_code, publisher.close_reason)
        try:
            async with asyncio.timeout(SERVE_EXIT_BOUND_S):
                await idle.recv()
        except ConnectionClosed:
            pass
        idle_close = (idle.close_code, idle.close_reason)
        code = await asyncio.wait_for(process.wait(), SERVE_EXIT_BOUND_S)
        return code, time.monotonic() - sent, welcome, seen, publisher_close, idle_close
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
@pytest.mark.network
async def test_serve_stops_cleanly_on_a_signal(sig):
    code, elapsed, welcome, seen, publisher_close, idle_close = await _serve_and_stop(sig)
    assert code == 0
    assert elapsed < SERVE_EXIT_BOUND_S
    assert [m["type"] for m in seen if "v" in m][-1] == "session.ended"
    assert publisher_close == (1001, "server shutting down")
    assert idle_close == (1001, "server shutting down")
