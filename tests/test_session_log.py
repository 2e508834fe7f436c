"""A session's event log inside one process (no Redis: the embedded default, the same code path): it
holds exactly what the session's viewers got, frames included, in seq order, and a viewer resumes from
it with no gap and no duplicate."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from pipeline.events import AssistantDelta, AssistantDone, AssistantStarted, TranscriptFinal
from pipeline.server import Server
from tests.live import open_ws, send_json, view
from tests.redis_server import redis_server  # noqa: F401  (the fixture)
from tests.test_server import get, publish


async def logged(server: Server, session: str) -> list[bytes]:
    assert server.log is not None
    assert await server.log.writer.flushed(10)
    return [entry.data for entry in await server.log.store.read_after(session, 0, limit=100_000)]


async def read_raw_until_ended(ws: Any) -> list[bytes]:
    """Every event message (those with a seq), as the bytes that came, up to ``session.ended``."""
    out: list[bytes] = []
    async with asyncio.timeout(30):
        while True:
            message = await ws.recv(decode=False)
            body = json.loads(message)
            if "seq" in body:
                out.append(message)
            if body["type"] == "session.ended":
                return out


def emit_a_conversation(bus: Any, tokens: int = 2000) -> list[Any]:
    emitted = [bus.emit(TranscriptFinal(text="Good morning.", start=0.0, end=1.0))]
    emitted.append(bus.emit(AssistantStarted(generation=1, trigger="final")))
    emitted += [bus.emit(AssistantDelta(generation=1, text=f" t{i}")) for i in range(tokens)]
    emitted.append(bus.emit(AssistantDone(generation=1, tokens=tokens)))
    return emitted


async def test_the_log_holds_what_viewers_got_in_seq_order(make_server):
    server = await make_server()
    publisher, welcome, live = await publish(server)
    viewer = await open_ws(server)
    assert (await view(viewer, welcome, options={"snapshot": False}))["type"] == "welcome"
    first = emit_a_conversation(live.session.bus)[0]
    await send_json(publisher, {"type": "end"})
    received = await read_raw_until_ended(viewer)
    entries = await logged(server, welcome["session"])
    seqs = [json.loads(data)["seq"] for data in entries]
    assert seqs == sorted(set(seqs))
    since_viewer = [data for data in entries if json.loads(data)["seq"] >= first.seq]
    assert since_viewer == received  # the same bytes, frames merged the same way
    deltas = [json.loads(data) for data in entries if b'"assistant.delta"' in data]
    assert "".join(d["text"] for d in deltas) == "".join(f" t{i}" for i in range(2000))
    assert len(deltas) < 2000  # frames, not one entry per token
    assert server.log is not None and await server.log.sealed(10)
    record = await server.log.record(welcome["session"])
    assert record is not None and record.state == "ended"
    assert record.viewer_key and welcome["viewer_token"] not in record.viewer_key


async def test_an_unreachable_store_is_reported_once_and_the_session_goes_on(make_server, redis_server):
    server = await make_server(redis=redis_server.url)
    publisher, welcome, live = await publish(server)
    viewer = await open_ws(server)
    assert (await view(viewer, welcome, options={"snapshot": False}))["type"] == "welcome"
    assert (await get(server, "/healthz"))[2] == b'{"status":"ok"}\n'
    redis_server.kill()
    bus = live.session.bus
    texts = [f"said {i}" for i in range(5)]
    for i, text in enumerate(texts):
        bus.emit(TranscriptFinal(text=text, start=i, end=i + 0.5))
    seen: list[dict[str, Any]] = []
    async with asyncio.timeout(30):
        while [m.get("text") for m in seen if m["type"] == "transcript.final"] != texts or not any(
            m["type"] == "error" for m in seen
        ):
            seen.append(json.loads(await viewer.recv()))
    errors = [m for m in seen if m["type"] == "error"]
    assert [(e["code"], e["fatal"]) for e in errors] == [("store_unavailable", False)]
    assert redis_server.url not in errors[0]["message"]
    assert (await get(server, "/healthz"))[2] == b'{"status":"degraded"}\n'
    bus.emit(TranscriptFinal(text="still here", start=9.0, end=9.5))
    async with asyncio.timeout(30):
        while (message := json.loads(await viewer.recv()))["type"] != "transcript.final":
            assert message["type"] != "error"  # once per outage
    assert message["text"] == "still here"
