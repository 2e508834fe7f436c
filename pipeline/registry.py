"""The running sessions: each one's publisher, viewers, WebRTC ingest, fan-out and liveness.

:class:`Registry` opens sessions (within the admission limits) and forgets them
when they end.  A :class:`LiveSession` outlives its publisher's connection by
the resume grace period: a publisher that comes back with the session's resume
token continues the same session (same transcript, same twin), and a failed
media connection may be replaced by a new offer.  A watchdog applies the
:class:`~pipeline.policy.liveness.Liveness` policy (offer, first media, idle
media and resume timeouts).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from typing import Any

from .channel import ClientChannel
from .config import Config
from .events import AssistantDelta, Event, encode
from .metrics import ServiceMetrics
from .policy.access import new_secret
from .policy.admission import Admission
from .policy.coalesce import FrameCoalescer
from .policy.liveness import Liveness, Timeouts
from .policy.outbox import SharedFrame
from .protocol import CLOSE_GOING_AWAY, CLOSE_INTERNAL, CLOSE_NORMAL, CLOSE_TRY_LATER, Refusal
from .session import Session
from .webrtc import OfferError, WebRTCIngest

log = logging.getLogger(__name__)

WATCH_EVERY_S = 0.5

SessionFactory = Callable[[Config, "str | None", str], Session]


def timeouts(config: Config) -> Timeouts:
    return Timeouts(
        offer_s=config.offer_timeout_s,
        first_media_s=config.first_media_timeout_s,
        idle_media_s=config.idle_media_timeout_s,
        resume_grace_s=config.resume_grace_s,
    )


class LiveSession:
    """A running session: its publisher, its viewers, the WebRTC ingest and the fan-out between them."""

    def __init__(
        self,
        session: Session,
        metrics: ServiceMetrics,
        on_finished: Callable[[LiveSession], None],
        *,
        config: Config,
        address: str = "",
        ice_servers: Callable[[], list[Any]] = list,
    ):
        self.session = session
        self.address = address
        self.viewer_token = new_secret()
        self.resume_token = new_secret()
        self.publisher: ClientChannel | None = None
        self.viewers: set[ClientChannel] = set()
        self.ingest: WebRTCIngest | None = None
        self.liveness = Liveness(timeouts(config), time.time())
        self._config = config
        self._ice_servers = ice_servers
        self._metrics = metrics
        self._on_finished = on_finished
        self._position = 0.0  # media seconds received by earlier ingests
        self._last_audio_at: float | None = None
        self._frames = FrameCoalescer()
        self._frame_timer: asyncio.TimerHandle | None = None
        self._finish_task: asyncio.Task[None] | None = None
        self._loop = asyncio.get_running_loop()
        session.bus.subscribe(self._on_event)
        self._watchdog = asyncio.ensure_future(self._watch())

    @property
    def id(self) -> str:
        return self.session.id

    @property
    def finishing(self) -> bool:
        return self._finish_task is not None

    @property
    def viewer_url(self) -> str:
        """The page that watches this session (relative to the server's address)."""
        return f"/?session={self.id}&role=viewer&token={self.viewer_token}"

    def channels(self) -> list[ClientChannel]:
        return ([self.publisher] if self.publisher is not None else []) + list(self.viewers)

    def add_viewer(self, channel: ClientChannel, *, snapshot: bool) -> None:
        """A late joiner first gets what it missed, then live events (nothing lost, nothing twice)."""
        self._send_snapshot(channel, snapshot)
        self.viewers.add(channel)

    def attach_publisher(self, channel: ClientChannel, *, snapshot: bool) -> None:
        """The publisher (first, or back within the grace period: it then gets the snapshot)."""
        previous, self.publisher = self.publisher, channel
        if previous is not None and previous is not channel:  # a half-dead old connection
            previous.finish(CLOSE_NORMAL, "replaced by a resumed connection")
        self._send_snapshot(channel, snapshot)
        if self.liveness.away:
            self.liveness.publisher_back()
            self._notify_viewers("publisher_back", "the publisher is back")

    def _send_snapshot(self, channel: ClientChannel, snapshot: bool) -> None:
        self._send_frames()
        if snapshot:
            for event in self.session.snapshot():
                channel.put(event.to_json())

    def remove(self, channel: ClientChannel) -> None:
        self.viewers.discard(channel)
        if self.publisher is channel:
            self.publisher = None

    def publisher_gone(self) -> None:
        """The publisher's websocket dropped: keep the session for the grace period."""
        grace = self._config.resume_grace_s
        log.info("session %s: the publisher left; %g s to resume", self.id, grace)
        self.liveness.publisher_left(time.time())
        self._notify_viewers("publisher_away", f"the publisher disconnected; waiting {grace:g} s for it to resume")

    def _notify_viewers(self, code: str, message: str) -> None:
        for viewer in self.viewers:
            viewer.send({"type": "notice", "code": code, "message": message})

    def media_wall(self, media_time: float) -> float | None:
        return self.ingest.media_wall(media_time) if self.ingest is not None else None

    def media_flowing(self) -> bool:
        return self.ingest is not None and not self.ingest.ended

    # --- media ------------------------------------------------------------------------------
    async def drop_ingest(self) -> None:
        """Close the current media connection (its audio is flushed); its clock carries over."""
        ingest, self.ingest = self.ingest, None
        if ingest is None:
            return
        await ingest.close()
        self._position = ingest.position
        self._last_audio_at = ingest.last_audio_at or self._last_audio_at

    def new_ingest(self) -> WebRTCIngest:
        """A media connection that continues the session's clock; the time media was away stays a gap."""
        away = time.time() - self._last_audio_at if self._last_audio_at is not None else 0.0
        return WebRTCIngest(
            self.session,
            self._ice_servers(),
            on_ended=self._media_ended,
            metrics=self._metrics,
            start_s=self._position,
            lead_in_s=away,
            max_gap_s=self._config.idle_media_timeout_s + self._config.resume_grace_s,
        )

    async def accept_offer(self, sdp: str, still_wanted: Callable[[], bool] = lambda: True) -> str:
        """Answer a publisher's offer with a new media connection (it replaces the current one);
        returns the answer SDP with every candidate.  Raises :class:`OfferError` for an offer that
        cannot be answered, :class:`Refusal` when the session ended (or ``still_wanted()`` turned
        false) while answering; either way the new connection is closed again."""
        await self.drop_ingest()
        ingest = self.new_ingest()
        try:
            answer = await ingest.answer(sdp)
        except OfferError:
            await ingest.close()
            raise
        if self.finishing or not still_wanted():  # the publisher left while we answered
            await ingest.close()
            raise Refusal("session_ended", "this session has ended")
        self.ingest = ingest
        self.liveness.answered(time.time())
        return answer

    def _media_ended(self, error: tuple[str, str] | None) -> None:
        """The media stopped (track ended or connection failed): a new offer may follow within the
        grace period (a publisher replacing its connection closes the old one); ``end`` ends a session."""
        if error is None:
            error = ("media_ended", "the media connection ended")
        log.info("session %s: %s; waiting for a new offer", self.id, error[1])
        self.liveness.media_lost(time.time())
        if self.publisher is not None:
            self.publisher.send({"type": "notice", "code": "media_lost", "message": f"{error[1]}: send a new offer"})

    async def _watch(self) -> None:
        while True:
            await asyncio.sleep(WATCH_EVERY_S)
            if self.ingest is not None and self.ingest.last_audio_at is not None:
                self.liveness.media(self.ingest.last_audio_at)
            verdict = self.liveness.verdict(time.time())
            if verdict is not None:
                log.info("session %s: %s", self.id, verdict[1])
                self.finish(verdict)
                return

    # --- the end ------------------------------------------------------------------------------
    def finish(
        self, error: tuple[str, str] | None = None, *, going_away: bool = False, drain_s: float | None = None
    ) -> asyncio.Task[None]:
        """End the session once (flush speech, ``session.ended``), then close every client
        (1000, or 1001 when the server shuts down)."""
        if self._finish_task is None:
            self._finish_task = asyncio.ensure_future(self._finish(error, going_away, drain_s))
        return self._finish_task

    async def _finish(self, error: tuple[str, str] | None, going_away: bool, drain_s: float | None) -> None:
        self._watchdog.cancel()
        try:
            await self.drop_ingest()
            if error is not None:
                self.session.error(*error, fatal=True)
            await self.session.end(drain_s=drain_s)
        except Exception:
            log.exception("session %s did not end cleanly", self.id)
        finally:
            self._send_frames()
            self._on_finished(self)
            close = (CLOSE_GOING_AWAY, "server shutting down") if going_away else (CLOSE_NORMAL, "session ended")
            for channel in self.channels():
                channel.finish(*close)

    def _on_event(self, event: Event) -> None:
        if type(event) is AssistantDelta:  # the hot path: a model's text, once per event-loop turn
            if self._frames.push(event.generation, event.text, event):
                window = self._frames.window_for(len(self.viewers) + (self.publisher is not None))
                self._frame_timer = self._loop.call_later(window, self._send_frames)
            return
        self._send_frames()
        self._metrics.on_event(event, self.media_wall)
        data = encode(event.to_dict())  # once, for every client
        for channel in self.channels():
            channel.put(data)

    def _send_frames(self) -> None:
        """The deltas merged since the last frame: each frame serialised once, the same bytes to every client."""
        if self._frame_timer is not None:
            self._frame_timer.cancel()
            self._frame_timer = None
        channels = self.channels()
        for frame in self._frames.flush():
            self._metrics.events.inc(AssistantDelta.type, amount=frame.deltas)
            body = frame.last.to_dict()
            body["text"] = frame.text
            shared = SharedFrame(frame.generation, frame.text, body, encode(body))
            for channel in channels:
                channel.put_frame(shared)


class Registry:
    """The sessions this server runs, opened within the admission limits."""

    def __init__(
        self,
        config: Config,
        factory: SessionFactory,
        metrics: ServiceMetrics,
        admission: Admission,
        ice_servers: Callable[[], list[Any]] = list,
    ):
        self.config = config
        self.sessions: dict[str, LiveSession] = {}
        self._factory = factory
        self._metrics = metrics
        self._admission = admission
        self._ice_servers = ice_servers

    def get(self, session_id: str | None) -> LiveSession | None:
        live = self.sessions.get(session_id or "")
        return None if live is None or live.finishing else live

    def open(self, source: str, address: str = "") -> LiveSession:
        """A new session with an unguessable id and no clients yet; raises :class:`Refusal`."""
        verdict = self._admission.admit_session(address)
        if verdict is not None:
            raise Refusal(verdict.code, verdict.message, CLOSE_TRY_LATER)
        try:
            session = self._factory(self.config, new_secret(), source)
        except Exception as exc:
            self._admission.release_session(address)
            log.exception("cannot create a session")
            raise Refusal("internal", f"cannot start a session: {type(exc).__name__}", CLOSE_INTERNAL) from None
        live = LiveSession(
            session, self._metrics, self._finished, config=self.config, address=address, ice_servers=self._ice_servers
        )
        self.sessions[live.id] = live
        self._metrics.sessions_total.inc()
        log.info("session %s opened (%s)", live.id, source)
        return live

    def _finished(self, live: LiveSession) -> None:
        if self.sessions.pop(live.id, None) is not None:
            self._admission.release_session(live.address)
        log.info("session %s closed", live.id)

    async def end_all(self, *, going_away: bool, drain_s: float | None, timeout: float) -> None:
        """End every session (speech flushed, ``session.ended`` sent) within ``timeout``."""
        finishing = [live.finish(going_away=going_away, drain_s=drain_s) for live in list(self.sessions.values())]
        if finishing:
            _, late = await asyncio.wait(finishing, timeout=timeout)
            if late:
                log.warning("%d sessions did not end within %.0f s", len(late), timeout)
