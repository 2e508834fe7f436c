"""The WebRTC receive side: answer a publisher's offer, pull its tracks into a Session.

One :class:`WebRTCIngest` per publisher.  Audio frames (whatever rate and layout
the browser sends) go through :class:`~pipeline.audio.AudioConverter` into the
speech stage; video frames go to the vision stage, timed on the same media
clock as the audio.  aiortc does not trickle ICE: the answer carries every
candidate, so the offer must carry the publisher's too.  :meth:`WebRTCIngest.close`
releases the peer connection and its tasks; ``on_ended`` tells the owner when
the media stopped on its own: ``None`` when the audio track ended, an
``(error code, message)`` pair when the connection failed.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from typing import Any
from urllib.parse import unquote

import aioice.ice
from aiortc import (
    RTCConfiguration,
    RTCIceServer,
    RTCPeerConnection,
    RTCSessionDescription,
)
from aiortc.contrib.media import MediaBlackhole
from aiortc.mediastreams import MediaStreamError, MediaStreamTrack

from .audio import SAMPLE_RATE, AudioConverter
from .events import Progress
from .metrics import ServiceMetrics
from .session import Session

log = logging.getLogger(__name__)

MAX_VIDEO_LAG_S = 0.5  # older frames are skipped: vision looks at the present, not at a backlog
PROGRESS_EVERY_S = 1.0  # progress events also let viewers map media time to wall time
TRACK_DRAIN_TIMEOUT_S = 5.0


class OfferError(Exception):
    """The publisher's offer cannot be answered (unparsable SDP, nothing we can receive)."""


def ice_servers(urls: list[str]) -> list[RTCIceServer]:
    """``stun:host:port`` or ``turn:user:secret@host:port?transport=udp`` (credentials URL-escaped)."""
    servers = []
    for url in urls:
        scheme, _, rest = url.partition(":")
        username = credential = None
        if "@" in rest:
            userinfo, rest = rest.rsplit("@", 1)
            user, _, secret = userinfo.partition(":")
            username, credential = unquote(user), unquote(secret)
        servers.append(RTCIceServer(urls=f"{scheme}:{rest}", username=username, credential=credential))
    return servers


def ice_servers_json(urls: list[str]) -> list[dict[str, Any]]:
    """The same servers as a browser's ``RTCPeerConnection`` takes them."""
    out = []
    for server in ice_servers(urls):
        entry: dict[str, Any] = {"urls": server.urls}
        if server.username is not None:
            entry.update(username=server.username, credential=server.credential)
        out.append(entry)
    return out


def use_loopback_candidates() -> Callable[[], None]:
    """Make aioice offer only 127.0.0.1 (it leaves loopback out otherwise); returns an undo function.

    For tests and benchmarks on a machine with no usable network; never on by default.
    """
    original = aioice.ice.get_host_addresses

    def loopback(use_ipv4: bool, use_ipv6: bool) -> list[str]:
        return ["127.0.0.1"] if use_ipv4 else []

    aioice.ice.get_host_addresses = loopback

    def undo() -> None:
        aioice.ice.get_host_addresses = original

    return undo


class MediaClock:
    """Maps a stream's media time to the wall time it arrived.

    ``origin`` is the smallest ``arrival - media_time`` seen: the frame that came
    with the least delay pins the clock, later (jittered) ones only show lag.
    """

    def __init__(self) -> None:
        self.origin: float | None = None

    def observe(self, wall: float, media_time: float) -> float:
        """Record one arrival; returns how late it is (seconds) against the clock."""
        offset = wall - media_time
        if self.origin is None or offset < self.origin:
            self.origin = offset
        return offset - self.origin

    def wall_at(self, media_time: float) -> float | None:
        return None if self.origin is None else self.origin + media_time


class WebRTCIngest:
    """Receives one publisher's audio and video into ``session``."""

    def __init__(
        self,
        session: Session,
        ice_server_urls: list[str],
        *,
        on_ended: Callable[[tuple[str, str] | None], object],
        metrics: ServiceMetrics,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._session = session
        self._on_ended = on_ended
        self._metrics = metrics
        self._clock = clock
        self.pc = RTCPeerConnection(RTCConfiguration(iceServers=ice_servers(ice_server_urls)))
        self.audio_clock = MediaClock()
        self._video_clock = MediaClock()
        self._video_origin: float | None = None
        self._tasks: list[asyncio.Task[None]] = []
        self._spare = MediaBlackhole()  # extra tracks must still be read, or aiortc queues them forever
        self._has_audio = False
        self._has_video = False
        self._closing = False
        self._ended = False
        self.pc.on("track", self._on_track)
        self.pc.on("connectionstatechange", self._on_connection_state)

    async def answer(self, offer_sdp: str) -> str:
        """Apply the publisher's offer; returns the answer SDP with all our candidates."""
        try:
            await self.pc.setRemoteDescription(RTCSessionDescription(sdp=offer_sdp, type="offer"))
        except Exception as exc:  # aiortc raises ValueError, KeyError, IndexError... on bad SDP
            raise OfferError(f"cannot parse the offer: {exc or type(exc).__name__}") from None
        if not self.pc.getTransceivers():  # e.g. a data channel only
            raise OfferError("the offer has no audio or video to receive")
        try:
            await self.pc.setLocalDescription(await self.pc.createAnswer())
        except Exception as exc:
            raise OfferError(f"cannot answer the offer: {exc or type(exc).__name__}") from None
        return self.pc.localDescription.sdp

    async def close(self) -> None:
        """Stop receiving: close the connection, let the track readers finish (flushing audio)."""
        self._closing = True
        await self.pc.close()
        await self._spare.stop()
        if self._tasks:
            _, pending = await asyncio.wait(self._tasks, timeout=TRACK_DRAIN_TIMEOUT_S)
            for task in pending:
                task.cancel()

    def media_wall(self, media_time: float) -> float | None:
        """When the audio at ``media_time`` arrived (wall seconds), for latency metrics."""
        return self.audio_clock.wall_at(media_time)

    def _on_track(self, track: MediaStreamTrack) -> None:
        if track.kind == "audio" and not self._has_audio:
            self._has_audio = True
            self._tasks.append(asyncio.ensure_future(self._pump_audio(track)))
        elif track.kind == "video" and not self._has_video:
            self._has_video = True
            self._tasks.append(asyncio.ensure_future(self._pump_video(track)))
        else:
            log.info("session %s: ignoring an extra %s track", self._session.id, track.kind)
            self._spare.addTrack(track)
            self._tasks.append(asyncio.ensure_future(self._spare.start()))

    async def _on_connection_state(self) -> None:
        state = self.pc.connectionState
        log.info("session %s: WebRTC %s", self._session.id, state)
        if state == "failed":
            self._end(("media_failed", "the media connection failed"))

    async def _pump_audio(self, track: MediaStreamTrack) -> None:
        try:
            await self._read_audio(track)
        except Exception as exc:  # a bug here must end the session loudly, not stall it
            log.exception("session %s: audio ingest failed", self._session.id)
            self._end(("ingest_failed", f"the audio could not be processed: {exc}"))
        else:
            self._end(None)

    async def _read_audio(self, track: MediaStreamTrack) -> None:
        converter = AudioConverter()
        pushed = 0
        next_progress = 0.0
        while True:
            try:
                frame = await track.recv()
            except MediaStreamError:
                break
            self._metrics.frames.inc("audio")
            samples = converter.convert(frame)
            if not len(samples):
                continue
            await self._session.push_audio(samples)
            pushed += len(samples)
            position = pushed / SAMPLE_RATE
            self.audio_clock.observe(self._clock(), position)
            if position >= next_progress:
                next_progress = position + PROGRESS_EVERY_S
                self._session.bus.emit(Progress(position=round(position, 3), media_time=round(position, 3)))
        tail = converter.flush()
        if len(tail):
            await self._session.push_audio(tail)

    async def _pump_video(self, track: MediaStreamTrack) -> None:
        try:
            await self._read_video(track)
        except Exception as exc:
            log.exception("session %s: video ingest failed", self._session.id)
            self._end(("ingest_failed", f"the video could not be processed: {exc}"))

    async def _read_video(self, track: MediaStreamTrack) -> None:
        while True:
            try:
                frame = await track.recv()
            except MediaStreamError:
                return
            now = self._clock()
            self._metrics.frames.inc("video")
            if frame.time is not None and self._video_clock.observe(now, frame.time) > MAX_VIDEO_LAG_S:
                self._metrics.frames_dropped.inc()
                continue
            # Stamped on the audio's media clock, so what is seen lines up with what is said.
            origin = self.audio_clock.origin
            if origin is None:
                if self._video_origin is None:
                    self._video_origin = now
                origin = self._video_origin
            self._session.push_video(frame, max(0.0, now - origin))

    def _end(self, error: tuple[str, str] | None) -> None:
        if self._closing or self._ended:
            return
        self._ended = True
        log.info("session %s: media ended%s", self._session.id, f" ({error[1]})" if error else "")
        self._on_ended(error)
