"""Following a session run on another node, and the node keeper, on a real redis-server.

A follower gets every entry once, backlog and live, through a Redis outage (killed and started again with
its append-only file), up to ``session.ended``.  Two nodes keep heartbeats; when one stops, the other
reaps its session, and a follower on any node receives ``node_lost`` and ``session.ended``.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from streamtwin.eventlog import StoreSettings
from streamtwin.eventlog.follow import follow
from streamtwin.eventlog.node import NodeKeeper
from streamtwin.eventlog.redis_store import RedisStore
from streamtwin.eventlog.logwrites import Backoff
from streamtwin.eventlog.resume import Gap
from tests.clock import Clock
from tests.logdata import TIMEOUT_S, ended, event, final, watch
from tests.redis_server import RedisServer, redis_server  # noqa: F401  (the fixture)


async def collect(store: RedisStore, session: str, after: int = 0) -> list[dict]:
    return [json.loads(entry.data) async for entry in
            follow(store, session, after, poll_s=0.05, backoff=Backoff(initial_s=0.02, max_s=0.2))]


@pytest.mark.redis
async def test_a_follower_gets_backlog_and_live_once_through_a_redis_outage(tmp_path: Path) -> None:
    server = RedisServer(tmp_path, persist=True)
    server.start()
    publisher, viewer = RedisStore(server.url), RedisStore(server.url)
    try:
        await publisher.register("s1", "node-a", 1000.0)
        for seq in range(1, 101):
            await publisher.append("s1", seq, event("s1", seq))
        following = asyncio.ensure_future(collect(viewer, "s1", after=40))
        for seq in range(101, 151):
            await publisher.append("s1", seq, event("s1", seq))
        server.kill()
        await asyncio.sleep(0.1)  # the follower meets the outage
        server.start()
        await publisher.append("s1", 151, event("s1", 151))
        await publisher.append("s1", 152, ended("s1", 152))
        got = await asyncio.wait_for(following, TIMEOUT_S)
    finally:
        await publisher.close()
        await viewer.close()
        server.kill()
    assert [e["seq"] for e in got] == list(range(41, 153))
    assert got[-1]["type"] == "session.ended"


async def test_following_an_ended_session_reads_it_whole_and_stops(redis_server: RedisServer) -> None:
    store = RedisStore(redis_server.url)
    try:
        await store.register("s1", "node-a", 1000.0)
        for seq in range(1, 6):
            await store.append("s1", seq, event("s1", seq))
        await store.end("s1")  # no session.ended in the log (a crash before it): the state says it is over
        assert [e["seq"] for e in await collect(store, "s1")] == [1, 2, 3, 4, 5]
        assert await collect(store, "unknown") == []
    finally:
        await store.close()


async def test_a_dead_nodes_session_ends_for_followers_on_every_node(redis_server: RedisServer) -> None:
    settings = StoreSettings(node_expiry_s=10.0)
    store_a, store_b = RedisStore(redis_server.url, settings), RedisStore(redis_server.url, settings)
    clock = Clock()
    sessions_a = {"s1": 1000.0}
    reaped_by_b: list[list[str]] = []
    node_a = NodeKeeper(store_a, "a", lambda: sessions_a, clock=clock)
    node_b = NodeKeeper(store_b, "b", dict, on_reaped=reaped_by_b.append, clock=clock)
    try:
        await store_a.register("s1", "a", 1000.0)
        for seq in (1, 2, 3):
            await store_a.append("s1", seq, event("s1", seq))
        following = asyncio.ensure_future(collect(store_b, "s1"))
        for _ in range(5):  # both alive, 5 s apart: nobody is reaped
            await node_a.beat()
            assert await node_b.beat() == []
            clock.now += 5.0
        clock.now += 6.0  # node a is silent for 11 s (killed)
        assert await node_b.beat() == ["s1"] and reaped_by_b == [["s1"]]
        got = await asyncio.wait_for(following, TIMEOUT_S)
    finally:
        await store_a.close()
        await store_b.close()
    assert [(e["seq"], e["type"], e.get("code")) for e in got] == [
        (1, "transcript.partial", None), (2, "transcript.partial", None), (3, "transcript.partial", None),
        (4, "error", "node_lost"), (5, "session.ended", None)]


@pytest.mark.redis
async def test_a_node_registers_its_sessions_again_after_redis_forgot_them(tmp_path: Path) -> None:
    server = RedisServer(tmp_path)
    server.start()
    store = RedisStore(server.url)
    keeper = NodeKeeper(store, "a", lambda: {"s1": 1000.0}, clock=Clock())
    try:
        await keeper.beat()
        assert (await store.record("s1")).node == "a"  # type: ignore[union-attr]
        server.kill()
        server.start()  # empty: no persistence
        await keeper.beat()
        record = await store.record("s1")
        assert record is not None and record.state == "live" and record.heartbeat == 1000.0
    finally:
        await store.close()
        server.kill()


async def feed_of(store: RedisStore, resume_from: int | None) -> list[object]:
    """What a viewer fed from the log is sent: seqs of events, "gap" for a Gap."""
    return ["gap" if isinstance(item, Gap) else json.loads(item)["seq"]
            for item in await watch(store, "s1", resume_from, poll_s=0.05)]


async def test_viewer_feeds_resume_exactly_or_report_the_gap_and_send_the_snapshot(
    redis_server: RedisServer,
) -> None:
    store = RedisStore(redis_server.url, StoreSettings(maxlen=20))
    try:
        await store.register("s1", "node-a", 1000.0)
        for seq in range(1, 31):  # the log keeps 11..30
            await store.append("s1", seq, final("s1", seq))
        viewers = [asyncio.ensure_future(feed_of(store, after)) for after in (25, 5, None)]
        await asyncio.sleep(0.1)
        for seq in (31, 32):
            await store.append("s1", seq, final("s1", seq))
        await store.append("s1", 33, ended("s1", 33))
        resumed, too_late, late_joiner = await asyncio.wait_for(asyncio.gather(*viewers), TIMEOUT_S)
    finally:
        await store.close()
    assert resumed == [26, 27, 28, 29, 30, 31, 32, 33]  # exactly the events after 25
    # 6..10 are trimmed: the gap, the snapshot (finals of the last whole utterances the log holds), live
    assert too_late[0] == "gap" and too_late[1:] == list(range(11, 34))
    assert late_joiner == list(range(11, 34))  # snapshot, then live: nothing twice
