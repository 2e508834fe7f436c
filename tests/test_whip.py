"""WHIP ingest (RFC 9725) on the service's port: a real aiortc WHIP client over HTTP, no websocket for publishing.

The first test streams the start of samples/meeting.wav over real WebRTC on loopback (aioice limited
to 127.0.0.1, the ``loopback_ice`` fixture) and reads the transcript as a viewer; the others are the
HTTP faults a WHIP endpoint must answer clearly while the service keeps running.
"""

from __future__ import annotations

import asyncio
import random
import re
import socket
import wave
from pathlib import Path

import httpx
import pytest
from aiortc import RTCConfiguration, RTCPeerConnection, RTCSessionDescription
from aiortc.contrib.media import MediaPlayer

from streamtwin.service.sdp_rules import offer_problem
from streamtwin.service.server import Server
from tests.live import hello, open_ws, recv_until

SAMPLES = Path(__file__).resolve().parent.parent / "samples"
TOKEN = "whip-s3cret"
AUTH = {"Authorization": f"Bearer {TOKEN}"}
SDP = {"Content-Type": "application/sdp"}
FAST = {"asr_model": "tiny.en", "asr_language": "en", "vision": False}
CLIP_S = 9.3  # Alice's first line, and 0.2 s of the pause after it
CLIP_WORDS = "good morning everyone let's start the weekly planning meeting today we need to discuss the new website and the project costs"


def clip(seconds: float, out: Path) -> Path:
    with wave.open(str(SAMPLES / "meeting.wav")) as source, wave.open(str(out), "wb") as target:
        target.setparams(source.getparams())
        target.writeframes(source.readframes(round(seconds * source.getframerate())))
    return out


def client(server: Server) -> httpx.AsyncClient:
    return httpx.AsyncClient(base_url=f"http://127.0.0.1:{server.port}", trust_env=False, timeout=30)


def viewer_link(response: httpx.Response) -> dict[str, str]:
    """The viewer page from the 201's ``Link: </?session=..&role=viewer&token=..>; rel="alternate"``."""
    for link in response.headers.get_list("link"):
        match = re.fullmatch(r'<(/\?[^>]*)>; rel="alternate"; type="text/html"; title="viewer"', link)
        if match:
            return dict(part.split("=", 1) for part in match.group(1)[2:].split("&"))
    raise AssertionError(f"no viewer link in {response.headers.get_list('link')}")


async def an_offer() -> tuple[RTCPeerConnection, str]:
    """A real offer with a send-only audio track (nothing is sent: the connection never completes)."""
    from aiortc.mediastreams import AudioStreamTrack

    pc = RTCPeerConnection(RTCConfiguration(iceServers=[]))
    pc.addTransceiver(AudioStreamTrack(), direction="sendonly")
    await pc.setLocalDescription(await pc.createOffer())
    return pc, pc.localDescription.sdp


def words(text: str) -> set[str]:
    return set(re.findall(r"[a-z']+", text.lower()))


@pytest.mark.model
@pytest.mark.slow
async def test_a_whip_client_publishes_a_viewer_reads_it_and_delete_ends_the_session(
    make_server, loopback_ice, tmp_path
):
    server = await make_server(token=TOKEN, first_media_timeout_s=60.0, idle_media_timeout_s=60.0, **FAST)
    player = MediaPlayer(str(clip(CLIP_S, tmp_path / "clip.wav")))
    pc = RTCPeerConnection(RTCConfiguration(iceServers=[]))
    pc.addTransceiver(player.audio, direction="sendonly")  # as OBS, GStreamer and FFmpeg offer
    try:
        await pc.setLocalDescription(await pc.createOffer())
        async with client(server) as http:
            created = await http.post("/whip", content=pc.localDescription.sdp, headers={**SDP, **AUTH})
            assert created.status_code == 201, created.text
            assert created.headers["content-type"] == "application/sdp"
            location = created.headers["location"]
            assert re.fullmatch(r"/whip/[A-Za-z0-9_-]{16,}", location)
            assert "a=candidate:" in created.text  # ICE gathered before answering: no trickle needed

            link = viewer_link(created)
            assert link["role"] == "viewer" and location.rsplit("/", 1)[1] != link["session"]
            viewer = await open_ws(server)
            welcome = await hello(viewer, "viewer", session=link["session"], token=link["token"])
            assert welcome["type"] == "welcome", welcome

            live = server.sessions[link["session"]]
            assert live.session.source == "whip"
            emitted = []  # (finals the session emitted, in order), to tell those after DELETE
            live.session.bus.subscribe(lambda e: emitted.append(e) if e.type == "transcript.final" else None)
            await pc.setRemoteDescription(RTCSessionDescription(sdp=created.text, type="answer"))
            async with asyncio.timeout(60):  # the whole clip arrived (then its track ended at the sender)
                while live.ingest is None or live.ingest.position < CLIP_S - 0.3:
                    await asyncio.sleep(0.1)
            await asyncio.sleep(1.0)  # decodes of what arrived catch up
            before_delete = len(emitted)

            deleted = await http.delete(location, headers=AUTH)
            assert deleted.status_code == 200, deleted.text
            ended, seen = await recv_until(viewer, "session.ended", timeout=60)
            assert ended["stats"]["audio_s"] > CLIP_S - 0.5
            # The clip stops 0.2 s after its last word, too soon to hear the utterance end: only the
            # flush on DELETE can commit its tail.
            flushed = emitted[before_delete:]
            assert flushed and flushed[-1].end > CLIP_S - 1.0, [(e.text, e.end, e.utterance_end) for e in emitted]
            assert flushed[-1].utterance_end
            finals = [m["text"] for m in seen if m["type"] == "transcript.final"]
            assert finals[-len(flushed):] == [e.text for e in flushed]  # and the viewer got them
            heard = words(" ".join(finals))
            reference = CLIP_WORDS.split()
            assert len([w for w in reference if w in heard]) >= 0.7 * len(reference), heard
            assert link["session"] not in server.sessions

            again = await http.delete(location, headers=AUTH)
            assert again.status_code == 404 and "no such WHIP resource" in again.text
    finally:
        await pc.close()
        player.audio.stop()


async def test_whip_refusals_are_clear_and_the_service_keeps_running(make_server):
    server = await make_server(token=TOKEN, **FAST)
    async with client(server) as http:
        no_token = await http.post("/whip", content="v=0\r\n", headers=SDP)
        assert no_token.status_code == 401 and no_token.headers["www-authenticate"].startswith("Bearer")
        wrong = await http.post("/whip", content="v=0\r\n", headers={**SDP, "Authorization": "Bearer nope"})
        assert wrong.status_code == 401
        assert TOKEN not in wrong.text

        form = await http.post("/whip", content="v=0\r\n", headers={"Content-Type": "text/plain", **AUTH})
        assert form.status_code == 415 and form.headers["accept-post"] == "application/sdp"

        garbage = await http.post("/whip", content="hello, I am not SDP", headers={**SDP, **AUTH})
        assert garbage.status_code == 400 and "SDP" in garbage.text
        broken = await http.post("/whip", content="v=0\r\nm=audio nonsense\r\n", headers={**SDP, **AUTH})
        assert broken.status_code == 400 and "offer" in broken.text
        assert server.sessions == {}  # the session opened for it ended again

        huge = await http.post("/whip", content="v=0\r\n" + "a=x\r\n" * 20000, headers={**SDP, **AUTH})
        assert huge.status_code == 413

        unknown = await http.delete("/whip/no-such-resource", headers=AUTH)
        assert unknown.status_code == 404 and "no such WHIP resource" in unknown.text
        assert (await http.delete("/whip/no-such-resource")).status_code == 401  # the token comes first

        get = await http.get("/whip", headers=AUTH)
        assert get.status_code == 405 and get.headers["allow"] == "POST, OPTIONS"
        assert (await http.put("/whip", content="v=0", headers={**SDP, **AUTH})).status_code == 405
        assert (await http.post("/whip/abc", content="v=0", headers={**SDP, **AUTH})).status_code == 405
        patch = await http.patch("/whip/abc", content="a=end-of-candidates", headers=AUTH)
        assert patch.status_code == 501

        options = await http.options("/whip", headers={"Origin": f"http://127.0.0.1:{server.port}"})
        assert options.status_code == 200 and options.headers["accept-post"] == "application/sdp"
        assert options.headers["access-control-allow-origin"] == f"http://127.0.0.1:{server.port}"
        assert "Location" in options.headers["access-control-expose-headers"]
        foreign = await http.post("/whip", content="v=0\r\n", headers={**SDP, **AUTH, "Origin": "https://evil.example"})
        assert foreign.status_code == 403 and "access-control-allow-origin" not in foreign.headers
        rebound = await http.post("/whip", content="v=0\r\n", headers={**SDP, **AUTH, "Host": "evil.example"})
        assert rebound.status_code == 403

        # Everything else on the port is as before.
        assert (await http.get("/healthz")).status_code == 200
        assert (await http.get("/")).status_code == 200
    ws = await open_ws(server, f"token={TOKEN}")
    assert (await hello(ws, "publisher"))["type"] == "welcome"
    await ws.close()


async def test_a_full_server_answers_503_and_failed_tokens_lock_the_address_out(make_server, loopback_ice):
    server = await make_server(token=TOKEN, max_sessions=1, auth_failures_per_min=3, **FAST)
    ws = await open_ws(server, f"token={TOKEN}")
    assert (await hello(ws, "publisher"))["type"] == "welcome"  # the one session there is room for
    pc, offer = await an_offer()
    try:
        async with client(server) as http:
            full = await http.post("/whip", content=offer, headers={**SDP, **AUTH})
            assert full.status_code == 503 and full.headers["retry-after"].isdigit()
            for _ in range(3):
                assert (await http.post("/whip", content=offer, headers=SDP)).status_code == 401
            locked = await http.post("/whip", content=offer, headers={**SDP, **AUTH})
            assert locked.status_code == 429
    finally:
        await pc.close()
        await ws.close()


async def test_a_whip_client_that_leaves_before_its_answer_leaves_no_session(make_server, loopback_ice):
    server = await make_server(first_media_timeout_s=120.0, **FAST)
    opened = []
    open_session = server.registry.open
    server.registry.open = lambda *args: opened.append(open_session(*args)) or opened[-1]
    pc, offer = await an_offer()
    try:
        body = offer.encode()
        head = f"POST /whip HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/sdp\r\nContent-Length: {len(body)}"
        with socket.create_connection(("127.0.0.1", server.port)) as sock:
            sock.sendall(head.encode() + b"\r\n\r\n" + body)
        async with asyncio.timeout(20):  # opened, answered, and ended when the answer had no one to go to
            while not opened or server.sessions:
                await asyncio.sleep(0.05)
        assert opened[0].session.source == "whip"
        assert server.whip.resources == {}
    finally:
        await pc.close()


@pytest.mark.parametrize(
    "raw",
    [
        b"POST /whip HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/sdp\r\nContent-Length: 50\r\n\r\nv=0",
        b"POST /whip HTTP/1.1\r\nHost 127.0.0.1\r\n\r\n",
        b"POST /whip HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n"
        b"Content-Type: application/sdp\r\n\r\nzz\r\n",
        b"DELETE /whip/\x00x HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
    ],
    ids=["vanishes-mid-body", "garbled-header", "bad-chunk", "bad-target"],
)
async def test_garbage_and_vanishing_clients_get_a_clear_error_and_the_service_lives(make_server, raw):
    server = await make_server()

    def exchange() -> bytes:
        with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
            sock.sendall(raw)
            sock.shutdown(socket.SHUT_WR)
            reply = b""
            while chunk := sock.recv(4096):
                reply += chunk
            return reply

    reply = await asyncio.to_thread(exchange)
    assert reply.startswith(b"HTTP/1.1 400 ") and b"malformed HTTP request" in reply, reply[:300]
    assert server.sessions == {}
    async with client(server) as http:
        assert (await http.get("/healthz")).status_code == 200


async def test_tokens_stay_out_of_the_log(make_server, caplog):
    server = await make_server(token=TOKEN)
    garbled = f"POST /whip HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization Bearer {TOKEN}\r\n\r\n".encode()

    def send(raw: bytes) -> bytes:
        with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
            sock.sendall(raw)
            return sock.recv(4096)

    caplog.set_level("DEBUG")
    assert (await asyncio.to_thread(send, garbled)).startswith(b"HTTP/1.1 400 ")
    async with client(server) as http:
        wrong = await http.post("/whip", content="v=0\r\n", headers={**SDP, "Authorization": f"Bearer {TOKEN}x"})
        assert wrong.status_code == 401
    assert TOKEN not in caplog.text


async def test_every_damaged_whip_offer_gets_201_or_400_and_leaks_nothing(make_server, loopback_ice, caplog):
    from tests import fuzz

    server = await make_server(**FAST)
    sdp = await fuzz.real_offer()
    rng = random.Random(12)
    statuses: dict[int, int] = {}
    opened: list[str] = []  # an offer that can never bring media opens no session (issue 38)
    open_session = server.registry.open
    server.registry.open = lambda *args: opened.append(args[0]) or open_session(*args)  # type: ignore[method-assign]
    async with client(server) as http:
        for _ in range(48):
            offer = fuzz.mutate_sdp(rng, sdp)
            before = len(opened)
            reply = await http.post("/whip", content=offer.encode(errors="replace"), headers=SDP)
            statuses[reply.status_code] = statuses.get(reply.status_code, 0) + 1
            assert reply.status_code in (201, 400), (reply.status_code, reply.text)
            if offer_problem(offer) is not None:
                assert (reply.status_code, len(opened)) == (400, before), offer
            if reply.status_code == 201:
                assert (await http.delete(reply.headers["location"])).status_code == 200
    assert statuses.get(400, 0) > 10, statuses
    async with asyncio.timeout(30):
        while server.sessions:
            await asyncio.sleep(0.1)
    assert [r.getMessage() for r in caplog.records if r.exc_info or r.levelname in ("ERROR", "CRITICAL")] == []
