"""One reader of a session's log per node, shared by its viewers there (streamtwin/eventlog/tail.py).

Ten viewers of one session on a node cost one read and one preparation of each new entry, not ten; each
still gets exactly its own events (a resume from its seq, or the snapshot), in order, once, even when it
reads a long backlog slowly while live entries keep coming.
"""

from __future__ import annotations

import asyncio
import json
import random
from collections import Counter

from streamtwin.eventlog.store import LogEntry, StoreUnavailable
from streamtwin.eventlog.memory_store import MemoryStore
from streamtwin.eventlog.tail import Tails
from streamtwin.eventlog.resume import Gap
from tests.logdata import TIMEOUT_S, ended, final


async def room() -> None:
    """A viewer whose outbox always has room (the feed still yields to the loop)."""
    await asyncio.sleep(0)


async def store_holding(finals: int) -> MemoryStore:
    """A live session's log holding finals 1..``finals``."""
    store = MemoryStore()
    await store.register("s1", "node-a", 1000.0)
    for seq in range(1, finals + 1):
        await store.append("s1", seq, final("s1", seq))
    return store


def seqs(got: list[bytes | Gap]) -> list[int]:
    return [json.loads(data)["seq"] for data in got if not isinstance(data, Gap)]


async def test_viewers_on_one_node_share_one_reader_and_each_entry_is_prepared_once() -> None:
    store = await store_holding(10)
    prepared: Counter[int] = Counter()

    def prepare(data: bytes) -> bytes:
        prepared[json.loads(data)["seq"]] += 1
        return data

    tails = Tails(store, prepare, poll_s=0.05)
    outputs: list[list[bytes | Gap]] = [[] for _ in range(10)]
    viewers = [asyncio.ensure_future(tails.feed("s1", 10, send=out.append, room=room).run(snapshot=False))
               for out in outputs]
    await asyncio.sleep(0.05)  # all ten are reading live
    assert tails.reading == 1
    for seq in range(11, 200):
        await store.append("s1", seq, final("s1", seq))
        if seq % 7 == 0:
            await asyncio.sleep(0)
    await store.append("s1", 200, ended("s1", 200))
    await asyncio.wait_for(asyncio.gather(*viewers), TIMEOUT_S)

    for out in outputs:
        assert seqs(out) == list(range(11, 201))
    live = [prepared[seq] for seq in range(11, 201)]
    assert max(live) == 1, "a live entry was read and prepared once per viewer, not once per node"
    assert tails.reading == 0


async def test_a_slow_backlog_reader_gets_every_event_once_in_order_while_live_ones_arrive() -> None:
    store = await store_holding(1500)
    tails = Tails(store, lambda data: data, poll_s=0.05)
    rng = random.Random(7)
    fast: list[bytes | Gap] = []
    slow: list[bytes | Gap] = []

    async def sluggish() -> None:  # a viewer whose outbox drains slowly: the backlog waits for room
        await asyncio.sleep(0.0005 if rng.random() < 0.2 else 0)

    reading = [asyncio.ensure_future(tails.feed("s1", 1500, send=fast.append, room=room).run(snapshot=False))]
    await asyncio.sleep(0.02)
    reading.append(asyncio.ensure_future(tails.feed("s1", 100, send=slow.append, room=sluggish).run(snapshot=False)))
    for seq in range(1501, 2000):
        await store.append("s1", seq, final("s1", seq))
        await asyncio.sleep(0)
    await store.append("s1", 2000, ended("s1", 2000))
    await asyncio.wait_for(asyncio.gather(*reading), TIMEOUT_S)
    assert seqs(fast) == list(range(1501, 2001))
    assert seqs(slow) == list(range(101, 2001))


async def test_a_late_joiner_gets_the_snapshot_then_live_and_a_joiner_without_snapshot_only_new_events() -> None:
    store = await store_holding(5)
    tails = Tails(store, lambda data: data, poll_s=0.05)
    late: list[bytes | Gap] = []
    fresh: list[bytes | Gap] = []
    reading = [asyncio.ensure_future(tails.feed("s1", None, send=late.append, room=room).run(snapshot=True)),
               asyncio.ensure_future(tails.feed("s1", None, send=fresh.append, room=room).run(snapshot=False))]
    await asyncio.sleep(0.05)
    for seq in range(6, 9):
        await store.append("s1", seq, final("s1", seq))
    await store.append("s1", 9, ended("s1", 9))
    await asyncio.wait_for(asyncio.gather(*reading), TIMEOUT_S)
    assert seqs(late) == list(range(1, 10))  # the snapshot holds the five finals, then live, nothing twice
    assert seqs(fresh) == list(range(6, 10))


async def test_the_last_viewer_leaving_stops_the_reader() -> None:
    store = await store_holding(0)
    tails = Tails(store, lambda data: data, poll_s=0.05)
    viewers = [asyncio.ensure_future(tails.feed("s1", 0, send=lambda _: None, room=room).run(snapshot=False))
               for _ in range(3)]
    await asyncio.sleep(0.02)
    assert tails.reading == 1
    for viewer in viewers:
        viewer.cancel()
    await asyncio.gather(*viewers, return_exceptions=True)
    assert tails.reading == 0


class Outage(MemoryStore):
    """A store whose reads fail while it is down, as a Redis that went away."""

    down = False

    async def read_after(self, session: str, after: int, limit: int = 1000) -> list[LogEntry]:
        if self.down:
            raise StoreUnavailable("Redis is down")
        return await super().read_after(session, after, limit)


async def test_a_viewer_reading_its_backlog_waits_out_a_store_outage() -> None:
    store = Outage()
    await store.register("s1", "node-a", 1000.0)
    for seq in range(1, 51):
        await store.append("s1", seq, final("s1", seq))
    store.down = True
    tails = Tails(store, lambda data: data, poll_s=0.05)
    got: list[bytes | Gap] = []
    reading = asyncio.ensure_future(tails.feed("s1", 10, send=got.append, room=room).run(snapshot=False))
    await asyncio.sleep(0.3)
    assert not reading.done() and got == []  # waiting, not failed
    store.down = False
    await store.append("s1", 51, ended("s1", 51))
    await asyncio.wait_for(reading, TIMEOUT_S)
    assert seqs(got) == list(range(11, 52))


class SlowStart(MemoryStore):
    """A store whose ``last_seq`` answers only when told: the node's reader starts late."""

    def __init__(self) -> None:
        super().__init__()
        self.answer = asyncio.Event()

    async def last_seq(self, session: str) -> int:
        await self.answer.wait()
        return await super().last_seq(session)


async def test_an_event_logged_while_the_nodes_reader_starts_reaches_a_resuming_viewer() -> None:
    # The reader follows from the last seq it finds when it starts; an event logged after the viewer read
    # its backlog but before the reader looked was in neither, until a later event made the viewer re-read.
    store = SlowStart()
    await store.register("s1", "node-a", 1000.0)
    await store.append("s1", 1, final("s1", 1))
    tails = Tails(store, lambda data: data, poll_s=0.05)
    got: list[bytes | Gap] = []
    reading = asyncio.ensure_future(tails.feed("s1", 1, send=got.append, room=room).run(snapshot=False))
    await asyncio.sleep(0.05)
    await store.append("s1", 2, final("s1", 2))
    store.answer.set()
    async with asyncio.timeout(TIMEOUT_S):
        while seqs(got) != [2]:
            await asyncio.sleep(0.01)
    await store.append("s1", 3, ended("s1", 3))
    await asyncio.wait_for(reading, TIMEOUT_S)
    assert seqs(got) == [2, 3]
