"""The live server without media: HTTP routes, the /ws protocol, limits, fan-out and slow clients.

Sessions here are real (the speech model loads), but events are emitted on the
session's bus by the test instead of coming from a WebRTC track; test_webrtc.py
sends real media.
"""

from __future__ import annotations

import asyncio
import json
import socket
import urllib.error
import urllib.request

import pytest
from websockets.exceptions import ConnectionClosed, InvalidStatus

from streamtwin.events import (
    AssistantDelta,
    AssistantDone,
    AssistantStarted,
    TranscriptFinal,
    TranscriptPartial,
    VisionObservation,
)
from streamtwin.service.server import Server
from tests.live import hello, open_ws, recv_json, recv_until, send_json, view


def http_get(server: Server, path: str, headers: dict[str, str] | None = None) -> tuple[int, str, bytes]:
    request = urllib.request.Request(f"http://127.0.0.1:{server.port}{path}", headers=headers or {})
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        with opener.open(request, timeout=10) as response:
            return response.status, response.headers.get("Content-Type", ""), response.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.headers.get("Content-Type", ""), exc.read()


async def get(server: Server, path: str) -> tuple[int, str, bytes]:
    return await asyncio.to_thread(http_get, server, path)


async def closed_with(ws) -> tuple[int | None, str]:
    """Wait for the server to close ``ws``; returns (code, reason)."""
    try:
        async with asyncio.timeout(15):
            while True:
                await ws.recv()
    except ConnectionClosed as closed:
        return (closed.rcvd.code, closed.rcvd.reason) if closed.rcvd else (None, "")


async def publish(server: Server, **fields):
    """A publisher connection without media; returns (ws, welcome, live session)."""
    ws = await open_ws(server)
    welcome = await hello(ws, "publisher", **fields)
    assert welcome["type"] == "welcome", welcome
    return ws, welcome, server.sessions[welcome["session"]]


async def test_http_routes(make_server):
    server = await make_server()
    status, kind, body = await get(server, "/healthz")
    assert (status, json.loads(body)) == (200, {"status": "ok"})
    status, kind, body = await get(server, "/")
    assert status == 200 and kind.startswith("text/html") and b"<script type=\"module\"" in body
    status, kind, _ = await get(server, "/app.js")
    assert status == 200 and kind.startswith("text/javascript")
    assert (await get(server, "/style.css"))[1].startswith("text/css")
    for path in ("/nope.html", "/../streamtwin/service/server.py", "/%2e%2e/streamtwin/service/server.py", "/..%2fREADME.md", "/%00"):
        assert (await get(server, path))[0] == 404, path
    status, _, body = await get(server, "/ws")
    assert status == 426 and b"websocket" in body


async def test_metrics_are_prometheus_text(make_server):
    server = await make_server()
    ws, _, live = await publish(server)
    live.session.bus.emit(TranscriptFinal(text="hello", start=0.0, end=0.5))
    status, kind, body = await get(server, "/metrics")
    assert status == 200 and kind.startswith("text/plain; version=0.0.4")
    text = body.decode()
    assert "# TYPE streamtwin_sessions gauge\nstreamtwin_sessions 1.0\n" in text
    assert "process_resident_memory_bytes " in text
    assert 'streamtwin_clients{role="publisher"} 1' in text
    assert 'streamtwin_events_total{type="transcript.final"} 1' in text
    assert "# TYPE streamtwin_asr_commit_latency_seconds histogram" in text
    assert 'streamtwin_llm_ttft_seconds_bucket{le="+Inf"} 0' in text
    await ws.close()


async def test_malformed_and_unknown_messages_get_errors_and_the_connection_lives(make_server):
    server = await make_server()
    ws = await open_ws(server)
    for raw, code in [
        ("this is not json", "bad_json"),
        ("[]", "bad_message"),
        (b"\x89PNG", "bad_message"),
        ('{"type": "dance"}', "unknown_type"),
        ('{"type": "offer", "sdp": "v=0"}', "hello_required"),
        ('{"type": "hello", "role": "king"}', "bad_hello"),
        ('{"type": "hello", "role": "publisher", "session": "../etc"}', "bad_hello"),
    ]:
        await ws.send(raw)
        error = await recv_json(ws)
        assert (error["type"], error["code"], error["fatal"]) == ("error", code, False), raw
        assert error["message"]
    welcome = await hello(ws, "publisher")
    session_id, viewer_token = welcome["session"], welcome["viewer_token"]
    assert welcome["type"] == "welcome" and len(session_id) >= 22  # unguessable
    assert welcome["viewer_url"] == f"/?session={session_id}&role=viewer&token={viewer_token}"
    await send_json(ws, {"type": "hello", "role": "viewer"})
    assert (await recv_until(ws, "error"))[0]["code"] == "already_joined"
    # A viewer may not act as the publisher.
    viewer = await open_ws(server)
    assert (await hello(viewer, "viewer", session=session_id, token=viewer_token))["type"] == "welcome"
    await send_json(viewer, {"type": "end"})
    assert (await recv_until(viewer, "error"))[0]["code"] == "not_publisher"
    await ws.close()
    await viewer.close()


async def test_a_bad_sdp_is_refused_and_the_publisher_may_try_again(make_server):
    server = await make_server()
    ws, welcome, live = await publish(server)
    for sdp, code in [("definitely not SDP", "bad_sdp"), ("", "bad_message"), (42, "bad_message")]:
        await send_json(ws, {"type": "offer", "sdp": sdp})
        error, _ = await recv_until(ws, "error")
        assert (error["code"], error["fatal"]) == (code, False), sdp
    assert live.ingest is None
    await send_json(ws, {"type": "end"})
    ended, _ = await recv_until(ws, "session.ended")
    assert ended["v"] == 1 and ended["session"] == welcome["session"]
    assert await closed_with(ws) == (1000, "session ended")
    assert server.sessions == {}


async def test_unknown_session_and_limits_are_clear_refusals(make_server):
    server = await make_server(max_sessions=1, max_viewers=1)
    viewer = await open_ws(server)
    error = await hello(viewer, "viewer", session="nope")
    assert (error["code"], error["fatal"]) == ("no_such_session", True)
    assert (await closed_with(viewer))[0] == 1008

    ws, welcome, _ = await publish(server)
    second = await open_ws(server)
    error = await hello(second, "publisher")
    assert (error["code"], error["fatal"]) == ("busy", True)
    assert (await closed_with(second))[0] == 1013

    first_viewer = await open_ws(server)
    assert (await view(first_viewer, welcome))["type"] == "welcome"
    extra_viewer = await open_ws(server)
    error = await view(extra_viewer, welcome)
    assert error["code"] == "too_many_viewers"
    assert (await closed_with(extra_viewer))[0] == 1013
    await ws.close()
    await first_viewer.close()


async def test_an_oversized_message_closes_that_connection_only(make_server):
    server = await make_server(max_message_bytes=4096)
    ws, _, _ = await publish(server)
    bystander = await open_ws(server)
    await ws.send(json.dumps({"type": "offer", "sdp": "x" * 10_000}))
    code, reason = await closed_with(ws)
    assert code == 1009 and "4096" in reason
    assert (await hello(bystander, "publisher"))["type"] == "welcome"
    await bystander.close()


async def test_token_from_the_query_or_the_hello(make_server):
    server = await make_server(token="s3cret")
    for query, fields in [("", {}), ("token=wrong", {}), ("", {"token": "nope"})]:
        ws = await open_ws(server, query)
        error = await hello(ws, "publisher", **fields)
        assert (error["type"], error["code"], error["fatal"]) == ("error", "unauthorized", True)
        assert (await closed_with(ws))[0] == 1008
    ws = await open_ws(server, "token=s3cret")
    assert (await hello(ws, "publisher"))["type"] == "welcome"
    other = await open_ws(server)
    assert (await hello(other, "publisher", token="s3cret"))["type"] == "welcome"
    await ws.close()
    await other.close()


async def test_same_origin_by_default_and_allow_origin_widens_it(make_server):
    server = await make_server()
    for origin in ("https://evil.example", f"http://127.0.0.1:{server.port + 1}"):
        with pytest.raises(InvalidStatus) as refused:
            await open_ws(server, origin=origin)
        assert refused.value.response.status_code == 403, origin
    for origin in (f"http://127.0.0.1:{server.port}", f"http://localhost:{server.port}", None):  # None: not a browser
        ws = await open_ws(server, origin=origin)
        assert (await hello(ws, "publisher"))["type"] == "welcome"
        await ws.close()
    widened = await make_server(allow_origin=["https://good.example"])
    ws = await open_ws(widened, origin="https://good.example")
    assert (await hello(ws, "publisher"))["type"] == "welcome"
    await ws.close()


async def test_two_viewers_and_a_late_viewer_gets_the_snapshot_first(make_server):
    server = await make_server()
    publisher, welcome, live = await publish(server)
    session_id = welcome["session"]
    await recv_until(publisher, "session.started")
    early = await open_ws(server)
    assert (await view(early, welcome))["type"] == "welcome"

    bus = live.session.bus
    emitted = [
        bus.emit(VisionObservation(kind="keyframe", score=1.0, thumbnail="AAAA", media_time=0.1)),
        bus.emit(TranscriptFinal(text="Good morning, everyone.", start=0.5, end=1.9, media_time=2.0)),
        bus.emit(TranscriptFinal(text="Let's start.", start=2.0, end=2.8, media_time=3.0)),
        bus.emit(TranscriptPartial(text="Today we", start=3.0, media_time=3.5)),
    ]
    for ws in (early, publisher):
        received = [await recv_json(ws) for _ in emitted]
        assert received == [event.to_dict() for event in emitted]

    late = await open_ws(server)
    welcome_late = await view(late, welcome)
    assert welcome_late == {
        "type": "welcome", "session": session_id, "role": "viewer", "options": {"snapshot": True},
        "resume_from": emitted[-1].seq,  # the seq the snapshot is as of: where this viewer would resume
    }
    snapshot = [await recv_json(late) for _ in emitted]
    assert snapshot == [event.to_dict() for event in emitted]  # last frame, finals, current partial

    live_event = bus.emit(TranscriptFinal(text="Today we need a plan.", start=3.0, end=4.0, media_time=4.2))
    for ws in (early, late, publisher):
        assert await recv_json(ws) == live_event.to_dict()

    await send_json(publisher, {"type": "end"})
    for ws in (early, late, publisher):
        ended, _ = await recv_until(ws, "session.ended")
        assert ended["session"] == session_id
        assert await closed_with(ws) == (1000, "session ended")


async def test_deltas_are_coalesced_and_a_slow_viewer_stalls_no_one(make_server):
    server = await make_server()
    publisher, welcome, live = await publish(server)
    session_id = welcome["session"]
    fast = await open_ws(server)
    assert (await view(fast, welcome))["type"] == "welcome"
    # A viewer that stops reading: its client library buffers one message, then TCP backs up.
    slow = await open_ws(server, max_queue=1)
    assert (await view(slow, welcome))["type"] == "welcome"
    slow.transport.pause_reading()

    async def read_until_done(ws):
        return await recv_until(ws, "assistant.done", timeout=60)

    fast_reader = asyncio.ensure_future(read_until_done(fast))
    publisher_reader = asyncio.ensure_future(read_until_done(publisher))
    bus = live.session.bus
    bus.emit(AssistantStarted(generation=1, trigger="final"))
    # ~2 MB in bursts: more than a reader that stopped can buffer, easy for one that reads.
    tokens = [f" t{i}".ljust(20, ".") for i in range(100_000)]
    for start in range(0, len(tokens), 200):
        for token in tokens[start:start + 200]:
            bus.emit(AssistantDelta(generation=1, text=token))
        await asyncio.sleep(0.001)
    bus.emit(AssistantDone(generation=1, tokens=len(tokens)))
    expected = "".join(tokens)

    done, before = await fast_reader
    frames = [m for m in before if m["type"] == "assistant.delta"]
    assert "".join(f["text"] for f in frames) == expected  # nothing lost for a reader that keeps up
    assert len(frames) < len(tokens) / 20  # merged into frames, not one message per token
    assert all(f["generation"] == 1 and f["session"] == session_id and f["v"] == 1 for f in frames)
    assert done["tokens"] == len(tokens)
    await publisher_reader

    # The slow viewer is still connected; the session and the fast viewer went on without it.
    final = bus.emit(TranscriptFinal(text="still live", start=9.0, end=9.5))
    assert await recv_json(fast) == final.to_dict()

    # When it reads again it gets a notice for what was dropped and the text that was kept.
    slow.transport.resume_reading()
    done, before = await recv_until(slow, "assistant.done")
    notices = [m for m in before if m["type"] == "notice"]
    kept = "".join(m["text"] for m in before if m["type"] == "assistant.delta")
    dropped = sum(n["dropped_chars"] for n in notices)
    assert notices and notices[0]["code"] == "deltas_dropped" and dropped > 0
    assert len(kept) + dropped == len(expected)
    assert expected.endswith(kept[-1000:])
    assert (await recv_json(slow))["text"] == "still live"
    await slow.close()
    await fast.close()
    await publisher.close()


async def test_a_hopelessly_slow_viewer_is_dropped_with_a_reason(make_server):
    server = await make_server()
    publisher, welcome, live = await publish(server)
    fast = await open_ws(server)
    assert (await view(fast, welcome))["type"] == "welcome"
    slow = await open_ws(server, max_queue=1)
    assert (await view(slow, welcome))["type"] == "welcome"
    slow.transport.pause_reading()

    async def read_finals(ws, count):
        received = 0
        while received < count:
            received += (await recv_json(ws, timeout=60))["type"] == "transcript.final"

    # 10 kB finals, 10 MB in all: past the socket buffers and the outbox's 8 MB bound.
    count = 1000
    fast_reader = asyncio.ensure_future(read_finals(fast, count))
    publisher_reader = asyncio.ensure_future(read_finals(publisher, count))
    text = "word " * 2000
    for i in range(count):
        live.session.bus.emit(TranscriptFinal(text=text, start=i, end=i + 1))
        if i % 5 == 0:
            await asyncio.sleep(0.001)
    await fast_reader
    await publisher_reader
    assert server.metrics.sample("streamtwin_clients_dropped_total") == 1
    assert len(live.viewers) == 1

    slow.transport.resume_reading()
    code, reason = await closed_with(slow)
    assert code == 1013 and reason.startswith("too slow")
    await fast.close()
    await publisher.close()


async def test_a_vanished_publisher_has_the_grace_period_then_its_session_ends(make_server):
    server = await make_server(resume_grace_s=0.5)
    publisher, welcome, _ = await publish(server)
    viewer = await open_ws(server)
    assert (await view(viewer, welcome))["type"] == "welcome"
    publisher.transport.abort()  # vanishes: no close frame
    notice, _ = await recv_until(viewer, "notice")
    assert notice["code"] == "publisher_away"
    error, _ = await recv_until(viewer, "error")
    assert (error["code"], error["fatal"], error["v"]) == ("publisher_left", True, 1)
    await recv_until(viewer, "session.ended")
    assert await closed_with(viewer) == (1000, "session ended")
    assert server.sessions == {}
    other, _, _ = await publish(server)  # the server keeps serving
    await other.close()


async def test_a_publisher_that_closes_its_connection_ends_the_session_at_once(make_server):
    server = await make_server()
    publisher, welcome, _ = await publish(server)
    viewer = await open_ws(server)
    assert (await view(viewer, welcome))["type"] == "welcome"
    await publisher.close()
    error, _ = await recv_until(viewer, "error")
    assert error["code"] == "publisher_left"
    await recv_until(viewer, "session.ended")
    assert server.sessions == {}


async def test_messages_leave_at_once_rather_than_waiting_for_the_clients_ack(make_server):
    server = await make_server()
    publisher, welcome, live = await publish(server)
    sock = live.publisher.ws.transport.get_extra_info("socket")
    assert sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) == 1  # no Nagle delay on small frames
    await publisher.close()


async def test_a_client_that_never_says_hello_is_closed(make_server):
    server = await make_server(hello_timeout_s=0.3)
    ws = await open_ws(server)
    await ws.send("{}")  # anything but a hello does not count
    assert (await recv_json(ws))["code"] == "bad_message"
    error = await recv_json(ws)
    assert (error["code"], error["fatal"]) == ("hello_timeout", True)
    assert await closed_with(ws) == (1008, "no hello")
