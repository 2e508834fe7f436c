"""An LLM endpoint that stalls, errors and returns garbage during a live WebRTC session.

The endpoint is a real loopback HTTP server speaking the OpenAI wire format (tests/fakes/openai_server.py),
scripted to misbehave on its first calls; the publisher streams the sample over real WebRTC and the
speech model is real.  Transcription must go on, viewers get clear non-fatal ``error`` events, nothing
transcribed is lost and the service keeps taking new sessions.
"""

from __future__ import annotations

import asyncio
import urllib.request

import pytest
from aiortc import RTCConfiguration, RTCPeerConnection
from aiortc.contrib.media import MediaPlayer

from streamtwin.llm.openai_backend import OpenAIBackend
from streamtwin.service.server import make_session_factory
from tests.conftest import WAITS
from tests.fakes.openai_server import FakeLLMServer, Reply
from tests.live import hello, offer_media, open_ws, recv_until, send_json, view
from tests.test_faults import MP4

# Said in samples/meeting.mp4 (see samples/meeting_mp4.txt).
SPOKEN = ("morning", "planning", "website", "costs", "search", "slow", "server")
# A stall is cut off by the client's read timeout; the test's is short so the session sees it.
STALL_TIMEOUT_S = 2.0


@pytest.mark.model
@pytest.mark.slow
@WAITS
async def test_a_misbehaving_llm_endpoint_never_stops_the_live_transcript(make_server, loopback_ice):
    faults = [Reply(stall=True), Reply(error_after=2), Reply(garbage_after=1), Reply(status=500)]
    async with FakeLLMServer(reply=Reply("Noted."), json_reply=Reply("{ this is not the twin")) as llm:
        llm.script(*faults)
        backend = OpenAIBackend(llm.url, "fake-model", "sk-test", timeout_s=STALL_TIMEOUT_S)
        server = await make_server(session_factory=make_session_factory(backend), llm_heartbeat_s=4.0)
        publisher = await open_ws(server)
        welcome = await hello(publisher, "publisher")
        viewer = await open_ws(server)
        assert (await view(viewer, welcome))["type"] == "welcome"
        player = MediaPlayer(str(MP4))
        pc = RTCPeerConnection(RTCConfiguration(iceServers=[]))
        try:
            await offer_media(publisher, pc, player)
            reading = asyncio.ensure_future(drain(publisher))
            live = server.sessions[welcome["session"]]
            watching = asyncio.ensure_future(recv_until(viewer, "session.ended", timeout=240))
            async with asyncio.timeout(180):
                while live.ingest is None or live.ingest.position < 20.0:  # the sample is 20.6 s
                    await asyncio.sleep(0.2)
            await send_json(publisher, {"type": "end"})
            ended, seen = await watching
            await reading
        finally:
            await pc.close()
            for track in (player.audio, player.video):
                track.stop()

        assert len(llm.requests) > len(faults), "the endpoint was not asked again after its faults"
        errors = [m for m in seen if m["type"] == "error"]
        print("errors seen by the viewer:", [(e["code"], e["message"][:60]) for e in errors])
        assert errors and not [e for e in errors if e["fatal"]], errors
        # Clear codes: the call's fault, or the twin update that got no valid JSON.
        assert {e["code"] for e in errors} <= {"llm_timeout", "llm_stream_broken", "llm_server", "twin_invalid"}, errors
        assert {"llm_timeout", "llm_stream_broken", "llm_server"} <= {e["code"] for e in errors}
        # Transcription went on after the endpoint first failed, and every spoken part arrived.
        first_error = seen.index(errors[0])
        finals = [m for m in seen if m["type"] == "transcript.final" and m["text"].strip()]
        assert [m for m in seen[first_error:] if m["type"] == "transcript.final" and m["text"].strip()]
        text = " ".join(f["text"] for f in finals).lower()
        heard = [word for word in SPOKEN if word in text]
        assert len(heard) >= 5, text
        assert ended["type"] == "session.ended"
        # The garbage never became the twin: what the rules found did.
        assert all(m["why"]["origins"] == ["rules"] for m in seen if m["type"] == "twin.patch")
        # Once the endpoint recovered, answers came through.
        assert [m for m in seen if m["type"] == "assistant.done" and not m["cancelled"] and m["tokens"]]

        # The service is still up for everyone else.
        status = await asyncio.to_thread(lambda: urllib.request.urlopen(f"http://127.0.0.1:{server.port}/healthz", timeout=5).status)
        assert status == 200
        again = await open_ws(server)
        assert (await hello(again, "publisher"))["type"] == "welcome"
        await again.close()
        await backend.aclose()


async def drain(ws) -> None:
    """A publisher reads what it is sent (one that never reads is dropped as too slow)."""
    async for _ in ws:
        pass
