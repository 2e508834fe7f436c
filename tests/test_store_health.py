"""The event store's health is told truly (issue 38), on a real redis-server.

The reproductions: with Redis refusing writes (``maxmemory`` reached, ``noeviction``) events vanished from the
log and heartbeats failed every second while ``/healthz`` said ``ok``; with Redis killed ``/healthz`` stayed
``ok`` until a write failed; a hand-written malformed entry crashed a viewer fed from the log (``KeyError``,
close 1011); an entry id ahead of the session's seq blocked every later append, so ``session.ended`` was
never stored.  Timings are bounded generously (the machine is shared); the design's are 1.5 s and 0.5 s.
"""

from __future__ import annotations

import asyncio
import functools
import gc
import json
import logging
import time
from pathlib import Path

import httpx
import redis.asyncio as redis

from streamtwin.eventlog.logwrites import WriteQueue
from streamtwin.eventlog.node_log import NodeLog
from streamtwin.events import TranscriptFinal
from streamtwin.config import Config
from tests.live import hello, open_ws, recv_until
from tests.redis_server import RedisServer, redis_server  # noqa: F401  (the fixture)

TOLD_WITHIN_S = 4.0  # the target is 2 s; a loaded 2-core machine gets slack


async def status_within(server, wanted: str, limit_s: float) -> float:
    """Poll /healthz until it says ``wanted``; returns how long that took."""
    began = time.monotonic()
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{server.port}", trust_env=False) as http:
        while (await http.get("/healthz")).json()["status"] != wanted:
            assert time.monotonic() - began < limit_s, f"/healthz did not say {wanted} within {limit_s} s"
            await asyncio.sleep(0.05)
    return time.monotonic() - began


async def refuse_writes(port: int, refuse: bool) -> None:
    client = redis.Redis(port=port)
    await client.config_set("maxmemory-policy", "noeviction")
    await client.config_set("maxmemory", "1kb" if refuse else "0")  # below what Redis uses: no write is taken
    await client.aclose()


async def test_a_redis_that_refuses_writes_is_degraded_and_loses_nothing(make_server, redis_server, caplog):
    server = await make_server(redis=redis_server.url)
    publisher = await open_ws(server)
    session = (await hello(publisher, "publisher"))["session"]
    live = server.sessions[session]
    await status_within(server, "ok", TOLD_WITHIN_S)

    await refuse_writes(redis_server.port, True)
    took = await status_within(server, "degraded", TOLD_WITHIN_S)  # the old main: ok, for as long as it lasted
    during = live.session.bus.emit(TranscriptFinal(text="said while Redis was full", start=0.0, end=1.0))
    await asyncio.sleep(2.5)  # heartbeats and retries meet the refusal meanwhile
    await refuse_writes(redis_server.port, False)
    back = await status_within(server, "ok", TOLD_WITHIN_S)
    print(f"degraded after {took:.2f} s, ok again after {back:.2f} s")
    assert await server.log.writer.written_through(session, during.seq, 10)
    logged = [entry.data for entry in await server.log.store.read_after(session, 0)]
    assert during.to_json().encode() in logged  # the old main: refused, so gone
    await publisher.close()
    await server.close()
    gc.collect()  # an exception nobody retrieved is logged when its task is collected
    problems = [r.getMessage() for r in caplog.records if r.exc_info or r.levelname in ("ERROR", "CRITICAL")]
    assert problems == []  # the old main: "heartbeat failed" every second, "Task exception was never retrieved"


async def test_a_killed_redis_is_degraded_without_a_write_and_ok_once_back(tmp_path: Path) -> None:
    server = RedisServer(tmp_path)
    server.start()
    node = await NodeLog.open(Config(redis=server.url), "a")
    try:
        async def degraded_within(wanted: bool) -> float:
            began = time.monotonic()
            while node.degraded is not wanted:
                assert time.monotonic() - began < TOLD_WITHIN_S, f"degraded is not {wanted}"
                await asyncio.sleep(0.02)
            return time.monotonic() - began

        await degraded_within(False)
        server.kill()
        took = await degraded_within(True)  # nothing written: the old main said ok until a write failed
        server.start()
        back = await degraded_within(False)
        print(f"degraded after {took:.2f} s, ok again after {back:.2f} s")
    finally:
        await node.close(flush_timeout_s=1.0)
        server.kill()


def test_losses_are_news_once_until_they_are_reported() -> None:
    queue = WriteQueue(max_entries=2)
    for seq in range(1, 6):
        queue.push("s", seq, b"x")
    assert queue.lost_total == 3 and queue.take_news() == [("s", 1)]  # one notice for the whole stretch
    queue.push("s", 6, b"x")
    assert queue.take_news() == [] and queue.lost_total == 4
    report = queue.next(0.0)
    assert report is not None and report.report
    queue.written()  # the report is in the log: a later loss is news again
    for seq in range(7, 10):
        queue.push("s", seq, b"x")
    assert queue.take_news() == [("s", 5)]


async def test_events_the_log_cannot_keep_are_a_notice_to_viewers_and_a_counter(
    make_server, redis_server, monkeypatch
) -> None:
    monkeypatch.setattr("streamtwin.eventlog.writer.WriteQueue", functools.partial(WriteQueue, max_entries=3))
    server = await make_server(redis=redis_server.url)
    publisher = await open_ws(server)
    welcome = await hello(publisher, "publisher")
    viewer = await open_ws(server)
    await hello(viewer, "viewer", session=welcome["session"], token=welcome["viewer_token"])
    live = server.sessions[welcome["session"]]
    await refuse_writes(redis_server.port, True)
    await status_within(server, "degraded", TOLD_WITHIN_S)
    for n in range(8):  # more than the writer may keep while the store refuses them
        live.session.bus.emit(TranscriptFinal(text=f"final {n}", start=float(n), end=n + 0.5))
    notice, _ = await recv_until(viewer, "notice")
    assert notice["code"] == "events_lost" and "join or resume later" in notice["message"]
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{server.port}", trust_env=False) as http:
        metrics = (await http.get("/metrics")).text
    lost = [line for line in metrics.splitlines() if line.startswith("streamtwin_events_lost_total ")]
    assert lost and float(lost[0].split()[1]) >= 5, lost
    await refuse_writes(redis_server.port, False)
    await status_within(server, "ok", TOLD_WITHIN_S)
    for ws in (viewer, publisher):
        await ws.close()


async def test_a_malformed_entry_is_skipped_not_a_crash(make_server, redis_server, caplog):
    server = await make_server(redis=redis_server.url)
    publisher = await open_ws(server)
    welcome = await hello(publisher, "publisher")
    session = welcome["session"]
    live = server.sessions[session]
    first = live.session.bus.emit(TranscriptFinal(text="before", start=0.0, end=1.0))
    assert await server.log.writer.written_through(session, first.seq, 10)
    client = redis.Redis(port=redis_server.port)
    key = f"streamtwin:{{{session}}}:log"
    await client.xadd(key, {"x": "hand-written"}, id=f"{first.seq + 1}-0")
    await client.xadd(key, {"p": "0", "d": "[" * 3000}, id=f"{first.seq + 2}-0")
    await client.aclose()
    viewer = await open_ws(server)  # resuming: it is fed from the log, malformed entries and all
    with caplog.at_level(logging.WARNING, logger="streamtwin.eventlog.redis_store"):
        welcome_back = await hello(viewer, "viewer", session=session, token=welcome["viewer_token"], resume_from=0)
        assert welcome_back["type"] == "welcome"
        backlog, _ = await recv_until(viewer, "transcript.final")  # the old main: KeyError b'p', close 1011
        assert backlog["text"] == "before"
        after = live.session.bus.emit(TranscriptFinal(text="after", start=2.0, end=3.0))
        received, _ = await recv_until(viewer, "transcript.final")
        assert (received["text"], received["seq"]) == ("after", after.seq)
    skipped = [r for r in caplog.records if "skipped log entry" in r.getMessage()]
    assert len(skipped) == 2  # one warning each, however often they are read
    await viewer.close()
    await publisher.close()


async def test_an_entry_id_ahead_of_the_session_does_not_block_its_log(make_server, redis_server):
    server = await make_server(redis=redis_server.url)
    publisher = await open_ws(server)
    session = (await hello(publisher, "publisher"))["session"]
    live = server.sessions[session]
    first = live.session.bus.emit(TranscriptFinal(text="before", start=0.0, end=1.0))
    assert await server.log.writer.written_through(session, first.seq, 10)
    client = redis.Redis(port=redis_server.port)
    ahead = json.dumps({"v": 1, "type": "notice", "session": session, "seq": 10**6, "code": "x", "message": "x"})
    await client.xadd(f"streamtwin:{{{session}}}:log", {"p": str(first.seq), "d": ahead}, id=f"{10**6}-0")
    await client.aclose()
    after = live.session.bus.emit(TranscriptFinal(text="after", start=2.0, end=3.0))
    await live.finish()
    assert await server.log.sealed(10)  # session.ended stored, and the session sealed
    logged = [json.loads(entry.data) for entry in await server.log.store.read_after(session, 0)]
    assert [e["seq"] for e in logged if e["type"] == "transcript.final"] == [first.seq, after.seq]
    assert logged[-1]["type"] == "session.ended"  # the old main: refused, as every append after the stray id
    assert all(e["seq"] < 10**6 for e in logged)
    await publisher.close()
