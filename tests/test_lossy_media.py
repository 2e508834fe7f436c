"""Packet loss (and delay, where the kernel has netem) on the media path, in a network namespace of the test's own;
and delay with reordering, emulated in the peers' sending path (below).

The outer run re-executes this test inside ``unshare -n`` (CI runs as root) after shaping loopback with
``tc``: ``netem loss 5% delay 40ms`` where the kernel has ``sch_netem``; otherwise (the 2-core VMs here
have no netem, prio or gact) an htb class whose queue holds nothing, fed by a u32 filter that picks
every RTP packet whose sequence number ends in 0 in hex: 1 in 16, about 6% of the packets, no
delay.  Inside, a publisher streams the sample over real WebRTC; the speech model is real.

The publisher keeps streaming, transcription goes on, media time keeps the lost packets as gaps
(it follows RTP timestamps, so the server's clock stays with the sender's), a lost packet costs only its
own audio (aiortc's audio jitter buffer lost 31% of it at this rate: ``streamtwin.media.jitter``) and
nothing crashes.
"""

from __future__ import annotations

import asyncio
import os
import random
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
from aiortc import MediaStreamTrack, RTCConfiguration, RTCPeerConnection
from aiortc.contrib.media import MediaPlayer
from aioice.ice import StunProtocol

from streamtwin.media.mediatime import AudioTimeline
from tests.live import hello, offer_media, open_ws, recv_until, send_json, view
from tests.test_browser import NETNS_FLAG, SAMPLE_WORDS

pytestmark = [pytest.mark.model, pytest.mark.network, pytest.mark.slow]

ROOT = Path(__file__).resolve().parent.parent
WAV = ROOT / "samples" / "meeting.wav"  # 61.6 s of speech and pauses
TC = "/usr/sbin/tc"
STREAM_S = 35.0  # media time to stream under loss (every sample word is said by 34 s): ~2.2 s lost at 1 in 16
DELAYED_STREAM_S = 25.0
DELAY_S, JITTER_S = 0.08, 0.04
NETEM = f"{TC} qdisc add dev lo root netem loss 5% delay 40ms"
# Offsets in the IP packet (20-byte IP header, 8-byte UDP header): byte 28 is the RTP version (0b10......, which
# STUN and DTLS never have), byte 29 marker and payload type (dynamic types 96-127; RTCP's 200-207 do not match),
# byte 31 the low byte of the sequence number.  DTLS must pass: a handshake record dropped by its bytes would be
# dropped again on every retransmission.
U32_LOSS = " && ".join([
    f"{TC} qdisc add dev lo root handle 1: htb default 10",
    f"{TC} class add dev lo parent 1: classid 1:10 htb rate 1gbit",
    f"{TC} class add dev lo parent 1: classid 1:20 htb rate 1gbit",
    f"{TC} qdisc add dev lo parent 1:20 handle 20: pfifo limit 0",
    f"{TC} filter add dev lo parent 1: protocol ip prio 1 u32 match ip protocol 17 0xff match u8 0x80 0xc0 at 28 match u8 0x60 0x60 at 29 match u8 0 0x0f at 31 flowid 1:20",
])
SHAPE = f'ip link set lo up && {{ {NETEM} 2>/dev/null && echo "shaped: netem" || {{ {U32_LOSS} 2>/dev/null && echo "shaped: u32"; }}; }}'


class SentClock(MediaStreamTrack):
    """The publisher's audio, passed through, remembering how much media time it has sent."""

    kind = "audio"

    def __init__(self, track: MediaStreamTrack):
        super().__init__()
        self.track = track
        self.sent_s = 0.0

    async def recv(self):
        frame = await self.track.recv()
        self.sent_s = float(frame.time) + frame.samples / frame.sample_rate
        return frame

    def stop(self) -> None:
        super().stop()
        self.track.stop()


async def test_media_under_packet_loss_keeps_gaps_and_goes_on_being_transcribed(make_server, loopback_ice, monkeypatch):
    if os.environ.get(NETNS_FLAG) != "1":
        await run_in_a_lossy_namespace()
        return
    gaps: list[float] = []
    real_gap = AudioTimeline.gap

    def recorded_gap(self, pts, samples, rate):
        gap = real_gap(self, pts, samples, rate)
        gaps.append(gap)
        return gap

    monkeypatch.setattr(AudioTimeline, "gap", recorded_gap)
    server = await make_server()
    position, sent, seen, ended = await stream_sample(server, STREAM_S)

    lost = sum(g for g in gaps[1:] if g > 0)  # the first call is the lead-in, not a loss
    print(f"sent {sent:.2f} s, server media time {position:.2f} s, gaps kept {lost:.2f} s in {sum(g > 0 for g in gaps[1:])}")
    assert lost > 1.0, "no loss reached the server: the shaping did not work"
    assert lost < 0.1 * sent, f"{lost:.2f} s of {sent:.2f} s lost: more than the network lost"
    counted = server.metrics.registry.get_sample_value("streamtwin_audio_gap_seconds_total")
    assert abs(counted - sum(g for g in gaps if g > 0)) < 0.01, (counted, lost)
    # Counting received samples would put the server's clock behind the sender's by all that was lost.
    assert position > sent - lost / 2, (position, sent, lost)
    finals = [m for m in seen if m["type"] == "transcript.final" and m["text"].strip()]
    print("heard:", " ".join(f["text"] for f in finals))
    heard = {word for word in SAMPLE_WORDS if any(word in f["text"].lower() for f in finals)}
    assert len(finals) >= 3 and len(heard) >= 7, [f["text"] for f in finals]  # 9 of 9; 2 when 31% was lost
    assert not [m for m in seen if m["type"] == "error" and m.get("fatal")]
    assert ended["stats"]["audio_s"] >= position


async def test_media_delayed_and_reordered_keeps_its_clock_and_is_transcribed(make_server, loopback_ice, monkeypatch):
    """Delay and jitter without netem (this kernel has none): every datagram either peer sends (DTLS, SRTP,
    SRTCP) is held 80 ms +- 40 ms before it goes out, so packets 20 ms apart also arrive out of order."""
    rng = random.Random(3)
    loop = asyncio.get_running_loop()
    real_send = StunProtocol.send_data
    delayed: list[float] = []

    async def send_later(protocol: StunProtocol, data: bytes, addr: tuple[str, int]) -> None:
        delay = DELAY_S + rng.uniform(-JITTER_S, JITTER_S)
        delayed.append(delay)
        loop.call_later(delay, send_if_open, protocol, data, addr)

    def send_if_open(protocol: StunProtocol, data: bytes, addr: tuple[str, int]) -> None:
        if protocol.transport is not None and not protocol.transport.is_closing():
            asyncio.ensure_future(real_send(protocol, data, addr))

    monkeypatch.setattr(StunProtocol, "send_data", send_later)
    position, sent, seen, ended = await stream_sample(await make_server(), DELAYED_STREAM_S)
    print(f"sent {sent:.2f} s, server media time {position:.2f} s, {len(delayed)} datagrams delayed")
    assert len(delayed) > 500, "the media did not go through the delaying path"
    # Late and reordered packets do not stretch or squeeze the clock: it stays with the sender's, less the delay.
    assert sent - 1.0 < position <= sent + 0.1, (position, sent)
    finals = [m for m in seen if m["type"] == "transcript.final" and m["text"].strip()]
    heard = {word for word in SAMPLE_WORDS if any(word in f["text"].lower() for f in finals)}
    assert len(finals) >= 3 and len(heard) >= 3, [f["text"] for f in finals]
    assert not [m for m in seen if m["type"] == "error" and m.get("fatal")]
    assert ended["stats"]["audio_s"] >= position


async def stream_sample(server, seconds: float) -> tuple[float, float, list[dict], dict]:
    """Publish the sample over real WebRTC until the server has ``seconds`` of media time, then end; returns
    the server's media time, the media time sent, the events a viewer saw and its ``session.ended``."""
    publisher = await open_ws(server)
    welcome = await hello(publisher, "publisher")
    viewer = await open_ws(server)
    assert (await view(viewer, welcome))["type"] == "welcome"
    player = MediaPlayer(str(WAV))
    audio = SentClock(player.audio)
    pc = RTCPeerConnection(RTCConfiguration(iceServers=[]))
    try:
        await offer_media(publisher, pc, SimpleNamespace(audio=audio, video=None))
        reading = asyncio.ensure_future(read_all(publisher))  # a publisher that never reads is dropped as too slow
        live = server.sessions[welcome["session"]]
        seen: list[dict] = []
        async with asyncio.timeout(seconds * 4):
            while live.ingest is None or live.ingest.position < seconds:
                _, before = await recv_until(viewer, "progress", timeout=60)
                seen += before
        position, sent = live.ingest.position, audio.sent_s
        assert pc.connectionState == "connected"  # the publisher kept streaming
        await send_json(publisher, {"type": "end"})
        ended, before = await recv_until(viewer, "session.ended", timeout=60)
        seen += before
        await reading
    finally:
        await pc.close()
        audio.stop()
    return position, sent, seen, ended


async def read_all(ws) -> None:
    async for _ in ws:
        pass


async def run_in_a_lossy_namespace() -> None:
    unshare = ["unshare", "-n"] if os.geteuid() == 0 else ["unshare", "-r", "-n"]
    test = f"{__file__}::test_media_under_packet_loss_keeps_gaps_and_goes_on_being_transcribed"
    command = unshare + [
        "sh", "-c", f'{SHAPE} && exec "$0" "$@"',
        sys.executable, "-m", "pytest", "-q", "-s", "-p", "no:cacheprovider", "-o", "addopts=", test,
    ]
    result = await asyncio.to_thread(
        subprocess.run, command, check=False, cwd=ROOT, env={**os.environ, NETNS_FLAG: "1"},
        capture_output=True, text=True, timeout=600,
    )
    print(result.stdout[-3000:])
    assert "shaped:" in result.stdout, f"tc could not shape loopback:\n{result.stdout[-2000:]}\n{result.stderr[-2000:]}"
    assert result.returncode == 0, f"in the lossy namespace:\n{result.stdout[-6000:]}\n{result.stderr[-3000:]}"
