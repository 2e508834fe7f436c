"""The WebRTC receive side: answer a publisher's offer, pull its tracks into a Session.

One :class:`WebRTCIngest` per publisher.  Audio frames (whatever rate and layout
the browser sends) go through :class:`~streamtwin.media.audio.AudioConverter` into the
speech stage; video frames go to the vision stage, timed on the same media
clock as the audio.  aiortc does not trickle ICE: the answer carries every
candidate, so the offer must carry the publisher's too.  :meth:`WebRTCIngest.close`
releases the peer connection and its tasks; ``on_ended`` tells the owner when
the media stopped on its own: ``None`` when the audio track ended, an
``(error code, message)`` pair when the connection failed.

Importing this module puts :class:`~streamtwin.media.jitter.AudioReorder` in aiortc's receivers in place
of its audio jitter buffer, which lost five packets for each one the network lost.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from typing import Any

import aioice.ice
import aiortc.rtcrtpreceiver
import numpy as np
from aiortc import (
    RTCConfiguration,
    RTCIceServer,
    RTCPeerConnection,
    RTCSessionDescription,
)
from aiortc.contrib.media import MediaBlackhole
from aiortc.jitterbuffer import JitterBuffer, JitterFrame
from aiortc.mediastreams import MediaStreamError, MediaStreamTrack

from streamtwin.media.audio import SAMPLE_RATE, AudioConverter
from streamtwin.events import Progress
from streamtwin.service.metrics import ServiceMetrics
from streamtwin.media.jitter import AudioReorder
from streamtwin.media.mediatime import AudioTimeline
from streamtwin.session import Session

log = logging.getLogger(__name__)

MAX_VIDEO_LAG_S = 0.5  # older frames are skipped: vision looks at the present, not at a backlog
PROGRESS_EVERY_S = 1.0  # progress events also let viewers map media time to wall time
TRACK_DRAIN_TIMEOUT_S = 5.0
SILENCE_CHUNK = SAMPLE_RATE  # a gap is pushed as silence one second at a time


class OfferError(Exception):
    """The publisher's offer cannot be answered (unparsable SDP, nothing we can receive)."""


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


class AudioJitterBuffer:
    """aiortc's jitter buffer interface over :class:`AudioReorder`: one audio packet is one frame."""

    def __init__(self, prefetch: int):
        self._reorder: AudioReorder[Any] = AudioReorder(depth=prefetch)

    def add(self, packet: Any) -> tuple[bool, JitterFrame | None]:
        due = self._reorder.add(packet)
        return False, None if due is None else JitterFrame(data=due._data, timestamp=due.timestamp)


def jitter_buffer(capacity: int, prefetch: int = 0, is_video: bool = False) -> JitterBuffer | AudioJitterBuffer:
    """What aiortc's receiver builds in place of ``JitterBuffer(...)``: video keeps aiortc's own."""
    if is_video:
        return JitterBuffer(capacity, prefetch, is_video)
    return AudioJitterBuffer(prefetch)


aiortc.rtcrtpreceiver.JitterBuffer = jitter_buffer  # type: ignore[misc,assignment]


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
        ice_servers: list[RTCIceServer],
        *,
        on_ended: Callable[[tuple[str, str] | None], object],
        metrics: ServiceMetrics,
        clock: Callable[[], float] = time.time,
        start_s: float = 0.0,
        lead_in_s: float = 0.0,
        max_gap_s: float = 60.0,
    ) -> None:
        self._session = session
        self._on_ended = on_ended
        self._metrics = metrics
        self._clock = clock
        self.pc = RTCPeerConnection(RTCConfiguration(iceServers=ice_servers))
        self.audio_clock = MediaClock()
        self._video_clock = MediaClock()
        self._video_origin: float | None = None
        self._tasks: list[asyncio.Task[None]] = []
        # Media time continues from ``start_s`` (a resumed publisher) and follows RTP timestamps.
        self.position = start_s
        self.last_audio_at: float | None = None  # wall clock of the last audio frame
        self._timeline = AudioTimeline(max_gap_s, lead_in_s)
        self._spare = MediaBlackhole()  # extra tracks must still be read, or aiortc queues them forever
        self._has_audio = False
        self._has_video = False
        self._closing = False
        self._ended = False
        self.pc.on("track", self._on_track)
        self.pc.on("connectionstatechange", self._on_connection_state)

    async def answer(self, offer_sdp: str) -> str:
        """Apply the publisher's offer; returns the answer SDP with all our candidates."""
        # The publisher hears what was wrong in a word; the details (aiortc's exception) go to the log.
        before = asyncio.all_tasks()
        try:
            return await self._answer(offer_sdp)
        finally:
            self._adopt_tasks(asyncio.all_tasks() - before)

    def _adopt_tasks(self, tasks: set[asyncio.Task[Any]]) -> None:
        """aiortc starts its connect task with ``ensure_future`` and never reads its result: closing the
        connection while it runs ends it with an exception nobody retrieves ("Task exception was never
        retrieved" with a traceback).  A connection that fails is reported by its state; log it quietly."""
        for task in tasks:
            if "RTCPeerConnection" in getattr(task.get_coro(), "__qualname__", ""):
                task.add_done_callback(self._retrieve)

    def _retrieve(self, task: asyncio.Task[Any]) -> None:
        if not task.cancelled() and task.exception() is not None:
            log.debug("session %s: WebRTC connect ended: %r", self._session.id, task.exception())

    async def _answer(self, offer_sdp: str) -> str:
        try:
            await self.pc.setRemoteDescription(RTCSessionDescription(sdp=offer_sdp, type="offer"))
        except Exception as exc:  # aiortc raises ValueError, KeyError, IndexError... on bad SDP
            log.info("session %s: unparsable offer: %r", self._session.id, exc)
            raise OfferError("the offer could not be parsed as a WebRTC session description") from None
        if not self.pc.getTransceivers():  # e.g. a data channel only
            raise OfferError("the offer has no audio or video to receive")
        try:
            await self.pc.setLocalDescription(await self.pc.createAnswer())
        except Exception as exc:
            log.info("session %s: cannot answer the offer: %r", self._session.id, exc)
            raise OfferError("the offer cannot be answered (unsupported media, codecs or bundle)") from None
        return self.pc.localDescription.sdp

    @property
    def ended(self) -> bool:
        return self._ended

    async def close(self) -> None:
        """Stop receiving: close the connection, let the track readers finish (flushing audio).

        Never raises: aiortc can fail half-way closing a connection built from a bad offer, and the
        track readers must be stopped all the same.
        """
        self._closing = True
        for step in (self.pc.close, self._spare.stop):
            try:
                await step()
            except Exception as exc:
                log.debug("session %s: while closing WebRTC: %r", self._session.id, exc)
        if self._tasks:
            # Audio that arrived is flushed by its reader; with none (a refused or never-connected
            # offer) there is nothing to wait for, and aiortc may never end those tracks.
            drain_s = TRACK_DRAIN_TIMEOUT_S if self.last_audio_at is not None else 0
            _, pending = await asyncio.wait(self._tasks, timeout=drain_s)
            for task in pending:
                task.cancel()
            await asyncio.gather(*pending, return_exceptions=True)

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
        next_progress = self.position
        while True:
            try:
                frame = await track.recv()
            except MediaStreamError:
                break
            now = self._clock()
            self.last_audio_at = now
            self._metrics.frames.labels("audio").inc()
            gap = self._timeline.gap(frame.pts, frame.samples, frame.sample_rate)
            if gap > 0:
                self._metrics.audio_gaps.inc(gap)
                await self._push_silence(gap)
            samples = converter.convert(frame)
            if not len(samples):
                continue
            await self._session.push_audio(samples)
            self.position += len(samples) / SAMPLE_RATE
            self.audio_clock.observe(now, self.position)
            if self.position >= next_progress:
                next_progress = self.position + PROGRESS_EVERY_S
                position = round(self.position, 3)
                self._session.bus.emit(Progress(position=position, media_time=position))
        tail = converter.flush()
        if len(tail):
            await self._session.push_audio(tail)
            self.position += len(tail) / SAMPLE_RATE

    async def _push_silence(self, seconds: float) -> None:
        """Lost packets or a media pause: the clock moves on as it did for the speaker."""
        remaining = round(seconds * SAMPLE_RATE)
        while remaining > 0:
            chunk = min(remaining, SILENCE_CHUNK)
            await self._session.push_audio(np.zeros(chunk, dtype=np.float32))
            remaining -= chunk
        self.position += seconds

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
            self._metrics.frames.labels("video").inc()
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
