"""The write queue: in order, bounded, every loss reported in the log, one report per outage, backoff."""

from __future__ import annotations

import json

from streamtwin.events import from_json
from streamtwin.eventlog.logwrites import Backoff, WriteQueue


def drain(queue: WriteQueue, now: float = 0.0) -> list[tuple[str, int, str]]:
    """Write everything (the store is up): (session, seq, event type or error code)."""
    out = []
    while (write := queue.next(now)) is not None:
        body = json.loads(write.data)
        out.append((write.session, write.seq, body.get("code", body.get("type"))))
        queue.written()
    return out


def event(seq: int) -> bytes:
    return json.dumps({"type": "x", "seq": seq}).encode()


def test_writes_come_out_in_order_per_session() -> None:
    queue = WriteQueue()
    for seq in range(1, 6):
        queue.push("a", seq, event(seq))
        queue.push("b", seq * 10, event(seq * 10))
    written = drain(queue)
    assert [seq for session, seq, _ in written if session == "a"] == [1, 2, 3, 4, 5]
    assert [seq for session, seq, _ in written if session == "b"] == [10, 20, 30, 40, 50]
    assert queue.waiting == 0 and queue.lost_total == 0


def test_an_outage_is_reported_once_and_retried_with_backoff() -> None:
    queue = WriteQueue(backoff=Backoff(initial_s=0.1, max_s=1.0))
    queue.push("a", 1, event(1))
    first = queue.next(0.0)
    assert queue.failed(0.0) is True  # report store_unavailable now
    assert queue.degraded
    assert queue.next(0.05) is None  # backing off
    retries = []
    now = 0.0
    for _ in range(6):
        now = queue.retry_at
        assert queue.next(now) is first  # the same write again
        assert queue.failed(now) is False  # not reported twice
        retries.append(round(queue.retry_at - now, 3))
    assert retries == [0.2, 0.4, 0.8, 1.0, 1.0, 1.0]
    assert queue.next(queue.retry_at) is first
    assert queue.written() is True and not queue.degraded  # the outage is over
    queue.push("a", 2, event(2))
    assert queue.next(now) is not None and queue.written() is False


def test_overflow_drops_the_oldest_and_reports_them_in_their_place() -> None:
    queue = WriteQueue(max_entries=3)
    queue.push("a", 1, event(1))
    in_flight = queue.next(0.0)
    assert queue.failed(0.0)
    for seq in range(2, 10):
        queue.push("a", seq, event(seq))
    assert queue.lost_total == 5  # 2..6 dropped; 7, 8, 9 wait; 1 is in flight and never dropped
    assert queue.next(queue.retry_at) is in_flight
    assert queue.written() is True
    report = queue.next(10.0)
    assert report is not None and report.report and report.seq == 6
    parsed = from_json(report.data.decode())  # a valid event of the schema: replay and viewers parse it
    assert parsed.type == "error" and parsed.code == "events_lost"  # type: ignore[attr-defined]
    assert "events 2 to 6" in parsed.message  # type: ignore[attr-defined]
    queue.written()
    assert drain(queue, 10.0) == [("a", 7, "x"), ("a", 8, "x"), ("a", 9, "x")]


def test_bytes_bound_too() -> None:
    queue = WriteQueue(max_bytes=100)
    for seq in range(1, 20):
        queue.push("a", seq, event(seq).ljust(30))
    assert queue.lost_total == 16
    assert [seq for _, seq, _ in drain(queue)] == [16, 17, 18, 19]


def test_events_the_store_lost_are_reported_before_the_write_that_found_out() -> None:
    queue = WriteQueue()
    for seq in (5, 6):
        queue.push("a", seq, event(seq))
    assert queue.next(0.0).seq == 5  # type: ignore[union-attr]
    queue.store_lost("a", 1, 4)  # the store restarted empty: 1..4 were acknowledged and are gone
    assert drain(queue) == [("a", 4, "events_lost"), ("a", 5, "x"), ("a", 6, "x")]


def test_a_refused_event_is_reported_lost() -> None:
    queue = WriteQueue()
    queue.push("a", 3, event(3))
    queue.next(0.0)
    queue.refused()
    write = queue.next(0.0)
    assert write is not None and write.report and write.seq == 3
    queue.refused()  # the report is refused too (the session is gone there): nothing more
    assert queue.next(0.0) is None and queue.lost_total == 1


def test_batches_hand_out_the_writes_in_flight_again_until_each_is_settled() -> None:
    queue = WriteQueue()
    for seq in range(1, 8):
        queue.push("a", seq, event(seq))
    assert [w.seq for w in queue.batch(0.0, 3)] == [1, 2, 3]
    queue.written()  # 1 went in, 2 was refused, 3 was not looked at
    queue.refused()
    assert [w.seq for w in queue.batch(0.0, 3)] == [3, 2, 4]  # 3 again, the report of 2, then on
    assert queue.batch(0.0, 3)[1].report
    queue.failed(0.0)  # the store went away: everything in flight is tried again after the backoff
    assert queue.batch(0.0, 3) == []
    again = queue.batch(queue.retry_at, 3)
    assert [w.seq for w in again] == [3, 2, 4]
    queue.written()
    queue.store_lost("a", 1, 2)  # the report of 2 in flight goes back to the losses, merged with 1..2
    assert [(w.seq, w.report, w.lost_from) for w in queue.batch(0.0, 3)] == [(2, True, 1), (4, False, 0),
                                                                              (5, False, 0)]
