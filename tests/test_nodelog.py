"""Two nodes on one real redis-server, through the object the server will hold (NodeLog): a session run on
node A is watched from node B with the same bytes and seqs; a viewer resumes on either; in memory (no
Redis) the same calls work within one process; a session that ends while Redis is down is ended there
once Redis is back."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from streamtwin.config import Config
from streamtwin.eventlog.memory_store import MemoryStore
from streamtwin.eventlog.node_log import NodeLog
from streamtwin.eventlog.resume import Gap
from tests.redis_server import RedisServer, redis_server  # noqa: F401  (the fixture)
from tests.logdata import TIMEOUT_S, ended, final
from tests.logdata import watch as watch_log


async def watch(node: NodeLog, resume_from: int | None) -> list[bytes | Gap]:
    return await watch_log(node.store, "s1", resume_from)


async def publish(node: NodeLog, last: int) -> list[bytes]:
    await node.session_started("s1")
    sent = [final("s1", seq) for seq in range(1, last)] + [ended("s1", last)]
    for seq, data in enumerate(sent, start=1):
        node.append("s1", seq, data)
        if seq % 10 == 0:
            await asyncio.sleep(0.01)
    node.session_ended("s1", last)
    return sent


async def test_a_session_on_node_a_is_watched_identically_from_node_b(redis_server: RedisServer) -> None:
    config = Config(redis=redis_server.url)
    node_a, node_b = await NodeLog.open(config, "a"), await NodeLog.open(config, "b")
    try:
        await node_a.session_started("s1")
        assert (await node_b.record("s1")).node == "a"  # type: ignore[union-attr]
        late = asyncio.ensure_future(watch(node_b, None))
        resumed = asyncio.ensure_future(watch(node_a, 30))
        sent = await publish(node_a, 60)
        late_got, resumed_got = await asyncio.wait_for(asyncio.gather(late, resumed), TIMEOUT_S)
        assert late_got == sent  # the same bytes, hence the same seqs and text
        assert resumed_got == sent[30:]
        assert (await node_b.record("s1")).state == "ended"  # type: ignore[union-attr]
        assert not node_a.degraded
    finally:
        await node_a.close()
        await node_b.close()


async def test_without_redis_the_same_calls_work_in_memory() -> None:
    node = await NodeLog.open(Config())
    try:
        assert isinstance(node.store, MemoryStore)
        watching = asyncio.ensure_future(watch(node, 5))
        sent = await publish(node, 20)
        assert await asyncio.wait_for(watching, TIMEOUT_S) == sent[5:]
    finally:
        await node.close()


@pytest.mark.redis
async def test_a_session_ended_while_redis_is_down_is_ended_when_it_is_back(tmp_path: Path) -> None:
    server = RedisServer(tmp_path, persist=True)
    server.start()
    unavailable: list[str] = []
    node = await NodeLog.open(Config(redis=server.url, node_expiry_s=0.3), "a", on_unavailable=unavailable.append)
    try:
        await node.session_started("s1")
        for seq in range(1, 5):
            node.append("s1", seq, final("s1", seq))
        assert await node.writer.written_through("s1", 4, TIMEOUT_S)
        server.kill()
        node.append("s1", 5, ended("s1", 5))
        node.session_ended("s1", 5)  # cannot be stored or sealed now
        for _ in range(int(TIMEOUT_S / 0.01)):
            if node.degraded:
                break
            await asyncio.sleep(0.01)
        assert node.degraded and len(unavailable) == 1
        server.start()
        assert await node.sealed(TIMEOUT_S)
        record = await node.record("s1")
        assert record is not None and record.state == "ended" and not node.degraded
        assert [e.seq for e in await node.store.read_after("s1", 0)] == [1, 2, 3, 4, 5]
    finally:
        await node.close(flush_timeout_s=1.0)
        server.kill()
