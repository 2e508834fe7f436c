"""Issue 11's findings, one test each, through the wire only (so each also runs against eeb9b39 and fails there).

Sessions are real but get no media; WebRTC faults live in test_faults.py.
"""

from __future__ import annotations

import asyncio
import json

from tests.live import hello, open_ws, recv_json, recv_until, send_json

REPLY_TIMEOUT_S = 5.0


async def test_deep_json_and_huge_numbers_get_an_error_and_the_connection_lives(make_server):
    server = await make_server()
    ws = await open_ws(server)
    for raw in ("[" * 1000 + "]" * 1000, '{"type": "hello", "n": ' + "9" * 4400 + "}"):
        await ws.send(raw)
        error = await recv_json(ws, REPLY_TIMEOUT_S)  # eeb9b39: no reply, the handler died silently
        assert (error["type"], error["code"], error["fatal"]) == ("error", "bad_json", False)
    assert (await hello(ws, "publisher"))["type"] == "welcome"
    await ws.close()


async def test_a_lone_surrogate_is_refused_not_a_dropped_connection(make_server):
    server = await make_server()
    ws = await open_ws(server)
    await ws.send('{"type": "hello", "role": "publisher", "options": {"source": "cam\\ud800"}}')
    error = await recv_json(ws, REPLY_TIMEOUT_S)
    assert (error["code"], error["fatal"]) == ("bad_message", False)
    assert (await hello(ws, "publisher"))["type"] == "welcome"
    await ws.close()


async def test_a_session_id_with_a_trailing_newline_is_refused(make_server):
    server = await make_server()
    ws = await open_ws(server)
    reply = await hello(ws, "publisher", session="abc\n")
    assert (reply["type"], reply["code"]) == ("error", "bad_hello")
    await ws.close()


async def test_shutdown_is_bounded_after_a_poisoned_connection(make_server):
    server = await make_server()
    poisoned = await open_ws(server)
    await poisoned.send("[" * 1000 + "]" * 1000)
    await asyncio.sleep(0.3)
    await asyncio.wait_for(server.close(), 10)  # eeb9b39: waits on the dead handler for good
    await poisoned.close()


async def first_reply(ws) -> dict:
    """The next protocol message (events such as session.started on the way are skipped)."""
    while "v" in (reply := await recv_json(ws, REPLY_TIMEOUT_S)):
        pass
    return reply


async def test_an_offer_without_a_fingerprint_is_refused(make_server, loopback_ice):
    from tests.fuzz import real_offer

    server = await make_server()
    ws = await open_ws(server)
    await hello(ws, "publisher")
    sdp = "".join(line for line in (await real_offer()).splitlines(True) if not line.startswith("a=fingerprint"))
    await send_json(ws, {"type": "offer", "sdp": sdp})
    reply = await first_reply(ws)
    assert (reply["type"], reply.get("code")) == ("error", "bad_sdp")  # eeb9b39: answered it, then failed in a task
    await ws.close()


async def test_a_refused_offer_does_not_echo_internals(make_server):
    server = await make_server()
    ws = await open_ws(server)
    await hello(ws, "publisher")
    sdp = "v=0\r\nm=audio 9 UDP/TLS/RTP/SAVPF 111\r\na=fingerprint:sha-256 AB\r\na=ice-ufrag:u\r\na=ice-pwd:p\r\n"
    sdp += "a=group:BUNDLE [x\r\n"  # past the checks before aiortc: aiortc's own error stays in the log
    await send_json(ws, {"type": "offer", "sdp": sdp})
    reply = await first_reply(ws)
    assert (reply["type"], reply["code"]) == ("error", "bad_sdp")
    assert ":" not in reply["message"], reply["message"]  # eeb9b39: "cannot parse the offer: <exception text>"
    await ws.close()


def raw_http(port: int, request: bytes) -> bytes:
    """Send bytes as they are (no client library tidies them up); returns the whole reply."""
    import socket

    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(request)
        chunks = []
        while chunk := sock.recv(65536):
            chunks.append(chunk)
    return b"".join(chunks)


def status_of(reply: bytes) -> int:
    return int(reply.split(b" ", 2)[1])


def upgrade(path: str, host: str, *extra: str) -> bytes:
    lines = [f"GET {path} HTTP/1.1", f"Host: {host}", "Upgrade: websocket", "Connection: Upgrade",
             "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==", "Sec-WebSocket-Version: 13", *extra]
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


async def test_odd_requests_are_4xx_and_leave_no_traceback(make_server, caplog):
    server = await make_server()
    host = f"127.0.0.1:{server.port}"
    odd = [
        f"GET //[x HTTP/1.1\r\nHost: {host}\r\n\r\n".encode(),
        upgrade("/ws", host, "Origin: http://a.example", "Origin: http://b.example"),
        f"GET /%2e%2e/%2e%2e/etc/passwd HTTP/1.1\r\nHost: {host}\r\n\r\n".encode(),
    ]
    for request in odd:
        reply = await asyncio.to_thread(raw_http, server.port, request)
        assert 400 <= status_of(reply) < 500, (request, reply[:200])
    assert not [r for r in caplog.records if r.levelname in ("ERROR", "CRITICAL") or r.exc_info]


async def test_a_foreign_host_name_is_refused_even_with_a_matching_origin(make_server):
    """DNS rebinding: evil.example resolves to 127.0.0.1; its page's Origin matches its Host."""
    server = await make_server()
    evil = f"evil.example:{server.port}"
    reply = await asyncio.to_thread(raw_http, server.port, upgrade("/ws", evil, f"Origin: http://{evil}"))
    assert status_of(reply) == 403
    reply = await asyncio.to_thread(raw_http, server.port, f"GET / HTTP/1.1\r\nHost: {evil}\r\n\r\n".encode())
    assert status_of(reply) == 403


async def test_a_foreign_origin_is_refused_by_default(make_server):
    server = await make_server()
    reply = await asyncio.to_thread(
        raw_http, server.port, upgrade("/ws", f"127.0.0.1:{server.port}", "Origin: https://evil.example")
    )
    assert status_of(reply) == 403


async def test_a_viewer_link_watches_its_session_and_nothing_else(make_server):
    server = await make_server(token="s3cret", max_sessions=4)
    first = await open_ws(server, "token=s3cret")
    welcome = await hello(first, "publisher")
    second = await open_ws(server, "token=s3cret")
    other = await hello(second, "publisher")
    assert "s3cret" not in json.dumps(welcome)  # the viewer link does not carry the access token
    viewer_token = welcome["viewer_token"]
    assert f"token={viewer_token}" in welcome["viewer_url"]
    ws = await open_ws(server)
    assert (await hello(ws, "viewer", session=welcome["session"], token=viewer_token))["type"] == "welcome"
    for role, session in (("viewer", other["session"]), ("publisher", None)):
        ws = await open_ws(server)
        fields = {"session": session} if session else {}
        reply = await hello(ws, role, token=viewer_token, **fields)
        assert (reply["type"], reply["code"]) == ("error", "unauthorized"), role
    await first.close()
    await second.close()


async def test_without_a_viewer_token_a_session_id_is_not_enough(make_server):
    server = await make_server()
    ws = await open_ws(server)
    welcome = await hello(ws, "publisher")
    viewer = await open_ws(server)
    reply = await hello(viewer, "viewer", session=welcome["session"])
    assert (reply["type"], reply["code"]) == ("error", "unauthorized")
    await ws.close()


async def test_publishers_cannot_choose_guessable_session_ids(make_server):
    server = await make_server()
    ws = await open_ws(server)
    reply = await hello(ws, "publisher", session="room-1")
    assert reply["type"] == "error" and "room-1" not in server.sessions
    ws = await open_ws(server)
    welcome = await hello(ws, "publisher")
    assert len(welcome["session"]) >= 22
    await ws.close()


async def test_credentials_in_a_source_label_are_neither_logged_nor_broadcast(make_server, caplog):
    server = await make_server()
    ws = await open_ws(server)
    welcome = await hello(ws, "publisher", options={"source": "rtsp://admin:hunter2@cam.local/live?token=abc"})
    assert welcome["type"] == "welcome"
    started = await recv_json(ws)
    assert started["type"] == "session.started"
    for text in (json.dumps(welcome), json.dumps(started), caplog.text):
        assert "hunter2" not in text and "token=abc" not in text
    assert started["source"].startswith("rtsp://cam.local/live")
    await ws.close()


async def test_turn_secrets_stay_on_the_server_and_minted_credentials_expire(make_server):
    import base64
    import hashlib
    import hmac
    import time

    server = await make_server(ice_servers=["stun:stun.example:3478", "turn:user:hunter2@turn.example:3478"])
    ws = await open_ws(server)
    welcome = await hello(ws, "publisher")
    assert "hunter2" not in json.dumps(welcome)
    assert {"urls": "stun:stun.example:3478"} in welcome["ice_servers"]
    await ws.close()
    minted = await make_server(ice_servers=["turn:turn.example:3478"], turn_secret="shared", turn_ttl_s=600)
    ws = await open_ws(minted)
    welcome = await hello(ws, "publisher")
    [turn] = welcome["ice_servers"]
    expiry, _, user = turn["username"].partition(":")
    assert 0 < int(expiry) - time.time() <= 600 and user == welcome["session"]
    expected = base64.b64encode(hmac.new(b"shared", turn["username"].encode(), hashlib.sha1).digest()).decode()
    assert turn["credential"] == expected
    await ws.close()


async def test_a_publisher_that_never_offers_frees_its_slot(make_server):
    server = await make_server(max_sessions=1, offer_timeout_s=0.5)
    ws = await open_ws(server)
    await hello(ws, "publisher")
    error, _ = await recv_until(ws, "error", timeout=10)
    assert error["code"] == "offer_timeout"
    await recv_until(ws, "session.ended", timeout=10)
    newcomer = await open_ws(server)
    assert (await hello(newcomer, "publisher"))["type"] == "welcome"
    await newcomer.close()


async def test_connections_per_address_are_capped(make_server):
    from websockets.exceptions import InvalidStatus

    server = await make_server()
    cap = 32  # Config.max_connections_per_address
    held = [await open_ws(server) for _ in range(cap)]
    try:
        await open_ws(server)
        raise AssertionError(f"connection {cap + 1} from one address was accepted")
    except InvalidStatus as refused:
        assert refused.response.status_code == 429
    await held.pop().close()
    await asyncio.sleep(0.2)
    held.append(await open_ws(server))  # a slot came free
    for ws in held:
        await ws.close()


async def test_wrong_tokens_lock_the_address_out(make_server):
    server = await make_server(token="s3cret")
    for _ in range(10):  # the default: 10 a minute
        ws = await open_ws(server)
        assert (await hello(ws, "publisher", token="guess"))["code"] == "unauthorized"
    ws = await open_ws(server)  # even the right access token is refused for a while (session tokens are not)
    assert (await hello(ws, "publisher", token="s3cret"))["code"] == "rate_limited"


def test_the_default_limits_suit_two_cores():
    from streamtwin.config import Config

    config = Config()
    assert config.max_sessions <= 2 and config.max_message_bytes <= 256 * 1024
    assert config.host == "127.0.0.1" and config.allow_origin == []


async def test_a_public_bind_without_a_token_refuses_to_start():
    from dataclasses import replace

    from streamtwin.config import Config
    from streamtwin.service.server import ConfigError, Server

    try:
        server = Server(replace(Config(llm="none"), host="0.0.0.0", port=0))  # checked before anything is opened
    except ConfigError as exc:
        assert "token" in str(exc)
    else:
        await server.close()
        raise AssertionError("a server for 0.0.0.0 without a token was made")


async def test_a_publisher_resumes_its_session_within_the_grace_period(make_server):
    from streamtwin.events import TranscriptFinal

    server = await make_server(resume_grace_s=10)
    publisher = await open_ws(server)
    welcome = await hello(publisher, "publisher")
    live = server.sessions[welcome["session"]]
    viewer = await open_ws(server)
    assert (await hello(viewer, "viewer", session=welcome["session"], token=welcome["viewer_token"]))["type"] == "welcome"
    before = live.session.bus.emit(TranscriptFinal(text="before the blip", start=0.0, end=1.0))
    publisher.transport.abort()  # the network blinks: no close frame
    notice, _ = await recv_until(viewer, "notice")
    assert notice["code"] == "publisher_away"

    intruder = await open_ws(server)
    reply = await hello(intruder, "publisher", session=welcome["session"], resume="not-the-token")
    assert (reply["type"], reply["code"]) == ("error", "unauthorized")

    back = await open_ws(server)
    resumed = await hello(back, "publisher", session=welcome["session"], resume=welcome["resume_token"])
    assert (resumed["type"], resumed["session"], resumed["resumed"]) == ("welcome", welcome["session"], True)
    assert await recv_json(back) == before.to_dict()  # the snapshot: the same transcript
    notice, _ = await recv_until(viewer, "notice")
    assert notice["code"] == "publisher_back"
    assert server.sessions[welcome["session"]] is live
    after = live.session.bus.emit(TranscriptFinal(text="after the blip", start=2.0, end=3.0))
    for ws in (back, viewer):
        received, _ = await recv_until(ws, "transcript.final")
        assert received == after.to_dict()
    await send_json(back, {"type": "end"})
    ended, _ = await recv_until(viewer, "session.ended")
    assert ended["session"] == welcome["session"]


async def test_publisher_away_and_back_reach_viewers_fed_from_the_log_with_a_seq(make_server):
    """A viewer that resumed (or watches from another node) reads the session's log: the notices are in it."""
    server = await make_server(resume_grace_s=10)
    publisher = await open_ws(server)
    welcome = await hello(publisher, "publisher")
    viewer = await open_ws(server)
    reply = await hello(viewer, "viewer", session=welcome["session"], token=welcome["viewer_token"], resume_from=0)
    assert reply["type"] == "welcome"
    publisher.transport.abort()
    away, _ = await recv_until(viewer, "notice")
    assert away["code"] == "publisher_away" and away["seq"] > 0
    back = await open_ws(server)
    await hello(back, "publisher", session=welcome["session"], resume=welcome["resume_token"])
    returned, _ = await recv_until(viewer, "notice")
    assert returned["code"] == "publisher_back" and returned["seq"] > away["seq"]


class _Bus:
    def __init__(self) -> None:
        self.events: list = []

    def emit(self, event):
        self.events.append(event)
        return event


class _Session:
    """What the ingest needs of a Session: an id, push_audio and a bus."""

    def __init__(self) -> None:
        self.id = "fake"
        self.bus = _Bus()
        self.samples = 0

    async def push_audio(self, samples) -> None:
        self.samples += len(samples)


class _Track:
    """20 ms Opus-like frames (48 kHz stereo s16) at the given RTP timestamps, then the end."""

    kind = "audio"

    def __init__(self, timestamps: list[int]) -> None:
        self.timestamps = list(timestamps)

    async def recv(self):
        import av
        import numpy as np
        from aiortc.mediastreams import MediaStreamError

        if not self.timestamps:
            raise MediaStreamError
        frame = av.AudioFrame.from_ndarray(np.zeros((1, 960 * 2), dtype=np.int16), format="s16", layout="stereo")
        frame.sample_rate = 48000
        frame.pts = self.timestamps.pop(0)
        return frame


async def test_lost_packets_leave_a_gap_in_media_time():
    from streamtwin.service.metrics import ServiceMetrics
    from streamtwin.service.webrtc import WebRTCIngest

    session = _Session()
    ingest = WebRTCIngest(session, [], on_ended=lambda error: None, metrics=ServiceMetrics(lambda: 0, dict))
    start = 123_456
    one_second = [start + i * 960 for i in range(50)]
    after_gap = [start + 48000 * 2 + i * 960 for i in range(50)]  # the second in between was lost
    await ingest._read_audio(_Track(one_second + after_gap))
    await ingest.close()
    heard = session.samples / 16000
    assert 2.95 < heard < 3.05, heard  # eeb9b39: 2.0, the words after the gap stamped a second early
    progress = [e.position for e in session.bus.events]
    assert progress and max(progress) > 2.0
