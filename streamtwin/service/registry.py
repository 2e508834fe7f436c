"""The running sessions: each one's publishers, viewers and liveness.

:class:`Registry` opens sessions (within the admission limits) and forgets them
when they end.  A :class:`LiveSession` has one publisher, or several in a room
(streamtwin/service/participant.py holds each one's connection, media and liveness).  A
publisher's place outlives its connection by the resume grace period: one that
comes back with its resume token continues (same transcript, same twin), and a
failed media connection may be replaced by a new offer.  A watchdog applies the
:class:`~streamtwin.service.liveness.Liveness` policy to each publisher (offer,
first media, idle media and resume timeouts): one that times out leaves the
room, and the session ends with its last publisher.  Every event its clients get
goes out through the session's fan-out (streamtwin/service/fanout.py), which also
appends it to the session's event log (streamtwin/eventlog/), the same bytes under
the same seq: resumed viewers and viewers on other nodes read it there.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any

from streamtwin.service.channel import ClientChannel
from streamtwin.service.fanout import FanOut
from streamtwin.config import Config
from streamtwin.eventlog.node_log import NodeLog
from streamtwin.service.metrics import ServiceMetrics
from streamtwin.service.participant import MediaSink, Participant
from streamtwin.service.access import new_secret, token_digest, tokens_match
from streamtwin.service.admission import Admission
from streamtwin.rooms.roster import RosterError
from streamtwin.service.protocol import CLOSE_GOING_AWAY, CLOSE_INTERNAL, CLOSE_NORMAL, CLOSE_POLICY, CLOSE_TRY_LATER, Refusal
from streamtwin.rooms.room import RoomStream
from streamtwin.session import Session
from streamtwin.service.webrtc import WebRTCIngest

log = logging.getLogger(__name__)

WATCH_EVERY_S = 0.5

SessionFactory = Callable[[Config, "str | None", str], Session]


class LiveSession:
    """A running session: its publishers (participants) and viewers, from joining to the end; what they are
    sent goes through its :class:`~streamtwin.service.fanout.FanOut`."""

    def __init__(
        self,
        session: Session,
        metrics: ServiceMetrics,
        on_finished: Callable[[LiveSession], None],
        *,
        config: Config,
        address: str = "",
        ice_servers: Callable[[], list[Any]] = list,
        admission: Admission | None = None,
        event_log: NodeLog | None = None,
    ):
        """``event_log``: where every event its viewers get is appended, in seq order (resume, viewers on
        other nodes, failover read it)."""
        self.session = session
        self.address = address
        self.viewer_token = new_secret()
        self.join_token = new_secret()  # lets others join a room (never the access token)
        self.viewers: set[ClientChannel] = set()
        self._config = config
        self._ice_servers = ice_servers
        self._metrics = metrics
        self._admission = admission
        self._on_finished = on_finished
        # In the session directory (any node may then serve its viewers): awaited before a publisher's welcome.
        self.registered: asyncio.Task[None] | None = None
        if event_log is not None:
            self.registered = asyncio.ensure_future(event_log.session_started(self.id, token_digest(self.viewer_token)))
        # The first publisher (every WHIP session has one too); a room adds more.
        self.participants: list[Participant] = [self._participant(session, "", address)]
        self._leaving: set[Participant] = set()  # still hear the session until their speech is flushed
        self._finish_task: asyncio.Task[None] | None = None
        self.fanout = FanOut(
            self.id, self.channels, metrics, event_log, media_wall=self.media_wall, is_room=lambda: self.is_room
        )
        session.bus.subscribe(self.fanout.on_event)
        self._watchdog = asyncio.ensure_future(self._watch())

    def _participant(self, sink: MediaSink, name: str, address: str) -> Participant:
        return Participant(
            sink, config=self._config, metrics=self._metrics, ice_servers=self._ice_servers, name=name, address=address
        )

    @property
    def id(self) -> str:
        return self.session.id

    @property
    def seq(self) -> int:
        """The seq of the session's last event: a client that joins now gets the events after it (deltas
        still being merged carry seqs up to it, and go out to the others before the newcomer joins)."""
        return self.session.bus.seq

    @property
    def finishing(self) -> bool:
        return self._finish_task is not None

    @property
    def is_room(self) -> bool:
        return self.session.room is not None

    @property
    def host(self) -> Participant | None:
        """The first publisher still in the session."""
        return self.participants[0] if self.participants else None

    # The first publisher's connection and media, as a session without a room has them.
    @property
    def publisher(self) -> ClientChannel | None:
        return self.host.channel if self.host else None

    @property
    def ingest(self) -> WebRTCIngest | None:
        return self.host.ingest if self.host else None

    @property
    def viewer_url(self) -> str:
        """The page that watches this session (relative to the server's address)."""
        return f"/?session={self.id}&role=viewer&token={self.viewer_token}"

    @property
    def join_url(self) -> str:
        """The page that joins this room as a new participant (it asks for a name)."""
        return f"/?session={self.id}&role=join&token={self.join_token}"

    def channels(self) -> list[ClientChannel]:
        publishers = [p.channel for p in (*self.participants, *self._leaving) if p.channel is not None]
        return publishers + list(self.viewers)

    def participant_of(self, channel: ClientChannel) -> Participant | None:
        return next((p for p in self.participants if p.channel is channel), None)

    def by_resume_token(self, token: str) -> Participant | None:
        return next((p for p in self.participants if tokens_match(token, p.resume_token)), None)

    def add_viewer(self, channel: ClientChannel, *, snapshot: bool) -> None:
        """A late joiner first gets what it missed, then live events (nothing lost, nothing twice)."""
        self._send_snapshot(channel, snapshot)
        self.viewers.add(channel)

    def open_room(self, name: Any) -> None:
        """The first publisher named itself: the session is a room, and it its first participant.
        Raises :class:`Refusal` for a bad name."""
        host = self.participants[0]
        host.sink = self._join_room(name)
        host.name = host.sink.name

    def join(self, name: Any, address: str) -> Participant:
        """Another publisher joins the room, within the room's size and the machine's measured capacity;
        raises :class:`Refusal`."""
        if self._admission is not None:
            verdict = self._admission.admit_participant()
            if verdict is not None:
                raise Refusal(verdict.code, verdict.message, CLOSE_TRY_LATER)
        stream = self._join_room(name)
        participant = self._participant(stream, stream.name, address)
        self.participants.append(participant)
        return participant

    def _join_room(self, name: Any) -> RoomStream:
        try:
            return self.session.join(name)
        except RosterError as exc:
            raise Refusal(exc.code, exc.message, CLOSE_POLICY) from None

    def attach(self, participant: Participant, channel: ClientChannel, *, snapshot: bool) -> None:
        """A publisher's connection (first, or back within the grace period: it then gets the snapshot)."""
        back = participant.attach(channel)
        self._send_snapshot(channel, snapshot)
        if back:
            self.session.notice("publisher_back", f"{participant.who} is back")

    def _send_snapshot(self, channel: ClientChannel, snapshot: bool) -> None:
        self.fanout.flush()  # the frames before the snapshot go out first: nothing twice
        if snapshot:
            for event in self.session.snapshot():
                channel.put(event.to_json())

    def remove(self, channel: ClientChannel) -> None:
        self.viewers.discard(channel)
        participant = self.participant_of(channel)
        if participant is not None:
            participant.channel = None

    def publisher_gone(self, participant: Participant) -> None:
        """A publisher's websocket dropped: keep its place for the grace period."""
        grace = self._config.resume_grace_s
        log.info("session %s: %s left; %g s to resume", self.id, participant.who, grace)
        participant.gone()
        self.session.notice("publisher_away", f"{participant.who} disconnected; waiting {grace:g} s for a resume")

    def leave(self, participant: Participant, error: tuple[str, str] | None = None) -> None:
        """A publisher is done: in a room with others still in it, only its streams end (speech flushed
        first); else the session ends."""
        if self.finishing or participant not in self.participants:
            return
        if not self.is_room or len(self.participants) == 1:
            self.finish(error)
            return
        self.participants.remove(participant)
        self._leaving.add(participant)
        asyncio.ensure_future(self._leave(participant, error))

    async def _leave(self, participant: Participant, error: tuple[str, str] | None) -> None:
        try:
            await participant.drop_ingest()
            await self.session.leave(participant.name, error[0] if error else "")
        except Exception:
            log.exception("session %s: %s did not leave cleanly", self.id, participant.who)
        finally:
            self._leaving.discard(participant)
            if participant.channel is not None:
                participant.channel.finish(CLOSE_NORMAL, "you left the room")
        if not self.participants and not self.finishing:
            self.finish()

    def media_wall(self, media_time: float, speaker: str = "") -> float | None:
        participant = next((p for p in self.participants if p.name == speaker), None)
        return participant.media_wall(media_time) if participant is not None else None

    def media_flowing(self) -> bool:
        return any(p.media_flowing() for p in self.participants)

    async def accept_offer(self, sdp: str, still_wanted: Callable[[], bool] = lambda: True) -> str:
        """The first publisher's offer (WHIP); see :meth:`Participant.accept_offer`."""
        host = self.participants[0]
        return await host.accept_offer(sdp, lambda: not self.finishing and still_wanted())

    async def _watch(self) -> None:
        while True:
            await asyncio.sleep(WATCH_EVERY_S)
            for participant in list(self.participants):
                verdict = participant.verdict()
                if verdict is not None:
                    log.info("session %s: %s", self.id, verdict[1])
                    self.leave(participant, verdict)
            if self.finishing:
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
            for participant in self.participants:
                await participant.drop_ingest()
            if error is not None:
                self.session.error(*error, fatal=True)
            await self.session.end(drain_s=drain_s)
        except Exception:
            log.exception("session %s did not end cleanly", self.id)
        finally:
            self.fanout.flush()
            for participant in self.participants:
                self._on_finished(self)
            close = (CLOSE_GOING_AWAY, "server shutting down") if going_away else (CLOSE_NORMAL, "session ended")
            for channel in self.channels():
                channel.finish(*close)


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
        self.event_log: NodeLog | None = None  # set by the server once its store is open
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
            session, self._metrics, self._finished, config=self.config, address=address,
            ice_servers=self._ice_servers, admission=self._admission, event_log=self.event_log,
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
