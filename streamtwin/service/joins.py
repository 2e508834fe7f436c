"""A client's hello, acted on: a publisher opens a session, joins a room or resumes its place; a viewer
joins a session run here (its live fan-out) or, resuming from a seq or watching a session of another
node, is fed from the event log (streamtwin/service/log_viewers.py).  Tokens are checked here, failures count
against the address (streamtwin/service/admission.py); a refusal is a :class:`~streamtwin.service.protocol.Refusal`.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from typing import Any

from streamtwin.service.channel import ClientChannel
from streamtwin.config import Config
from streamtwin.eventlog.store import SessionRecord, StoreUnavailable
from streamtwin.service.log_viewers import LogViewers
from streamtwin.service.participant import Participant
from streamtwin.service.access import digest_matches, tokens_match
from streamtwin.service.admission import Admission
from streamtwin.media.redact import redact
from streamtwin.rooms.roster import RosterError, clean_name
from streamtwin.service.protocol import CLOSE_POLICY, CLOSE_TRY_LATER, Hello, Refusal
from streamtwin.service.registry import LiveSession, Registry

log = logging.getLogger(__name__)

REGISTER_WAIT_S = 1.0  # a new session's directory entry, before its publisher (and viewer link) is welcomed


class Joins:
    """Hellos to this server: who may join which session, as what."""

    def __init__(
        self,
        config: Config,
        admission: Admission,
        registry: Registry,
        log_viewers: LogViewers,
        client_ice: Callable[[str], list[dict[str, Any]]],
    ):
        self.config = config
        self.admission = admission
        self.registry = registry
        self.log_viewers = log_viewers
        self._client_ice = client_ice

    async def hello(self, channel: ClientChannel, hello: Hello, query_token: str) -> None:
        """Act on a hello (raises :class:`Refusal`); the channel then has its role and session.

        The wrong-token lockout guards the one guessable secret, the access token: a viewer, join or resume
        token (128 random bits each) is accepted from a locked-out address, so a meeting goes on; the
        access token is not even looked at from there until the lockout has passed."""
        given = hello.token or query_token
        if hello.role == "viewer":
            await self._join_viewer(channel, hello, given)
        elif hello.session is not None and not hello.resume:
            self._join_room(channel, hello, given)
        elif hello.session is not None:
            self._resume(channel, hello)
        else:
            self.check_access_token(channel, given)
            await self._open_session(channel, hello)

    def check_access_token(self, channel: ClientChannel, given: str, what: str = "access token") -> None:
        """Refuse a missing or wrong access token (counted against the address), or any from a locked-out one;
        also for a page that asks all meetings (streamtwin/service/past_meetings.py)."""
        if not self.config.token:
            return
        now = time.monotonic()
        if self.admission.locked_out(channel.address, now):
            raise Refusal("rate_limited", "too many failed attempts from this address; try again later", CLOSE_POLICY)
        if not tokens_match(given, self.config.token):
            self.admission.auth_failed(channel.address, now)
            raise Refusal("unauthorized", f"a missing or wrong {what}", CLOSE_POLICY)

    async def _join_viewer(self, channel: ClientChannel, hello: Hello, given: str) -> None:
        """A session run here joins its live fan-out; one that resumes from a seq, or that runs on another
        node (the directory knows it), is fed from the log.  The session's viewer token lets it in; else
        the access token is checked as for a publisher."""
        live = self.registry.get(hello.session)
        if live is not None:
            ok = tokens_match(given, live.viewer_token)
            viewers = len(live.viewers) + self.log_viewers.count(live.id)
        else:
            record = await self._directory_record(hello.session)
            ok = digest_matches(given, record.viewer_key)
            viewers = self.log_viewers.count(record.id)
        if not ok:
            what = "viewer token (open the session's viewer link)"
            if not self.config.token:
                raise Refusal("unauthorized", f"a missing or wrong {what}", CLOSE_POLICY)
            self.check_access_token(channel, given, what)
        assert self.log_viewers.node_log is not None
        viewers += await self.log_viewers.node_log.viewers_elsewhere(str(hello.session))
        if viewers >= self.config.max_viewers:
            raise Refusal(
                "too_many_viewers", f"the session has its maximum of {self.config.max_viewers} viewers",
                CLOSE_TRY_LATER,
            )
        channel.role = "viewer"
        options: dict[str, Any] = {"snapshot": hello.snapshot}
        if hello.resume_from is not None:
            options["resume_from"] = hello.resume_from
        welcome = {"type": "welcome", "session": hello.session, "role": "viewer", "options": options}
        # The welcome says the seq this viewer's events start after (``resume_from``: the snapshot is as of
        # it), so the viewer can resume from there before any event has come.
        if live is not None and hello.resume_from is None:
            channel.send({**welcome, "resume_from": live.seq})
            channel.live = live
            live.add_viewer(channel, snapshot=hello.snapshot)
        else:  # the feed sends the welcome once it knows that seq (a snapshot is read from the log first)
            channel.live = self.log_viewers.add(
                channel, str(hello.session), hello.resume_from, snapshot=hello.snapshot, welcome=welcome)

    async def _directory_record(self, session: str | None) -> SessionRecord:
        """The directory's entry for a session run on another node (or over, its log still kept)."""
        assert self.log_viewers.node_log is not None
        try:
            record = await self.log_viewers.node_log.record(session or "")
        except StoreUnavailable:
            raise Refusal("store_unavailable", "the session directory is unreachable; try again", CLOSE_TRY_LATER)
        if record is None:
            raise Refusal("no_such_session", "no running session with that id", CLOSE_POLICY)
        return record

    async def _open_session(self, channel: ClientChannel, hello: Hello) -> None:
        source = redact(hello.source)
        if hello.name is not None:  # a room: check the name before a session is opened for it
            try:
                clean_name(hello.name)
            except RosterError as exc:
                raise Refusal(exc.code, exc.message, CLOSE_POLICY) from None
        live = self.registry.open(source, channel.address)
        if live.registered is not None:  # a store that is down must not hold the publisher long
            await asyncio.wait([live.registered], timeout=REGISTER_WAIT_S)
        if hello.name is not None:
            live.open_room(hello.name)
        participant = live.participants[0]
        if hello.language:
            participant.sink.hint_language(hello.language)
        channel.role, channel.live = "publisher", live
        live.attach(participant, channel, snapshot=False)
        self._welcome_publisher(channel, live, participant, source)
        await live.session.start()

    def _join_room(self, channel: ClientChannel, hello: Hello, given: str) -> None:
        """Another publisher joins a room with its join token (from the first publisher's welcome)."""
        live = self.registry.get(hello.session)
        if live is None:
            raise Refusal("no_such_session", "no running session with that id", CLOSE_POLICY)
        # Only a room's publishers ever see its join token (a session without a name has no room to join).
        if not (live.is_room and tokens_match(given, live.join_token)):
            raise Refusal("unauthorized", "a missing or wrong join token (open the room's join link)", CLOSE_POLICY)
        participant = live.join(hello.name, channel.address)
        if hello.language:
            participant.sink.hint_language(hello.language)
        channel.role, channel.live = "publisher", live
        self._welcome_publisher(channel, live, participant, live.session.source)
        live.attach(participant, channel, snapshot=hello.snapshot)  # the snapshot holds who is in the room

    def _resume(self, channel: ClientChannel, hello: Hello) -> None:
        live = self.registry.get(hello.session)
        participant = live.by_resume_token(hello.resume) if live is not None else None
        if live is None or participant is None:
            raise Refusal("unauthorized", "a wrong session id or resume token", CLOSE_POLICY)
        channel.role, channel.live = "publisher", live
        participant.resumed = True
        participant.rotate_resume_token()  # a leaked token is good for one takeover, not for the session
        log.info("session %s: %s resumed", live.id, participant.who)
        self._welcome_publisher(channel, live, participant, live.session.source, resumed=True)
        live.attach(participant, channel, snapshot=hello.snapshot)

    def _welcome_publisher(
        self, channel: ClientChannel, live: LiveSession, participant: Participant, source: str, resumed: bool = False
    ) -> None:
        welcome = {
            "type": "welcome",
            "session": live.id,
            "role": "publisher",
            "resumed": resumed,
            "viewer_url": live.viewer_url,
            "viewer_token": live.viewer_token,
            "resume_token": participant.resume_token,
            "resume_grace_s": self.config.resume_grace_s,
            "media": participant.media_flowing(),
            "ice_servers": self._client_ice(live.id),
            "max_message_bytes": self.config.max_message_bytes,
            "options": {"source": source},
        }
        if live.is_room:  # who this publisher is, and how others join
            welcome.update(name=participant.name, join_url=live.join_url, join_token=live.join_token)
        channel.send(welcome)

    # --- media ---------------------------------------------------------------------------
