"""Faults with real WebRTC on loopback: publishers killed mid-stream, a publisher that resumes.

The speech model is real; every peer is limited to 127.0.0.1 (the publisher process too).
"""

from __future__ import annotations

import asyncio
import json
import statistics
import sys
from pathlib import Path

import pytest
from aiortc import RTCConfiguration, RTCPeerConnection
from aiortc.contrib.media import MediaPlayer

from tests.conftest import WAITS
from tests.live import hello, offer_media, open_ws, recv_until, send_json, view

pytestmark = [pytest.mark.model, pytest.mark.network, WAITS]

ROOT = Path(__file__).resolve().parent.parent
MP4 = ROOT / "samples" / "meeting.mp4"
KILLS = 9  # two warm-up rounds, then seven to compare: a leak shows in every step


@pytest.mark.slow
async def test_publishers_killed_mid_stream_leave_nothing_behind():
    # The server runs in a process of its own (tests.publisher_kills), so the footprint is the server's alone.
    child = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "tests.publisher_kills", str(KILLS), cwd=ROOT,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(child.communicate(), 60 * KILLS)
    assert child.returncode == 0, err.decode()[-3000:]
    samples = [json.loads(line) for line in out.decode().splitlines()]
    assert len(samples) == KILLS, samples
    for sample in samples:
        assert sample["last"] == "session.ended" and sample["audio_s"] >= 2.0, sample
        assert sample["publisher_left"] and sample["sessions_left"] == 0, sample
    first, last = samples[2], samples[-1]  # after two warm-up rounds
    assert last["tasks"] - first["tasks"] <= 2, samples
    assert last["fds"] - first["fds"] <= 4, samples
    assert last["threads"] <= first["threads"], samples
    # What Python and numpy hold (tracemalloc) grows by ~4 kB a kill (each ended session's record, kept for a
    # day) and by 2.9 MB with a 3 MB leak injected; the median step is deaf to a one-off change.
    steps = [b["traced_kb"] - a["traced_kb"] for a, b in zip(samples[2:], samples[3:])]
    assert statistics.median(steps) < 100, [s["traced_kb"] for s in samples]
    # Resident memory swings from kill to kill (+-25 MB now and then, allocator arenas; more on a busy machine, where
    # a CI run saw a median step of 2.7 MB with no leak) and falls once by ~35 MB: it can only catch a big native leak.
    rss = [s["rss_kb"] for s in samples]
    assert statistics.median(rss[-4:]) - statistics.median(rss[2:6]) < 32_000, rss
    print("after each kill:", samples)


async def recv_spoken_final(viewer) -> dict:
    """The next final that has words (an utterance's closing final may be empty)."""
    while True:
        final, _ = await recv_until(viewer, "transcript.final", timeout=60)
        if final["text"].strip():
            return final


async def test_a_publisher_resumes_mid_stream_and_the_session_goes_on(make_server, loopback_ice):
    server = await make_server(resume_grace_s=10.0)
    publisher = await open_ws(server)
    welcome = await hello(publisher, "publisher")
    session_id = welcome["session"]
    viewer = await open_ws(server)
    assert (await view(viewer, welcome))["type"] == "welcome"
    players = [MediaPlayer(str(MP4)), MediaPlayer(str(MP4))]
    connections = []

    async def offer(ws, player) -> None:
        connections.append(RTCPeerConnection(RTCConfiguration(iceServers=[])))
        await offer_media(ws, connections[-1], player)

    try:
        await offer(publisher, players[0])
        first, _ = await recv_until(viewer, "transcript.final", timeout=60)
        publisher.transport.abort()  # the websocket dies; the media keeps flowing
        notice, _ = await recv_until(viewer, "notice")
        assert notice["code"] == "publisher_away"

        back = await open_ws(server)
        resumed = await hello(back, "publisher", session=session_id, resume=welcome["resume_token"])
        assert (resumed["type"], resumed["resumed"], resumed["media"]) == ("welcome", True, True)
        await recv_until(viewer, "notice")  # publisher_back
        second = await recv_spoken_final(viewer)
        assert second["end"] > first["end"]

        # Its media connection dies too: the resumed publisher offers again; media time goes on.
        await connections[0].close()
        await offer(back, players[1])
        # (The old media's closing final is empty and starts where the last words ended: skipped.)
        third = await recv_spoken_final(viewer)
        # Whisper's word boundaries may overlap a little: the policy takes a word starting up to 0.1 s
        # before the committed end as new (agreement._drop_already_committed), and so does this check.
        assert third["start"] >= second["end"] - 0.1
        await send_json(back, {"type": "end"})
        ended, before = await recv_until(viewer, "session.ended", timeout=60)
        assert ended["session"] == session_id
        assert not [m for m in before if m.get("fatal")]
    finally:
        for pc in connections:
            await pc.close()
        for player in players:
            for track in (player.audio, player.video):
                track.stop()
