"""A fast model's text through the whole path, on loopback: assistant, session events, server, per-client
outboxes, websockets.  Readers get it whole and identical; a viewer that never reads costs them nothing.
"""

from __future__ import annotations

import asyncio

from streamtwin.events import TranscriptFinal
from streamtwin.service.server import make_session_factory
from tests.fakes.burst_backend import BurstBackend
from tests.live import hello, open_ws, recv_until, view


async def test_three_viewers_one_never_reading_and_the_readers_receive_identical_text(make_server):
    # ~2.4 MB in 600 bursts: far more than a viewer that stopped reading can buffer.
    bursts = [[f" {b}:{i}".ljust(20, ".") for i in range(200)] for b in range(600)]
    expected = "".join(token for burst in bursts for token in burst)
    server = await make_server(session_factory=make_session_factory(BurstBackend(bursts)))
    publisher = await open_ws(server)
    welcome = await hello(publisher, "publisher")
    live = server.sessions[welcome["session"]]
    readers = [await open_ws(server) for _ in range(2)]
    stalled = await open_ws(server, max_queue=1)  # its client library buffers one message, then TCP backs up
    for ws in (*readers, stalled):
        assert (await view(ws, welcome))["type"] == "welcome"
    stalled.transport.pause_reading()

    async def commentary(ws):
        started, _ = await recv_until(ws, "assistant.started", timeout=60)
        done, before = await recv_until(ws, "assistant.done", timeout=60)
        frames = [m for m in before if m["type"] == "assistant.delta" and m["generation"] == started["generation"]]
        return done, frames

    reading = [asyncio.ensure_future(commentary(ws)) for ws in (*readers, publisher)]
    live.session.bus.emit(TranscriptFinal(text="Let's plan the week.", start=0.0, end=1.5, utterance=1, utterance_end=True))
    for done, frames in await asyncio.gather(*reading):
        assert "".join(f["text"] for f in frames) == expected
        assert len(frames) <= len(bursts)  # never a message per token: at most one per model turn
        assert done["tokens"] == len(bursts) * 200 and not done["cancelled"]
    assert len(live.viewers) == 3  # the one that does not read is still there, not dropped

    # When it reads at last: the text it kept, in order, and notices for what it lost.
    stalled.transport.resume_reading()
    _, messages = await recv_until(stalled, "assistant.done", timeout=60)
    kept = [m["text"] for m in messages if m["type"] == "assistant.delta"]
    dropped = sum(m["dropped_chars"] for m in messages if m.get("code") == "deltas_dropped")
    assert dropped > 0 and sum(map(len, kept)) + dropped == len(expected)
    position = 0
    for text in kept:
        position = expected.index(text, position) + len(text)
    assert expected.endswith(kept[-1])
    for ws in (*readers, stalled, publisher):
        await ws.close()



class _Channel:
    """What the fan-out needs of a client's channel: the bytes it was handed, in order."""

    def __init__(self) -> None:
        self.sent: list[bytes] = []

    def put(self, data: bytes) -> None:
        self.sent.append(data)

    def put_frame(self, frame) -> None:
        self.sent.append(frame.data)


class _Log:
    def __init__(self) -> None:
        self.appended: list[tuple[int, bytes]] = []
        self.ended: list[int] = []

    def append(self, session: str, seq: int, data: bytes) -> None:
        self.appended.append((seq, data))

    def session_ended(self, session: str, seq: int) -> None:
        self.ended.append(seq)


async def test_the_fan_out_encodes_each_event_once_and_merges_deltas_before_the_next_event():
    import json

    from streamtwin.bus import EventBus
    from streamtwin.events import AssistantDelta, SessionEnded
    from streamtwin.service.fanout import FanOut
    from streamtwin.service.metrics import ServiceMetrics

    channels = [_Channel(), _Channel()]
    event_log = _Log()
    fanout = FanOut(
        "s1", lambda: channels, ServiceMetrics(lambda: 1, dict), event_log,
        media_wall=lambda media_time, speaker: None, is_room=lambda: False,
    )
    bus = EventBus("s1")
    bus.subscribe(fanout.on_event)
    for text in ("Hel", "lo", " there"):
        bus.emit(AssistantDelta(generation=1, text=text))
    assert channels[0].sent == []  # merged: nothing goes out per token
    bus.emit(TranscriptFinal(text="Next.", start=0.0, end=1.0, utterance=1, utterance_end=True))
    bus.emit(SessionEnded())
    first, second = channels
    assert [json.loads(data)["type"] for data in first.sent] == ["assistant.delta", "transcript.final", "session.ended"]
    assert json.loads(first.sent[0])["text"] == "Hello there" and json.loads(first.sent[0])["seq"] == 3
    assert all(a is b for a, b in zip(first.sent, second.sent))  # one encoding, the same bytes to all
    assert [seq for seq, _ in event_log.appended] == [3, 4, 5]
    assert [data for _, data in event_log.appended] == first.sent
    assert event_log.ended == [5]


async def test_merged_deltas_go_out_when_their_window_closes():
    import json

    from streamtwin.bus import EventBus
    from streamtwin.events import AssistantDelta
    from streamtwin.service.fanout import FanOut
    from streamtwin.service.metrics import ServiceMetrics

    channel = _Channel()
    fanout = FanOut(
        "s1", lambda: [channel], ServiceMetrics(lambda: 1, dict), None,
        media_wall=lambda media_time, speaker: None, is_room=lambda: False,
    )
    bus = EventBus("s1")
    bus.subscribe(fanout.on_event)
    bus.emit(AssistantDelta(generation=1, text="a"))
    bus.emit(AssistantDelta(generation=1, text="b"))
    for _ in range(200):  # the window for one client is 2 ms
        if channel.sent:
            break
        await asyncio.sleep(0.005)
    assert [json.loads(data)["text"] for data in channel.sent] == ["ab"]
