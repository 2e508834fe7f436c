"""The per-client outbound queue: shared frames, merging when behind, drop notices, order, bounds."""

from __future__ import annotations

import json

from streamtwin.events import encode
from streamtwin.service.outbox import Outbox, SharedFrame

ENVELOPE = {"v": 1, "type": "assistant.delta", "session": "s", "seq": 9, "wall": 1.5, "media_time": None}


def frame(text: str, generation: int = 1, seq: int = 9) -> SharedFrame:
    body = dict(ENVELOPE, seq=seq, generation=generation, text=text)
    return SharedFrame(generation, text, body, encode(body))


def test_a_client_that_keeps_up_sends_the_frame_serialised_for_everyone():
    shared = frame("Hello")
    outboxes = [Outbox(encode) for _ in range(3)]
    for outbox in outboxes:
        outbox.put_frame(shared)
    for outbox in outboxes:
        [sent] = outbox.take()
        assert sent is shared.data  # the same bytes object: serialised once
    assert outboxes[0].take() == []


def test_frames_for_a_client_that_fell_behind_merge_into_one_with_the_newest_envelope():
    outbox = Outbox(encode)
    outbox.put_frame(frame("Hel", seq=3))
    outbox.put_frame(frame("lo", seq=4))  # the first is still waiting: merged
    outbox.put_frame(frame(" two", generation=2, seq=5))
    merged, second = (json.loads(m) for m in outbox.take())
    assert merged == dict(ENVELOPE, seq=4, generation=1, text="Hello")
    assert second == dict(ENVELOPE, seq=5, generation=2, text=" two")


def test_messages_keep_their_place_between_frames():
    outbox = Outbox(encode)
    outbox.put_frame(frame("partial answer"))
    outbox.put(b'{"type":"assistant.done"}')
    outbox.put_frame(frame(" after"))  # not merged across the message before it
    assert [json.loads(m)["type"] for m in outbox.take()] == ["assistant.delta", "assistant.done", "assistant.delta"]


def test_dropped_text_is_announced_where_it_was_and_the_rest_kept():
    outbox = Outbox(encode, max_pending_chars=10)
    outbox.put_frame(frame("abcdefgh"))
    outbox.put_frame(frame("ijklmn"))  # 14 chars pending: the oldest 4 go
    notice, kept = (json.loads(m) for m in outbox.take())
    assert (notice["type"], notice["code"], notice["dropped_chars"], notice["generation"]) == (
        "notice", "deltas_dropped", 4, 1
    )
    assert kept["text"] == "efghijklmn"
    assert outbox.dropped_chars_total == 4


def test_a_generation_dropped_whole_leaves_only_its_notice():
    outbox = Outbox(encode, max_pending_chars=5)
    outbox.put_frame(frame("abc", generation=1))
    outbox.put_frame(frame("0123456", generation=2))
    messages = [json.loads(m) for m in outbox.take()]
    assert [(m["type"], m.get("generation"), m.get("dropped_chars"), m.get("text")) for m in messages] == [
        ("notice", 1, 3, None),
        ("notice", 2, 2, None),
        ("assistant.delta", 2, None, "23456"),
    ]


def test_a_client_past_the_bounds_overflows_and_gets_nothing_more():
    outbox = Outbox(encode, max_messages=3, max_bytes=1000)
    for i in range(3):
        assert outbox.put(f'{{"n": {i}}}')
    assert outbox.overflow is None
    assert not outbox.put('{"n": 3}')
    assert outbox.overflow.startswith("too slow: 4 messages")
    assert outbox.take() == []
    assert not outbox.put("{}")
    outbox.put_frame(frame("ignored"))
    assert outbox.take() == []

    by_size = Outbox(encode, max_messages=100, max_bytes=1000)
    assert by_size.put("x" * 900)
    assert not by_size.put("x" * 200)
    assert by_size.overflow is not None


def test_taking_empties_the_queue_and_its_counts():
    outbox = Outbox(encode)
    outbox.put("abc")
    outbox.put(b"de")
    outbox.put_frame(frame("xyz"))
    assert (outbox.queued, outbox.queued_bytes, outbox.pending_chars) == (3, 5, 3)
    assert outbox.take()[:2] == ["abc", b"de"]
    assert (outbox.queued, outbox.queued_bytes, outbox.pending_chars) == (0, 0, 0)
