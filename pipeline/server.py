"""The live service: ``web/``, ``/healthz``, ``/metrics`` and the ``/ws`` endpoint in one asyncio process.

A publisher says hello, gets a session, sends a WebRTC offer and receives the
answer; its tracks feed a :class:`~pipeline.session.Session`.  Viewers join a
session by id.  Every client of a session (the publisher too) receives the
session's events exactly as ``streamtwin run --format jsonl`` prints them,
through its own :class:`~pipeline.policy.outbox.Outbox`: a slow client gets
merged or dropped deltas, or is disconnected, and never slows the session or the
other clients.  The protocol is documented in docs/protocol.md.
"""

from __future__ import annotations

import asyncio
import hmac
import json
import logging
import math
import mimetypes
import signal
import socket
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

from websockets.asyncio.server import Server as WsServer
from websockets.asyncio.server import ServerConnection
from websockets.asyncio.server import serve as ws_serve
from websockets.datastructures import Headers
from websockets.exceptions import ConnectionClosed
from websockets.http11 import Request, Response
from websockets.protocol import State

from .config import Config
from .events import AssistantDelta, Event
from .metrics import ServiceMetrics
from .policy.outbox import Outbox
from .protocol import (
    CLOSE_INTERNAL,
    CLOSE_NORMAL,
    CLOSE_POLICY,
    CLOSE_TRY_LATER,
    Refusal,
    close_reason,
    error_message,
    offer_sdp,
    parse_client_message,
    parse_hello,
)
from .session import Session
from .webrtc import OfferError, WebRTCIngest, ice_servers_json

log = logging.getLogger(__name__)

JOIN_TIMEOUT_S = 15.0
# A small kernel send buffer keeps a slow client's backlog in its outbox, where deltas are merged
# or dropped, instead of megabytes aging in the kernel (Linux autotunes it up to 4 MB on loopback).
SEND_BUFFER_BYTES = 256 * 1024

SessionFactory = Callable[[Config, "str | None", str], Session]


def make_session_factory(backend: Any = None) -> SessionFactory:
    """Live sessions sharing one LLM backend (a local model is loaded once, not per session)."""

    def make(config: Config, session_id: str | None, source: str) -> Session:
        return Session(config, source=source, realtime=True, session_id=session_id, backend=backend)

    return make


def find_web_root() -> Path:
    """``web/`` beside the package (a checkout), else ``./web`` (an installed package run from the repo)."""
    beside = Path(__file__).resolve().parent.parent / "web"
    return beside if beside.is_dir() else Path.cwd() / "web"


class ClientChannel:
    """Drains one client's :class:`Outbox` into its websocket; the only task that sends to it."""

    def __init__(self, ws: ServerConnection, metrics: ServiceMetrics):
        self.ws = ws
        self.outbox = Outbox()
        self._metrics = metrics
        self._wake = asyncio.Event()
        self._closing: tuple[int, str] | None = None
        self._dropped_seen = 0
        self._dropped = False
        self.role = ""
        self.live: LiveSession | None = None
        self.task = asyncio.ensure_future(self._run())

    def put(self, text: str) -> None:
        if not self.outbox.put(text):
            self._drop()
        self._wake.set()

    def put_delta(self, now: float, generation: int, text: str, envelope: dict[str, Any]) -> None:
        self.outbox.put_delta(now, generation, text, envelope)
        self._wake.set()

    def send(self, message: dict[str, Any]) -> None:
        self.put(json.dumps(message, ensure_ascii=False))

    def error(self, code: str, message: str, *, fatal: bool = False) -> None:
        self._metrics.errors.inc(code)
        self.put(error_message(code, message, fatal=fatal))

    def finish(self, code: int, reason: str) -> None:
        """Close once everything queued (and every pending delta) has been sent."""
        if self._closing is None:
            self._closing = (code, close_reason(reason))
        self._wake.set()

    def _backlog(self) -> int:
        transport = self.ws.transport
        return transport.get_write_buffer_size() if transport is not None else 0

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        try:
            while True:
                backlog = self._backlog()
                # Closing: pending deltas go out now rather than after their window.
                messages = self.outbox.take(math.inf if self._closing else loop.time(), backlog)
                self._count_dropped()
                for message in messages:
                    await self.ws.send(message)
                if messages:
                    continue
                if self._closing is not None:
                    await self.ws.close(*self._closing)
                    return
                due = self.outbox.next_due(backlog)
                self._wake.clear()
                if due is None:
                    await self._wake.wait()
                elif due > loop.time():
                    try:
                        await asyncio.wait_for(self._wake.wait(), due - loop.time())
                    except TimeoutError:
                        pass
        except ConnectionClosed:
            return

    def _count_dropped(self) -> None:
        total = self.outbox.coalescer.dropped_chars_total
        if total > self._dropped_seen:
            self._metrics.delta_chars_dropped.inc(amount=total - self._dropped_seen)
            self._dropped_seen = total

    def _drop(self) -> None:
        """The client cannot keep up: stop sending and close with the reason."""
        if self._dropped:
            return
        self._dropped = True
        reason = self.outbox.overflow or "too slow"
        log.warning("dropping a %s of session %s: %s", self.role or "client",
                    self.live.id if self.live else "-", reason)
        self._metrics.clients_dropped.inc()
        if self.live is not None:
            self.live.remove(self)
        self.task.cancel()
        asyncio.ensure_future(self.ws.close(CLOSE_TRY_LATER, close_reason(reason)))


class LiveSession:
    """A running session: its publisher, its viewers, the WebRTC ingest and the fan-out between them."""

    def __init__(self, session: Session, metrics: ServiceMetrics, on_finished: Callable[[LiveSession], None]):
        self.session = session
        self.publisher: ClientChannel | None = None
        self.viewers: set[ClientChannel] = set()
        self.ingest: WebRTCIngest | None = None
        self._metrics = metrics
        self._on_finished = on_finished
        self._deltas: list[AssistantDelta] = []
        self._flush_scheduled = False
        self._finish_task: asyncio.Task[None] | None = None
        self._loop = asyncio.get_running_loop()
        session.bus.subscribe(self._on_event)

    @property
    def id(self) -> str:
        return self.session.id

    @property
    def finishing(self) -> bool:
        return self._finish_task is not None

    def channels(self) -> list[ClientChannel]:
        return ([self.publisher] if self.publisher is not None else []) + list(self.viewers)

    def add_viewer(self, channel: ClientChannel, *, snapshot: bool) -> None:
        """A late joiner first gets what it missed, then live events (nothing lost, nothing twice)."""
        self._flush_deltas()
        if snapshot:
            for event in self.session.snapshot():
                channel.put(event.to_json())
        self.viewers.add(channel)

    def remove(self, channel: ClientChannel) -> None:
        self.viewers.discard(channel)
        if self.publisher is channel:
            self.publisher = None

    def media_wall(self, media_time: float) -> float | None:
        return self.ingest.media_wall(media_time) if self.ingest is not None else None

    def finish(self, error: tuple[str, str] | None = None) -> asyncio.Task[None]:
        """End the session once (flush speech, ``session.ended``), then close every client."""
        if self._finish_task is None:
            self._finish_task = asyncio.ensure_future(self._finish(error))
        return self._finish_task

    async def _finish(self, error: tuple[str, str] | None) -> None:
        try:
            if self.ingest is not None:
                await self.ingest.close()
            if error is not None:
                self.session.error(*error, fatal=True)
            await self.session.end()
        except Exception:
            log.exception("session %s did not end cleanly", self.id)
        finally:
            self._flush_deltas()
            self._on_finished(self)
            for channel in self.channels():
                channel.finish(CLOSE_NORMAL, "session ended")

    def _on_event(self, event: Event) -> None:
        if type(event) is AssistantDelta:  # the hot path: one append per token
            self._deltas.append(event)
            if not self._flush_scheduled:
                self._flush_scheduled = True
                self._loop.call_soon(self._flush_deltas)
            return
        self._flush_deltas()
        self._metrics.on_event(event, self.media_wall)
        text = event.to_json()
        for channel in self.channels():
            channel.put(text)

    def _flush_deltas(self) -> None:
        """Hand the deltas emitted since the last flush to every client, merged per generation run."""
        self._flush_scheduled = False
        batch, self._deltas = self._deltas, []
        if not batch:
            return
        self._metrics.events.inc(AssistantDelta.type, amount=len(batch))
        runs: list[tuple[int, str, dict[str, Any]]] = []
        start = 0
        for i in range(1, len(batch) + 1):
            if i == len(batch) or batch[i].generation != batch[start].generation:
                envelope = batch[i - 1].to_dict()
                del envelope["text"]
                runs.append((batch[start].generation, "".join([d.text for d in batch[start:i]]), envelope))
                start = i
        now = self._loop.time()
        for channel in self.channels():
            for generation, text, envelope in runs:
                channel.put_delta(now, generation, text, envelope)


class Server:
    """The websocket service; ``start()`` listens, ``close()`` ends every session and stops."""

    def __init__(
        self,
        config: Config,
        *,
        session_factory: SessionFactory | None = None,
        web_root: Path | None = None,
    ):
        self.config = config
        self.session_factory = session_factory or make_session_factory()
        self.web_root = (web_root or find_web_root()).resolve()
        self.sessions: dict[str, LiveSession] = {}
        self.metrics = ServiceMetrics(lambda: len(self.sessions), self._client_counts)
        self._ws_server: WsServer | None = None

    @property
    def port(self) -> int:
        assert self._ws_server is not None
        return self._ws_server.sockets[0].getsockname()[1]

    async def start(self) -> None:
        self._ws_server = await ws_serve(
            self._handle,
            self.config.host,
            self.config.port,
            process_request=self._http,
            max_size=self.config.max_message_bytes,
            compression=None,  # deflate per client costs CPU the speech model needs; JPEGs do not shrink
            server_header="streamtwin",
        )

    async def close(self) -> None:
        """End every session (flushing what was heard), then stop listening."""
        await asyncio.gather(*(live.finish() for live in list(self.sessions.values())), return_exceptions=True)
        if self._ws_server is not None:
            self._ws_server.close(close_connections=True)
            await self._ws_server.wait_closed()

    def _client_counts(self) -> dict[tuple[str, ...], float]:
        viewers = sum(len(live.viewers) for live in self.sessions.values())
        publishers = sum(live.publisher is not None for live in self.sessions.values())
        return {("publisher",): publishers, ("viewer",): viewers}

    # --- HTTP ------------------------------------------------------------------------

    def _http(self, connection: ServerConnection, request: Request) -> Response | None:
        path = unquote(urlsplit(request.path).path)
        if path == "/ws":
            if not self._origin_allowed(request):
                origin = request.headers.get("Origin")
                log.warning("refused /ws from origin %s", origin)
                return connection.respond(403, f"origin {origin} is not allowed\n")
            if "upgrade" not in request.headers.get("Connection", "").lower():
                return connection.respond(426, "/ws is the websocket endpoint (see docs/protocol.md)\n")
            return None
        if path == "/healthz":
            return _response(200, b'{"status":"ok"}\n', "application/json")
        if path == "/metrics":
            return _response(200, self.metrics.render().encode(), "text/plain; version=0.0.4; charset=utf-8")
        return self._static(path)

    def _static(self, path: str) -> Response:
        relative = "index.html" if path in ("", "/") else path.lstrip("/")
        try:
            candidate = (self.web_root / relative).resolve()
            found = candidate.is_relative_to(self.web_root) and candidate.is_file()
        except (OSError, ValueError):  # e.g. an encoded NUL byte
            found = False
        if not found:
            return _response(404, b"not found\n", "text/plain; charset=utf-8")
        kind = mimetypes.guess_type(candidate.name)[0] or "application/octet-stream"
        if kind in ("text/javascript", "application/javascript", "text/html", "text/css"):
            kind += "; charset=utf-8"
        return _response(200, candidate.read_bytes(), kind)

    def _origin_allowed(self, request: Request) -> bool:
        origin = request.headers.get("Origin")
        allowed = self.config.allowed_origins
        if origin is None or not allowed or "*" in allowed or origin in allowed:
            return True
        return urlsplit(origin).netloc == request.headers.get("Host")  # the page we serve ourselves

    # --- websocket ---------------------------------------------------------------------

    async def _handle(self, ws: ServerConnection) -> None:
        sock = ws.transport.get_extra_info("socket")
        if sock is not None:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, SEND_BUFFER_BYTES)
        channel = ClientChannel(ws, self.metrics)
        query_token = parse_qs(urlsplit(ws.request.path).query).get("token", [""])[0] if ws.request else ""
        join_by = asyncio.get_running_loop().time() + JOIN_TIMEOUT_S
        try:
            await self._converse(ws, channel, query_token)
        except Exception:  # a bug: say so once, end this connection, keep serving the others
            log.exception("a %s connection failed", channel.role or "client")
            channel.error("internal", "internal server error", fatal=True)
            channel.finish(CLOSE_INTERNAL, "internal error")
        finally:
            self._leave(channel)
            if ws.state is not State.OPEN:  # nothing more can be sent
                channel.task.cancel()
            else:
                channel.finish(CLOSE_INTERNAL, "internal error")  # a no-op when a close is already queued
            await asyncio.gather(channel.task, return_exceptions=True)

    async def _converse(self, ws: ServerConnection, channel: ClientChannel, query_token: str) -> None:
        join_by = asyncio.get_running_loop().time() + JOIN_TIMEOUT_S
        while not channel.task.done():
            try:
                async with asyncio.timeout_at(join_by if channel.live is None else None):
                    raw = await ws.recv()
            except TimeoutError:
                channel.error("hello_timeout", f"no hello within {JOIN_TIMEOUT_S:.0f} s", fatal=True)
                channel.finish(CLOSE_POLICY, "no hello")
                return
            except ConnectionClosed:
                return
            try:
                await self._dispatch(channel, parse_client_message(raw), query_token)
            except Refusal as refusal:
                channel.error(refusal.code, refusal.message, fatal=refusal.close is not None)
                if refusal.close is not None:
                    channel.finish(refusal.close, refusal.message)
                    return

    async def _dispatch(self, channel: ClientChannel, message: dict[str, Any], query_token: str) -> None:
        kind = message["type"]
        if kind == "hello":
            if channel.live is not None:
                raise Refusal("already_joined", f"already joined session {channel.live.id} as {channel.role}")
            await self._hello(channel, message, query_token)
            return
        if channel.live is None:
            raise Refusal("hello_required", 'say hello first: {"type": "hello", "role": "publisher" | "viewer"}')
        if channel.role != "publisher":
            raise Refusal("not_publisher", f"only the publisher of a session may send {kind!r}")
        if kind == "offer":
            await self._offer(channel.live, message)
        elif kind == "end":
            channel.live.finish()

    async def _hello(self, channel: ClientChannel, message: dict[str, Any], query_token: str) -> None:
        if self.config.token:
            given = message.get("token") or query_token
            if not isinstance(given, str) or not hmac.compare_digest(given.encode(), self.config.token.encode()):
                what = "a wrong" if given else "no"
                raise Refusal("unauthorized", f"{what} access token: pass ?token= or a hello token", CLOSE_POLICY)
        hello = parse_hello(message)
        if hello.role == "viewer":
            self._join_viewer(channel, hello.session, hello.options)
        else:
            await self._open_session(channel, hello.session, hello.options)

    def _join_viewer(self, channel: ClientChannel, session_id: str | None, options: dict[str, Any]) -> None:
        live = self.sessions.get(session_id or "")
        if live is None or live.finishing:
            raise Refusal("no_such_session", f"no running session {session_id!r}", CLOSE_POLICY)
        if len(live.viewers) >= self.config.max_viewers:
            raise Refusal(
                "too_many_viewers", f"session {live.id} has its maximum of {self.config.max_viewers} viewers",
                CLOSE_TRY_LATER,
            )
        snapshot = options.get("snapshot", True) is not False
        channel.role, channel.live = "viewer", live
        channel.send({"type": "welcome", "session": live.id, "role": "viewer", "options": {"snapshot": snapshot}})
        live.add_viewer(channel, snapshot=snapshot)

    def open_session(self, session_id: str | None = None, source: str = "webrtc") -> LiveSession:
        """A new session with no clients yet (publishers get one from their hello); raises :class:`Refusal`."""
        if len(self.sessions) >= self.config.max_sessions:
            raise Refusal(
                "too_many_sessions", f"the server runs its maximum of {self.config.max_sessions} sessions",
                CLOSE_TRY_LATER,
            )
        if session_id is not None and session_id in self.sessions:
            raise Refusal("session_exists", f"session {session_id} already has a publisher", CLOSE_POLICY)
        try:
            session = self.session_factory(self.config, session_id, source)
        except Exception as exc:
            log.exception("cannot create a session")
            raise Refusal("internal", f"cannot start a session: {exc}", CLOSE_INTERNAL) from None
        live = LiveSession(session, self.metrics, self._finished)
        self.sessions[live.id] = live
        self.metrics.sessions_total.inc()
        log.info("session %s opened (%s)", live.id, source)
        return live

    async def _open_session(self, channel: ClientChannel, session_id: str | None, options: dict[str, Any]) -> None:
        source = options.get("source")
        source = source[:200] if isinstance(source, str) and source else "webrtc"
        live = self.open_session(session_id, source)
        channel.role, channel.live = "publisher", live
        live.publisher = channel
        channel.send(
            {
                "type": "welcome",
                "session": live.id,
                "role": "publisher",
                "viewer_url": f"/?session={live.id}&role=viewer",
                "ice_servers": ice_servers_json(self.config.ice_servers),
                "max_message_bytes": self.config.max_message_bytes,
                "options": {"source": source},
            }
        )
        await live.session.start()

    async def _offer(self, live: LiveSession, message: dict[str, Any]) -> None:
        sdp = offer_sdp(message)
        if live.ingest is not None:
            raise Refusal("already_streaming", "this session already receives media; start a new session instead")
        if live.finishing:
            raise Refusal("session_ended", "this session has ended")
        ingest = WebRTCIngest(live.session, self.config.ice_servers, on_ended=live.finish, metrics=self.metrics)
        try:
            answer = await ingest.answer(sdp)
        except OfferError as exc:
            await ingest.close()
            raise Refusal("bad_sdp", str(exc)) from None
        if live.finishing:  # the publisher left while we answered
            await ingest.close()
            raise Refusal("session_ended", "this session has ended")
        live.ingest = ingest
        if live.publisher is not None:
            live.publisher.send({"type": "answer", "sdp": answer})

    def _leave(self, channel: ClientChannel) -> None:
        live = channel.live
        if live is None:
            return
        live.remove(channel)
        if channel.role == "publisher" and not live.finishing:
            log.info("session %s: the publisher left", live.id)
            live.finish(("publisher_left", "the publisher disconnected; the session ended"))

    def _finished(self, live: LiveSession) -> None:
        self.sessions.pop(live.id, None)
        log.info("session %s closed", live.id)


def _response(status: int, body: bytes, content_type: str) -> Response:
    reason = {200: "OK", 404: "Not Found"}.get(status, "")
    headers = Headers(
        [
            ("Content-Type", content_type),
            ("Content-Length", str(len(body))),
            ("Cache-Control", "no-cache"),
            ("Connection", "close"),
        ]
    )
    return Response(status, reason, headers, body)


async def serve(config: Config) -> int:
    """``streamtwin serve``: run until SIGINT/SIGTERM; every session is flushed and ended on the way out."""
    from .llm.base import LLMError
    from .llm.factory import make_backend
    from .speech import ModelLoadError, load_whisper

    loop = asyncio.get_running_loop()
    try:  # load the models once, before the first visitor waits for them
        await loop.run_in_executor(None, load_whisper, config.asr_model, config.threads)
        backend = make_backend(config)
    except (ModelLoadError, LLMError, ValueError) as exc:
        sys.stderr.write(f"streamtwin: error: {exc}\n")
        return 1
    try:
        start_backend = getattr(backend, "start", None)
        if start_backend is not None:
            try:
                await start_backend()
            except LLMError as exc:  # sessions still transcribe; each one reports the missing model
                sys.stderr.write(f"streamtwin: warning: language model unavailable: {exc}\n")
        server = Server(config, session_factory=make_session_factory(backend))
        try:
            await server.start()
        except OSError as exc:
            reason = exc.strerror or exc
            sys.stderr.write(f"streamtwin: error: cannot listen on {config.host}:{config.port}: {reason}\n")
            return 1
        stop = asyncio.Event()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        host = f"[{config.host}]" if ":" in config.host else config.host
        sys.stderr.write(f"streamtwin: serving http://{host}:{server.port} (websocket /ws, /healthz, /metrics)\n")
        await stop.wait()
        sys.stderr.write("streamtwin: shutting down\n")
        await server.close()
        return 0
    finally:
        if backend is not None:
            await backend.aclose()
