"""The event store, in memory and on a real redis-server: the same behaviour from both.

Append/read/tail in order, refused appends, MAXLEN trimming seen by a resuming viewer as a gap, expiry
after the end, a dead node's sessions marked lost (once) with ``node_lost`` and ``session.ended``
appended, and exact resume across 100 forced reconnects.
"""

from __future__ import annotations

import asyncio
import json
import os
import tracemalloc
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from streamtwin.eventlog import EventStore, StaleAppend, StoreSettings, StoreUnavailable
from streamtwin.eventlog.store import LostEntries
from streamtwin.eventlog.memory_store import MemoryStore
from streamtwin.eventlog.node import NodeKeeper
from streamtwin.eventlog.redis_store import RedisStore
from streamtwin.events import from_json
from streamtwin.eventlog.resume import ResumeFeed
from tests.clock import Clock
from tests.logdata import event
from tests.redis_server import RedisServer


class Stores:
    """Stores on one backing, as several nodes have them: new clients of one Redis, or (in memory, one
    process) the same store."""

    def __init__(self, kind: str, server: RedisServer | None) -> None:
        self.kind = kind
        self.clock = Clock()
        self._server = server
        self._memory: MemoryStore | None = None
        self.made: list[EventStore] = []

    def __call__(
        self, maxlen: int = 100_000, expire_s: float = 3600.0, node_expiry_s: float = 10.0, max_bytes: int = 1 << 20
    ) -> EventStore:
        config = StoreSettings(maxlen=maxlen, max_bytes=max_bytes, expire_s=expire_s, node_expiry_s=node_expiry_s)
        if self._server is not None:
            store: EventStore = RedisStore(self._server.url, config)
        else:
            self._memory = self._memory or MemoryStore(config, clock=self.clock)
            store = self._memory
        self.made.append(store)
        return store


@pytest.fixture(params=["memory", pytest.param("redis", marks=pytest.mark.redis)])
async def make_store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Stores]:
    server = None
    if request.param == "redis":
        server = RedisServer(tmp_path)
        server.start()
    stores = Stores(request.param, server)
    yield stores
    for store in stores.made:
        await store.close()
    if server is not None:
        server.kill()


async def test_append_read_after_and_tail_in_order(make_store: Stores) -> None:
    store = make_store()
    seqs = [1, 2, 3, 5, 8, 13]  # merged deltas skip seqs
    prevs = [await store.append("s1", seq, event("s1", seq)) for seq in seqs]
    assert prevs == [0, 1, 2, 3, 5, 8]
    entries = await store.read_after("s1", 2)
    assert [(e.seq, e.prev) for e in entries] == [(3, 2), (5, 3), (8, 5), (13, 8)]
    assert from_json(entries[0].data.decode()).seq == 3
    assert [e.seq for e in await store.read_after("s1", 0, limit=2)] == [1, 2]
    assert await store.read_after("s1", 13) == [] and await store.last_seq("s1") == 13
    assert await store.read_after("other", 0) == [] and await store.last_seq("other") == 0

    waiting = asyncio.ensure_future(store.tail("s1", 13, 10.0))
    await asyncio.sleep(0.05)
    assert not waiting.done()
    await store.append("s1", 21, event("s1", 21))
    assert [(e.seq, e.prev) for e in await waiting] == [(21, 13)]
    assert await store.tail("s1", 21, 0.05) == []  # nothing new: returns after the timeout


async def test_out_of_order_appends_are_refused_and_retries_are_not_added_twice(make_store: Stores) -> None:
    store = make_store()
    await store.append("s1", 2, event("s1", 2))
    assert await store.append("s1", 4, event("s1", 4)) == 2
    assert await store.append("s1", 4, event("s1", 4)) == 2  # a retry whose reply was lost: not added twice
    assert await store.append("s1", 2, event("s1", 2)) == 0  # also when more came after it
    assert [e.seq for e in await store.read_after("s1", 0)] == [2, 4]
    with pytest.raises(StaleAppend):
        await store.append("s1", 3, event("s1", 3))
    with pytest.raises(LostEntries):  # the writer wrote 5 last, the log ends at 4
        await store.append("s1", 6, event("s1", 6), expect=5)
    # A batch: each append stands alone; a batch sent again after a lost reply adds nothing twice.
    batch = [("s1", 5, event("s1", 5), 4), ("s1", 3, event("s1", 3), 5), ("s1", 7, event("s1", 7), 6),
             ("s1", 6, event("s1", 6), 5)]
    results = await store.append_many(batch)
    assert results[0] == 4 and isinstance(results[1], StaleAppend) and isinstance(results[2], LostEntries)
    assert results[3] == 5
    assert (await store.append_many([batch[0], batch[3]])) == [4, 5]
    assert [e.seq for e in await store.read_after("s1", 0)] == [2, 4, 5, 6]
    await store.register("s1", "node-a", 1000.0)
    await store.end("s1")
    with pytest.raises(StaleAppend):
        await store.append("s1", 5, event("s1", 5))
    assert (await store.record("s1")).state == "ended"


async def test_maxlen_trims_and_a_resume_before_the_trim_is_a_gap(make_store: Stores) -> None:
    store = make_store(maxlen=50)
    for seq in range(1, 201):
        await store.append("s1", seq, event("s1", seq))
    held = await store.read_after("s1", 0)
    assert [e.seq for e in held] == list(range(151, 201))

    late = ResumeFeed(120)
    assert late.backlog(await store.read_after("s1", late.cursor)) == []
    assert late.gap is not None and (late.gap.after, late.gap.oldest) == (120, 151)

    recent = ResumeFeed(170)
    out = recent.backlog(await store.read_after("s1", recent.cursor))
    assert recent.gap is None and [from_json(e.data.decode()).seq for e in out] == list(range(171, 201))


async def test_in_memory_the_log_keeps_its_bytes_out_of_the_heap() -> None:
    """A live session's log (thumbnails mostly) was most of a soak's memory growth, ~2 MB per 10 minutes."""
    store = MemoryStore()
    tracemalloc.start()
    try:
        before, _ = tracemalloc.get_traced_memory()
        for seq in range(1, 2001):
            await store.append("s1", seq, event("s1", seq, text="x" * 2500))  # 5 MB in all
        grown = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert grown < 500_000, grown  # the index: 32 bytes an entry
    held = await store.read_after("s1", 1990)
    assert [from_json(e.data.decode()).seq for e in held] == list(range(1991, 2001))
    assert (await store.read_after("s1", 0, limit=3))[0].data == event("s1", 1, text="x" * 2500)
    await store.close()


async def test_in_memory_a_trimmed_log_gives_its_file_and_index_back() -> None:
    store = MemoryStore(StoreSettings(maxlen=50, max_bytes=20_000))
    for seq in range(1, 10_001):
        await store.append("s1", seq, event("s1", seq, text="x" * (900 if seq % 2 else 10)))
    entries = store._logs["s1"].entries
    assert len(entries) <= 50 and len(entries._seqs) <= 50 + entries.COMPACT_ENTRIES + 1
    assert entries._file.size <= entries.COMPACT_BYTES + 2 * 20_000
    held = await store.read_after("s1", 0)
    assert held[-1].seq == 10_000 and [e.seq for e in held] == list(range(held[0].seq, 10_001))
    assert all(from_json(e.data.decode()).seq == e.seq for e in held)
    assert (await store.append("s1", 10_000, event("s1", 10_000))) == 9_999  # a retry, found in the index
    await store.close()


def open_fds() -> int:
    return len(os.listdir("/proc/self/fd"))


async def test_in_memory_ended_logs_share_archive_files_and_close_them_when_they_expire() -> None:
    """Ended sessions stay readable for a day: a descriptor each ran a busy server out of them."""
    fds = open_fds()
    now = [0.0]
    store = MemoryStore(StoreSettings(expire_s=100.0), clock=lambda: now[0])
    store._archive.SEGMENT_BYTES = 3_000
    for i in range(1, 31):
        session = f"s{i}"
        for seq in range(1, 4):
            await store.append(session, seq, event(session, seq, text="x" * 200))
        await store.end(session)
        now[0] += 1.0
    assert open_fds() <= fds + 30 * 3 * 311 // 3_000 + 1  # a segment per ~3 KB, not a file a session
    with pytest.raises(StaleAppend):
        await store.append("s30", 4, event("s30", 4))
    for session in ("s1", "s17", "s30"):  # read back from their segments
        held = await store.read_after(session, 0)
        assert [from_json(e.data.decode()) for e in held] == [from_json(event(session, seq, text="x" * 200).decode()) for seq in (1, 2, 3)]
    now[0] = 120.0  # s1..s21 expired (ended at 0..20 s, kept 100 s)
    await store.live_sessions()
    assert await store.read_after("s21", 0) == [] and len(await store.read_after("s22", 0)) == 3
    assert open_fds() <= fds + 9 * 3 * 311 // 3_000 + 2
    now[0] = 1000.0
    await store.live_sessions()
    assert open_fds() == fds
    await store.append("live", 1, event("live", 1))
    await store.end("empty")  # a session that wrote nothing holds no file
    await store.close()
    assert open_fds() == fds


async def test_in_memory_the_log_is_bounded_in_bytes_too() -> None:
    store = MemoryStore(StoreSettings(max_bytes=10_000))
    for seq in range(1, 101):
        await store.append("s1", seq, event("s1", seq, text="x" * 900))  # ~1 KB each
    held = await store.read_after("s1", 0)
    assert 5 <= len(held) <= 10 and held[-1].seq == 100
    assert sum(len(e.data) for e in held) <= 10_000
    await store.append("s1", 101, event("s1", 101, text="y" * 20_000))  # bigger than the bound: kept alone
    assert [e.seq for e in await store.read_after("s1", 0)] == [101]


async def test_a_log_expires_after_the_session_ends(make_store: Stores) -> None:
    store = make_store(expire_s=0.3)
    await store.register("s1", "node-a", 1000.0)
    await store.append("s1", 1, event("s1", 1))
    await store.end("s1")
    assert [e.seq for e in await store.read_after("s1", 0)] == [1]  # still readable after the end
    assert (await store.record("s1")).state == "ended"
    if make_store.kind == "memory":
        make_store.clock.now += 0.31
    else:  # Redis expires the keys itself
        for _ in range(100):
            if await store.record("s1") is None:
                break
            await asyncio.sleep(0.05)
    assert await store.read_after("s1", 0) == [] and await store.record("s1") is None


async def test_a_dead_nodes_sessions_are_lost_once(make_store: Stores) -> None:
    """... with node_lost then session.ended appended."""
    node_a, node_b, node_c = (make_store(node_expiry_s=10.0) for _ in range(3))
    await node_a.register("s1", "a", 1000.0)
    await node_b.register("s2", "b", 1000.0)
    for seq in (1, 2, 3):
        await node_a.append("s1", seq, event("s1", seq))
    await node_a.heartbeat("a", 1000.0)
    await node_b.heartbeat("b", 1000.0)
    assert await node_b.reap_lost(1009.0) == []  # within the expiry
    await node_b.heartbeat("b", 1010.0)  # b lives on, a stopped at 1000
    reaped = await asyncio.gather(node_b.reap_lost(1011.0), node_c.reap_lost(1011.0))
    assert sorted(reaped, key=len) == [[], ["s1"]]  # exactly one node marks it

    tail = [json.loads(e.data) for e in await node_c.read_after("s1", 0)]
    assert [(e["seq"], e["type"]) for e in tail] == [
        (1, "transcript.partial"), (2, "transcript.partial"), (3, "transcript.partial"), (4, "error"),
        (5, "session.ended")]
    assert tail[3]["code"] == "node_lost" and tail[3]["fatal"] is True
    from_json(json.dumps(tail[4]))  # valid events of the schema
    assert (await node_c.record("s1")).state == "lost"
    assert [r.id for r in await node_c.live_sessions()] == ["s2"]
    with pytest.raises(StaleAppend):  # node a comes back from the dead: its appends are refused
        await node_a.append("s1", 4, event("s1", 4))


async def test_viewer_counts_per_node_are_shared_and_age_out_with_their_node(make_store: Stores) -> None:
    node_a, node_b = make_store(), make_store()
    a = NodeKeeper(node_a, "a", dict, viewer_counts=lambda: dict(counts_a), clock=make_store.clock)
    counts_a = {"s1": 3, "s2": 1}
    await a.beat()
    await node_b.count_viewers("b", {"s1": 2}, 1000.0)
    assert await node_b.viewers("s1", 1000.0) == {"a": 3, "b": 2}
    counts_a = {"s1": 1}  # s2's viewer left: the next beat says so
    await a.beat()
    assert await node_b.viewers("s2", 1000.0) == {}
    assert await node_b.viewers("s1", 1000.0) == {"a": 1, "b": 2}
    await node_b.count_viewers("b", {"s1": 0}, 1000.0)
    assert await node_b.viewers("s1", 1000.0) == {"a": 1}
    assert await node_a.viewers("s1", 1011.0) == {}  # node a fell silent: its count no longer holds


class FlakyStore(MemoryStore):
    """A store that can be made unreachable, as a Redis that is down."""

    down = False

    async def heartbeat(self, node: str, now: float) -> None:
        if self.down:
            raise StoreUnavailable("Redis is down")
        await super().heartbeat(node, now)


async def test_after_a_store_outage_no_live_node_is_taken_for_dead() -> None:
    clock = Clock()
    store = FlakyStore(StoreSettings(node_expiry_s=10.0), clock=clock)
    await store.register("s1", "a", clock.now)
    a = NodeKeeper(store, "a", lambda: {"s1": 1000.0}, clock=clock)
    b = NodeKeeper(store, "b", dict, clock=clock)
    await a.beat()
    await b.beat()
    store.down = True
    clock.now += 3.0
    for keeper in (a, b):
        with pytest.raises(StoreUnavailable):
            await keeper.beat()
    clock.now += 27.0  # down for 30 s: every heartbeat in the store is stale now
    store.down = False
    assert await b.beat() == []  # b is back first: a's old heartbeat is no proof that a died
    await a.beat()
    for _ in range(3):
        clock.now += 5.0
        await a.beat()
        assert await b.beat() == []
    clock.now += 12.0  # now a is silent (killed): b, reachable for long enough, reaps its session
    assert await b.beat() == ["s1"]


async def test_a_dead_node_is_reaped_within_the_expiry_of_its_death() -> None:
    """A node killed just after a beat: its sessions' viewers must be told within node_expiry_s of the kill,
    so the survivors (beating every tenth of it) take a silence of the expiry less one beat for death."""
    clock = Clock()
    store = MemoryStore(StoreSettings(node_expiry_s=10.0), clock=clock)
    await store.register("s1", "a", clock.now)
    a = NodeKeeper(store, "a", lambda: {"s1": 1000.0}, clock=clock)
    b = NodeKeeper(store, "b", dict, clock=clock)
    for _ in range(12):  # both alive, beating every second
        await a.beat()
        assert await b.beat() == []
        clock.now += a.every_s
    clock.now += 9.5 - a.every_s  # a was killed right after its last beat, 9.5 s ago
    assert await b.beat() == ["s1"]


async def test_resume_is_exact_across_100_forced_reconnects(make_store: Stores) -> None:
    """A publisher appends 1,500 events (seqs skip like merged deltas) while a viewer reconnects 100 times,
    each time on a new connection (a new store object: for Redis, a new client), resuming from the last seq it
    got: backlog, then the live tail.  It must get every event once, in order."""
    writer = make_store()
    seqs = [seq for seq in range(1, 2001) if seq % 4]  # 1500 events
    done = asyncio.Event()

    async def publish() -> None:
        for number, seq in enumerate(seqs):
            await writer.append("s1", seq, event("s1", seq))
            if number % 15 == 0:
                await asyncio.sleep(0)  # let the viewer in
        done.set()

    received: list[int] = []
    publisher = asyncio.ensure_future(publish())
    reconnects = 0
    while reconnects < 100 or not done.is_set() or (received and received[-1] != seqs[-1]):
        reader = make_store() if make_store.kind == "redis" else writer
        feed = ResumeFeed(received[-1] if received else 0)
        batches = 0
        while feed.needs_backlog:
            page = await reader.read_after("s1", feed.cursor, limit=100)
            received += [from_json(e.data.decode()).seq for e in feed.backlog(page, complete=len(page) < 100)]
        while batches < 3:  # then live for a while, and the connection drops
            entries = await reader.tail("s1", feed.cursor, 0.01)
            for entry in entries:
                received += [from_json(e.data.decode()).seq for e in feed.live(entry)]
            batches += 1
        assert feed.gap is None
        if reader is not writer:
            await reader.close()
        reconnects += 1
    await publisher
    assert received == seqs  # no gap, no duplicate
    assert reconnects >= 100


class TimesOutOnCancel(MemoryStore):
    """A store call that a cancel turns into an outage, as a Redis call does when the cancel lands
    as its socket timeout fires (Python 3.11's ``asyncio.timeout``)."""

    async def _slow(self) -> None:
        try:
            await asyncio.sleep(10)
        except asyncio.CancelledError:
            raise StoreUnavailable("Redis timed out") from None

    async def heartbeat(self, node: str, now: float) -> None:
        await self._slow()

    async def append_many(self, appends: list) -> list:
        await self._slow()
        return []


async def test_closing_stops_the_keeper_and_the_writer_even_when_a_cancel_comes_back_as_an_outage() -> None:
    """CI hung for 20 minutes in test_nodelog: the keeper's cancel became a timeout, and it beat on."""
    from streamtwin.eventlog.writer import LogWriter

    store = TimesOutOnCancel(StoreSettings(node_expiry_s=0.3))
    keeper = NodeKeeper(store, "a", dict)
    keeper.start()
    writer = LogWriter(store)
    writer.submit("s1", 1, event("s1", 1))
    await asyncio.sleep(0.05)  # both are inside a store call
    closing = [asyncio.ensure_future(keeper.close()), asyncio.ensure_future(writer.close())]
    _, still_running = await asyncio.wait(closing, timeout=2.0)  # not wait_for: it would wait on the hang
    assert not still_running
