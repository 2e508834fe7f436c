"""Real WebRTC on loopback: an aiortc publisher streams the sample to the server, viewers read events.

The speech model is the real one; aioice is limited to 127.0.0.1 on both peers
(the ``loopback_ice`` fixture).  The sample plays in real time (20.6 s).
"""

from __future__ import annotations

import asyncio
import base64
import json
import re
from dataclasses import replace
from pathlib import Path

from aiortc import RTCConfiguration, RTCPeerConnection
from aiortc.contrib.media import MediaPlayer

import pytest

from streamtwin.events import from_json
from streamtwin.cli.stream import stream
from streamtwin.service.server import Server
from tests.live import hello, offer_media, open_ws, recv_json, recv_until, send_json, view
from tests.media import decode_jpeg

pytestmark = pytest.mark.model

SAMPLES = Path(__file__).resolve().parent.parent / "samples"
MP4 = SAMPLES / "meeting.mp4"


def words(text: str) -> list[str]:
    return re.findall(r"[a-z']+", text.lower())


def reference_words() -> list[str]:
    lines = (SAMPLES / "meeting_mp4.txt").read_text().splitlines()
    return [w for line in lines if line.strip() for w in words(line.split(":", 1)[1])]


async def watch_first_session(server: Server) -> list[dict]:
    """Join the first session that opens, as a viewer; every message until the server closes."""
    while not server.sessions:
        await asyncio.sleep(0.02)
    ws = await open_ws(server)
    live = next(iter(server.sessions.values()))
    welcome = await hello(ws, "viewer", session=live.id, token=live.viewer_token)
    assert welcome["type"] == "welcome"
    messages = []
    async for raw in ws:
        messages.append(json.loads(raw))
    return messages


@pytest.mark.slow
async def test_stream_command_publishes_the_sample_and_a_viewer_reads_the_transcript(
    make_server, loopback_ice, capsys
):
    server = await make_server()
    viewer = asyncio.ensure_future(watch_first_session(server))
    config = replace(server.config, format="jsonl")
    assert await stream(config, str(MP4), f"ws://127.0.0.1:{server.port}") == 0

    printed = [from_json(line) for line in capsys.readouterr().out.splitlines()]
    assert printed[0].type == "session.started" and printed[-1].type == "session.ended"
    assert printed[-1].stats["audio_s"] > 19.0  # the whole sample arrived

    seen = await asyncio.wait_for(viewer, 30)
    assert seen[-1]["type"] == "session.ended"
    heard = set(words(" ".join(m["text"] for m in seen if m["type"] == "transcript.final")))
    reference = reference_words()
    found = [w for w in reference if w in heard]
    assert len(found) >= 0.8 * len(reference), sorted(set(reference) - heard)
    # The viewer got the publisher's events: same finals, in the same order.
    finals = [e.text for e in printed if e.type == "transcript.final"]
    assert [m["text"] for m in seen if m["type"] == "transcript.final"][-3:] == finals[-3:]

    observations = [m for m in seen if m["type"] == "vision.observation"]
    assert any(o["kind"] == "scene_change" for o in observations)
    frame = decode_jpeg(base64.b64decode(observations[-1]["thumbnail"]))
    assert (frame.width, frame.height) == (observations[-1]["width"], observations[-1]["height"])

    assert server.sessions == {}
    metrics = server.metrics.render()
    assert re.search(r'streamtwin_frames_total\{kind="audio"\} [1-9]\d{2,}', metrics)
    assert re.search(r"streamtwin_asr_commit_latency_seconds_count [1-9]", metrics)


async def test_a_publisher_that_vanishes_mid_stream_ends_its_session_only(make_server, loopback_ice):
    server = await make_server(resume_grace_s=1.0)
    # Another session, without media, must not notice.
    bystander = await open_ws(server)
    bystander_welcome = await hello(bystander, "publisher")

    publisher = await open_ws(server)
    welcome = await hello(publisher, "publisher")
    session_id = welcome["session"]
    viewer = await open_ws(server)
    assert (await view(viewer, welcome))["type"] == "welcome"

    player = MediaPlayer(str(MP4))
    pc = RTCPeerConnection(RTCConfiguration(iceServers=[]))
    try:
        await offer_media(publisher, pc, player)
        ingest = server.sessions[session_id].ingest

        while (await recv_json(viewer))["type"] != "transcript.final":  # media flows and is heard
            pass
        publisher.transport.abort()  # gone without a word; its peer connection stays open

        error, _ = await recv_until(viewer, "error")
        assert (error["code"], error["fatal"]) == ("publisher_left", True)
        ended, _ = await recv_until(viewer, "session.ended")
        assert ended["stats"]["audio_s"] > 1.0
        assert ingest.pc.connectionState == "closed"
        assert session_id not in server.sessions
    finally:
        await pc.close()
        for track in (player.audio, player.video):
            track.stop()

    # The other session still works, and new ones can start.
    await send_json(bystander, {"type": "end"})
    ended, _ = await recv_until(bystander, "session.ended")
    assert ended["session"] == bystander_welcome["session"]
    newcomer = await open_ws(server)
    assert (await hello(newcomer, "publisher"))["type"] == "welcome"
    await newcomer.close()
