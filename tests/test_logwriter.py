"""The node's log writer against a real redis-server that is killed mid-append and started again.

With Redis persisting every write, nothing is lost: what was buffered while it was down is appended in
order once it is back.  Without persistence, Redis comes back empty: the events it had accepted are
gone, and the log says so (an ``error`` ``events_lost`` in their place) instead of a silent hole.
The same when the writer's own buffer overflows during the outage.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from streamtwin.eventlog.redis_store import RedisStore
from streamtwin.eventlog.writer import LogWriter
from streamtwin.events import from_json
from streamtwin.eventlog.logwrites import Backoff, WriteQueue
from tests.logdata import event
from tests.redis_server import RedisServer

FLUSH_TIMEOUT_S = 60.0  # a bound for a hung test, not a timing assertion


def accounted(log: list[dict], submitted: list[int]) -> tuple[list[int], list[tuple[int, int]]]:
    """The seqs the log holds as events and the ranges it reports lost; checks order and that every
    submitted seq is one or the other."""
    seqs = [entry["seq"] for entry in log]
    assert seqs == sorted(seqs) and len(seqs) == len(set(seqs))
    held = [entry["seq"] for entry in log if entry.get("code") != "events_lost"]
    lost = []
    for entry in log:
        if entry.get("code") == "events_lost":
            words = entry["message"].split()
            first, last = (int(words[1]), int(words[3])) if words[0] == "events" else (int(words[1]),) * 2
            assert last == entry["seq"]
            lost.append((first, last))
    for seq in submitted:
        assert seq in held or any(first <= seq <= last for first, last in lost), f"seq {seq} silently missing"
    return held, lost


async def read_log(url: str, session: str) -> list[dict]:
    store = RedisStore(url)
    try:
        return [json.loads(entry.data) for entry in await store.read_after(session, 0, limit=100_000)]
    finally:
        await store.close()


async def outage(server: RedisServer, queue: WriteQueue) -> tuple[list[int], list[dict], list[str], list[bool]]:
    """Submit 1..300, kill Redis while they are being written, submit 301..400 while it is down, start it
    again; returns the submitted seqs, the log after recovery, the unavailability reports and whether the
    writer said degraded while down."""
    reports: list[str] = []
    store = RedisStore(server.url)
    writer = LogWriter(store, queue, on_unavailable=reports.append)
    submitted = list(range(1, 401))
    for seq in submitted[:300]:
        writer.submit("s1", seq, event("s1", seq))
    while queue.waiting > 200:  # some written, the rest in flight or waiting
        await asyncio.sleep(0.001)
    server.kill()
    for seq in submitted[300:]:
        writer.submit("s1", seq, event("s1", seq))
    for _ in range(1000):
        if writer.degraded:
            break
        await asyncio.sleep(0.01)
    degraded = [writer.degraded]
    server.start()
    assert await writer.flushed(FLUSH_TIMEOUT_S)
    degraded.append(writer.degraded)
    await writer.close()
    await store.close()
    return submitted, await read_log(server.url, "s1"), reports, degraded


@pytest.mark.redis
async def test_redis_killed_and_restarted_with_persistence_loses_nothing(tmp_path: Path) -> None:
    server = RedisServer(tmp_path, persist=True)
    server.start()
    try:
        queue = WriteQueue(backoff=Backoff(initial_s=0.02, max_s=0.2))
        submitted, log, reports, degraded = await outage(server, queue)
    finally:
        server.kill()
    held, lost = accounted(log, submitted)
    assert held == submitted and lost == []  # all of it, in order, once
    assert len(reports) == 1 and "127.0.0.1" in reports[0]  # store_unavailable reported once
    assert degraded == [True, False]
    for entry in log:
        from_json(json.dumps(entry))


@pytest.mark.redis
async def test_redis_restarted_empty_reports_what_it_lost(tmp_path: Path) -> None:
    server = RedisServer(tmp_path)  # no persistence: whatever Redis held dies with it
    server.start()
    try:
        submitted, log, reports, _ = await outage(server, WriteQueue(backoff=Backoff(initial_s=0.02, max_s=0.2)))
    finally:
        server.kill()
    held, lost = accounted(log, submitted)
    assert len(lost) == 1 and lost[0][0] == 1  # everything Redis had accepted, reported as one range
    assert held == submitted[lost[0][1]:]  # and all the rest, in order
    assert len(reports) == 1


@pytest.mark.redis
async def test_a_full_buffer_during_the_outage_is_reported_not_silent(tmp_path: Path) -> None:
    server = RedisServer(tmp_path, persist=True)
    server.start()
    try:
        queue = WriteQueue(max_entries=50, backoff=Backoff(initial_s=0.02, max_s=0.2))
        submitted, log, reports, _ = await outage(server, queue)
    finally:
        server.kill()
    held, lost = accounted(log, submitted)
    assert lost and queue.lost_total == sum(last - first + 1 for first, last in lost)
    assert held[-50:] == submitted[-50:]  # the newest were kept
    assert len(reports) == 1
