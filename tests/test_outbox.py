"""The per-client outbound queue: order, delta frames, drop notices, bounds."""

from __future__ import annotations

import json

from pipeline.policy.coalesce import TokenCoalescer
from pipeline.policy.outbox import Outbox

ENVELOPE = {"v": 1, "type": "assistant.delta", "session": "s", "seq": 9, "wall": 1.5, "media_time": None}


def delta(outbox: Outbox, now: float, text: str, generation: int = 1, seq: int = 9) -> None:
    outbox.put_delta(now, generation, text, dict(ENVELOPE, seq=seq, generation=generation))


def test_deltas_merge_into_one_event_shaped_frame_after_the_window():
    outbox = Outbox(TokenCoalescer(window_s=0.03))
    delta(outbox, 0.000, "Hel", seq=3)
    delta(outbox, 0.010, "lo", seq=4)
    assert outbox.take(0.020) == []
    assert outbox.next_due() == 0.03
    [frame] = outbox.take(0.030)
    assert json.loads(frame) == dict(ENVELOPE, seq=4, generation=1, text="Hello")
    assert outbox.next_due() is None


def test_any_other_message_flushes_pending_deltas_first_so_order_is_kept():
    outbox = Outbox()
    delta(outbox, 0.0, "partial answer")
    outbox.put('{"type": "assistant.done"}')
    assert outbox.next_due() == 0.0
    messages = outbox.take(0.001)
    assert [json.loads(m)["type"] for m in messages] == ["assistant.delta", "assistant.done"]


def test_dropped_text_is_announced_before_the_frame_that_follows_the_gap():
    outbox = Outbox(TokenCoalescer(window_s=0.03, max_pending_chars=10))
    delta(outbox, 0.0, "abcdefgh")
    delta(outbox, 0.0, "ijklmn")  # 14 chars pending: the oldest 4 go
    notice, frame = (json.loads(m) for m in outbox.take(1.0))
    assert (notice["type"], notice["code"], notice["dropped_chars"], notice["generation"]) == (
        "notice", "deltas_dropped", 4, 1
    )
    assert frame["text"] == "efghijklmn"


def test_a_client_past_the_bounds_overflows_and_gets_nothing_more():
    outbox = Outbox(max_messages=3, max_bytes=1000)
    for i in range(3):
        assert outbox.put(f'{{"n": {i}}}')
    assert outbox.overflow is None
    assert not outbox.put('{"n": 3}')
    assert outbox.overflow.startswith("too slow: 4 messages")
    assert outbox.take(1.0) == []
    assert not outbox.put("{}")

    by_size = Outbox(max_messages=100, max_bytes=1000)
    assert by_size.put("x" * 900)
    assert not by_size.put("x" * 200)
    assert by_size.overflow is not None


def test_taking_empties_the_queue_and_its_byte_count():
    outbox = Outbox()
    outbox.put("abc")
    outbox.put("de")
    assert (outbox.queued, outbox.queued_bytes) == (2, 5)
    assert outbox.take(0.0) == ["abc", "de"]
    assert (outbox.queued, outbox.queued_bytes) == (0, 0)
