"""Publish media to a streamtwin server over WebRTC and receive the session's events.

The source (a file, URL, RTSP stream or a camera such as ``/dev/video0``) is
played in real time by aiortc's ``MediaPlayer``; its tracks go to the server,
whose session events come back on the websocket.  When the source ends the
publisher asks the server to end the session, and is done once ``session.ended``
arrives (speech is flushed first).  The ``streamtwin stream`` command around it
is streamtwin/cli/stream.py.

With a ``name`` the session is a room that others may join; ``session``, ``name`` and
``join_token`` join one (the first publisher's welcome carries the token, and its
join link).  A participant who leaves a room that others are still in gets its own
``participant.left`` (its speech flushed first) instead of ``session.ended``.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
from collections.abc import AsyncIterator, Callable
from typing import Any
from urllib.parse import urlencode, urlsplit, urlunsplit

from aiortc import (
    RTCConfiguration,
    RTCIceServer,
    RTCPeerConnection,
    RTCSessionDescription,
)
from aiortc.contrib.media import MediaPlayer
from aiortc.mediastreams import MediaStreamTrack
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidURI

from streamtwin.events import (
    AssistantDone,
    AssistantStarted,
    Event,
    EventSchemaError,
    ParticipantLeft,
    SessionEnded,
    from_dict,
)
from streamtwin.media.ingest import NETWORK_PREFIXES
from streamtwin.media.redact import redact

log = logging.getLogger(__name__)

END_GRACE_S = 0.5  # after the source ends, let the last packets arrive before asking to end
ENDED_TIMEOUT_S = 150.0  # the server flushes speech and drains the last answer (--llm-drain-s) first
OPEN_TIMEOUT_S = 10.0
# Errors that refuse a typed question (docs/protocol.md): the next one may be asked.
ASK_REFUSALS = frozenset({"bad_question", "ask_in_flight", "too_many_questions", "assistant_busy", "no_assistant"})


class PublishError(Exception):
    """Publishing failed; the message is one line for the person who ran the command."""


def ws_url(to: str, token: str = "") -> str:
    """``ws://host:port`` (or http://, or a bare host:port) -> the server's ``/ws`` URL."""
    parts = urlsplit(to if "://" in to else f"ws://{to}")
    scheme = {"http": "ws", "https": "wss"}.get(parts.scheme, parts.scheme)
    if scheme not in ("ws", "wss") or not parts.netloc:
        raise PublishError(f"--to needs a server address such as ws://127.0.0.1:8080, not {to!r}")
    path = parts.path if parts.path not in ("", "/") else "/ws"
    query = parts.query
    if token:
        query = "&".join(q for q in (query, urlencode({"token": token})) if q)
    return urlunsplit((scheme, parts.netloc, path, query, ""))


def open_player(source: str) -> MediaPlayer:
    """aiortc's player for a file, URL, RTSP stream or V4L2 camera, with one clear error if it cannot open."""
    kwargs: dict[str, Any] = {}
    if source.startswith("/dev/video"):
        kwargs["format"] = "v4l2"
    elif source.startswith("rtsp://"):
        kwargs["options"] = {"rtsp_transport": "tcp"}
    elif not source.startswith(NETWORK_PREFIXES) and not os.path.exists(source):
        raise PublishError(f"no such file: {source}")
    try:
        player = MediaPlayer(source, timeout=OPEN_TIMEOUT_S, **kwargs)
    except Exception as exc:  # PyAV raises a dozen kinds; the person needs one line
        reason = getattr(exc, "strerror", None) or str(exc) or type(exc).__name__
        raise PublishError(f"cannot open {redact(source)}: {redact(reason)}") from None
    if player.audio is None and player.video is None:
        raise PublishError(f"{source} has neither audio nor video")
    return player


class Publication:
    """One publisher connection: hello, offer/answer, then the session's events to ``on_event``.

    ``run()`` returns once the session has ended (after ``finish()`` or when the
    main track ends) and raises :class:`PublishError` when the server refuses or vanishes.
    """

    def __init__(
        self,
        url: str,
        audio: MediaStreamTrack | None,
        video: MediaStreamTrack | None,
        *,
        on_event: Callable[[Event], None],
        on_message: Callable[[dict[str, Any]], None] = lambda message: None,
        label: str = "",
        name: str = "",
        session: str = "",
        join_token: str = "",
        questions: AsyncIterator[str] | None = None,
        language: str = "",
    ) -> None:
        """``questions``: typed to the assistant once media flows, each after the previous one's answer;
        ``language``: the language the source speaks, as a hint to the server's detection ("en", "de-AT")."""
        self.url = url
        self.tracks = [t for t in (audio, video) if t is not None]
        self.on_event = on_event
        self.on_message = on_message
        self.label = label
        self.name = name  # in a room: this participant's name (the server's welcome confirms it)
        self.session = session  # a room to join (with join_token), else a new session
        self.join_token = join_token
        self.language = language
        self.welcome: dict[str, Any] = {}
        self.ended: SessionEnded | ParticipantLeft | None = None
        self.questions = questions
        self._asked: tuple[str, int | None] | None = None  # the question waiting for its answer, its generation
        self._answered = asyncio.Event()
        self._finish = asyncio.Event()
        self.tracks[0].on("ended", self._finish.set)

    def finish(self) -> None:
        """Stop publishing: the server flushes the session and sends ``session.ended``."""
        self._finish.set()

    async def run(self) -> SessionEnded | ParticipantLeft:
        try:
            async with connect(self.url, open_timeout=OPEN_TIMEOUT_S, max_size=None) as ws:
                return await self._publish(ws)
        except (OSError, InvalidHandshake, InvalidURI, TimeoutError) as exc:
            reason = getattr(exc, "strerror", None) or str(exc) or type(exc).__name__
            raise PublishError(f"cannot connect to {redact(self.url)}: {reason}") from None

    def hello(self) -> dict[str, Any]:
        options: dict[str, Any] = {"source": self.label}
        if self.name:
            options["name"] = self.name
        if self.language:
            options["language"] = self.language
        message: dict[str, Any] = {"type": "hello", "role": "publisher", "options": options}
        if self.session:
            message.update(session=self.session, token=self.join_token)
        return message

    async def _publish(self, ws: ClientConnection) -> SessionEnded | ParticipantLeft:
        await ws.send(json.dumps(self.hello()))
        welcome = self.welcome = await self._expect(ws, "welcome")
        self.name = welcome.get("name", self.name)
        self.on_message(welcome)
        servers = [RTCIceServer(**server) for server in welcome.get("ice_servers", [])]
        pc = RTCPeerConnection(RTCConfiguration(iceServers=servers))
        try:
            for track in self.tracks:
                pc.addTrack(track)
            await pc.setLocalDescription(await pc.createOffer())  # aiortc gathers every candidate here
            await ws.send(json.dumps({"type": "offer", "sdp": pc.localDescription.sdp}))
            answer = await self._expect(ws, "answer")
            await pc.setRemoteDescription(RTCSessionDescription(sdp=answer["sdp"], type="answer"))
            helpers = [asyncio.ensure_future(self._end_when_finished(ws))]
            if self.questions is not None:
                helpers.append(asyncio.ensure_future(self._ask_each(ws, self.questions)))
            try:
                await self._events(ws)
            finally:
                for helper in helpers:
                    helper.cancel()
        finally:
            await pc.close()
        if self.ended is None:
            raise PublishError("the server closed the connection before the session ended")
        return self.ended

    async def _end_when_finished(self, ws: ClientConnection) -> None:
        await self._finish.wait()
        await asyncio.sleep(END_GRACE_S)
        await ws.send(json.dumps({"type": "end"}))
        await asyncio.sleep(ENDED_TIMEOUT_S)
        log.warning("no session.ended after %.0f s; giving up", ENDED_TIMEOUT_S)
        await ws.close()

    async def _ask_each(self, ws: ClientConnection, questions: AsyncIterator[str]) -> None:
        """Type each question to the assistant, one at a time: the next once this one is answered or refused."""
        async for line in questions:
            text = " ".join(line.split())
            if not text:
                continue
            self._asked, self._answered = (text, None), asyncio.Event()
            await ws.send(json.dumps({"type": "ask", "text": text}))
            await self._answered.wait()

    def _follow_answer(self, event: Event) -> None:
        """Notice when the question this publisher asked starts being answered, and when it is done."""
        if self._asked is None:
            return
        text, generation = self._asked
        if isinstance(event, AssistantStarted) and event.trigger == "question" and event.question == text:
            self._asked = (text, event.generation)
        elif isinstance(event, AssistantDone) and generation == event.generation:
            self._asked = None
            self._answered.set()

    async def _expect(self, ws: ClientConnection, kind: str) -> dict[str, Any]:
        """The next protocol message, which must be ``kind``; an error before it is fatal."""
        while True:
            message = await self._next(ws)
            if message is None:
                raise PublishError(f"the server closed the connection while we waited for {kind!r}")
            if message.get("type") == kind:
                return message
            if message.get("type") == "error":
                raise PublishError(f"the server refused: {message.get('message')} ({message.get('code')})")
            self.on_message(message)

    async def _events(self, ws: ClientConnection) -> None:
        while (message := await self._next(ws)) is not None:
            if message.get("type") == "error" and message.get("code") in ASK_REFUSALS and self._asked is not None:
                self._asked = None
                self._answered.set()
            self.on_message(message)

    async def _next(self, ws: ClientConnection) -> dict[str, Any] | None:
        """The next protocol message (events on the way go to ``on_event``); None once closed."""
        while True:
            try:
                raw = await ws.recv()
            except ConnectionClosed:
                return None
            message = json.loads(raw)
            if "v" not in message:
                return message
            try:
                event = from_dict(message)
            except EventSchemaError as exc:
                log.warning("ignoring an event this version cannot read: %s", exc)
                continue
            if isinstance(event, SessionEnded) or (isinstance(event, ParticipantLeft) and event.name == self.name):
                self.ended = event
            self._follow_answer(event)
            self.on_event(event)
