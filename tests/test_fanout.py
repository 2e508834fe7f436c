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

