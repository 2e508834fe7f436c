"""Protocol and HTTP fuzzing with a seeded generator (tests/fuzz.py): thousands of hostile messages.

The server must never crash, never log a traceback, answer every message (a reply or
a close with a code: no silent handler death), keep /healthz fast, and hold no more
tasks afterwards than before.
"""

from __future__ import annotations

import asyncio
import json
import random
import socket
import statistics
import sys
import time
from concurrent.futures import ThreadPoolExecutor

from pathlib import Path

import pytest

from tests import fuzz
from tests.live import HealthProbe, open_ws
from tests.test_hardening import raw_http

SEED = 11
MESSAGES = 3000
HTTP_REQUESTS = 600
WORKERS = 4
ROOT = Path(__file__).resolve().parent.parent
# The target is p99 < 100 ms (measured: 50-180 ms while the fuzz runs flat out on a shared 2-core machine,
# the probe thread competing for the GIL); the test catches stalls (no reply within 5 s), bench/floods.py and
# bench/soak.py --flood measure the target.
# As in tests/test_floods.py: once in a while one probe gets no reply within 5 s while the others answer in
# milliseconds (seen once in a fresh-clone CI run: p99 9 ms, one probe lost; cause not found). One such probe is
# tolerated and shown; two fail the test.
PROBE_FAILURES_TOLERATED = 1


async def warm_speech_model(server) -> None:
    """As ``serve`` does before it listens: the first session must not load the model on the loop."""
    from streamtwin.speech.engine import load_engine

    await asyncio.to_thread(load_engine, server.config)


def no_tracebacks(caplog) -> list[str]:
    return [f"{r.name}: {r.getMessage()}" for r in caplog.records if r.exc_info or r.levelname in ("ERROR", "CRITICAL")]


@pytest.mark.network
@pytest.mark.slow
async def test_thousands_of_hostile_messages(make_server, caplog):
    server = await make_server(auth_failures_per_min=10**6, max_connections_per_address=64)
    await warm_speech_model(server)
    tasks_before = len(asyncio.all_tasks())
    with HealthProbe(server.port) as probe:  # the clients run in their own process, as they would
        client = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "tests.fuzz", f"ws://127.0.0.1:{server.port}/ws", "--seed", str(SEED),
            "--messages", str(MESSAGES), "--workers", str(WORKERS), cwd=ROOT, stdout=asyncio.subprocess.PIPE,
        )
        out, _ = await asyncio.wait_for(client.communicate(), 600)
    assert client.returncode == 0
    report = json.loads(out.decode().splitlines()[-1])
    outcomes, silent = report["outcomes"], report["silent"]
    assert silent == [], f"{len(silent)} messages got neither a reply nor a close, e.g. {silent[:3]}"
    assert sum(outcomes.values()) == MESSAGES
    assert outcomes.get("closed without a close frame", 0) == 0, outcomes
    assert no_tracebacks(caplog) == []
    assert len(probe.failures) <= PROBE_FAILURES_TOLERATED, probe.failures
    async with asyncio.timeout(30):  # every session the fuzz opened ends; nothing stays behind
        while server.sessions or len(asyncio.all_tasks()) > tasks_before + 2:
            await asyncio.sleep(0.1)
    print(f"fuzz seed {SEED}: {outcomes}; /healthz p50 {statistics.median(probe.latencies) * 1e3:.1f} ms, "
          f"p99 {probe.p99() * 1e3:.1f} ms over {len(probe.latencies)} probes")


def http_status(port: int, request: bytes) -> int | None:
    with socket.create_connection(("127.0.0.1", port), timeout=15) as sock:
        try:
            sock.sendall(request)
            if not request.endswith(b"\r\n\r\n"):  # garbage: no need to wait for the server's open timeout
                sock.shutdown(socket.SHUT_WR)
            reply = sock.recv(4096)
        except ConnectionResetError:
            return None
        except TimeoutError:
            raise AssertionError(f"no reply and no close within 15 s to {request[:300]!r}") from None
    if not reply:
        return None
    return int(reply.split(b" ", 2)[1])


async def test_hostile_http_requests(make_server, caplog):
    server = await make_server()
    rng = random.Random(SEED)
    requests = [fuzz.http_request(rng, server.port) for _ in range(HTTP_REQUESTS)]
    with ThreadPoolExecutor(16) as pool:
        statuses = await asyncio.to_thread(lambda: list(pool.map(lambda r: http_status(server.port, r), requests)))
    assert not [s for s in statuses if s is not None and s >= 500 and s != 503], statuses
    assert 200 in statuses and 403 in statuses and 404 in statuses
    assert no_tracebacks(caplog) == []
    healthz = f"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\n\r\n".encode()
    assert await asyncio.to_thread(http_status, server.port, healthz) == 200


async def test_requests_the_router_cannot_place_get_a_400_with_a_reason(make_server, caplog):
    """Issue 38: two requests in one write, a GET with a body and an absolute-form target were closed without a
    status (websockets refuses them silently); now each gets a 400 that says why."""
    server = await make_server()
    rng = random.Random(SEED)
    requests = [fuzz.unplaceable_request(rng, server.port) for _ in range(120)]
    with ThreadPoolExecutor(8) as pool:
        replies = await asyncio.to_thread(lambda: list(pool.map(lambda r: raw_http(server.port, r), requests)))
    for request, reply in zip(requests, replies):
        assert reply.startswith(b"HTTP/1.1 400 "), (request[:200], reply[:200])
        assert len(reply.partition(b"\r\n\r\n")[2].strip()) > 10, reply  # a reason, in words
    assert no_tracebacks(caplog) == []
    healthz = f"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\n\r\n".encode()
    assert await asyncio.to_thread(http_status, server.port, healthz) == 200


async def test_every_damaged_offer_is_answered_or_refused_and_leaks_nothing(make_server, loopback_ice, caplog):
    server = await make_server()
    sdp = await fuzz.real_offer()
    rng = random.Random(SEED)
    tasks_before = len(asyncio.all_tasks())
    replies: dict[str, int] = {}
    ws = None
    for _ in range(192):
        if ws is None:
            ws = await open_ws(server)
            await ws.send(json.dumps({"type": "hello", "role": "publisher"}))
            assert (await fuzz.answer_or_close(ws)) == "welcome"
        await ws.send(json.dumps({"type": "offer", "sdp": fuzz.mutate_sdp(rng, sdp)}))
        reply = await fuzz.answer_or_close(ws)
        replies[reply] = replies.get(reply, 0) + 1
        assert reply in ("answer", "error bad_sdp", "error bad_message"), reply  # bad_message: nothing left
        if reply == "answer":  # a new session for the next offer
            await ws.close()
            ws = None
    if ws is not None:
        await ws.close()
    assert replies.get("error bad_sdp", 0) > 50
    async with asyncio.timeout(30):
        while server.sessions or len(asyncio.all_tasks()) > tasks_before + 2:
            await asyncio.sleep(0.1)
    assert no_tracebacks(caplog) == [], replies
