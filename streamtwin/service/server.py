"""The live service: the page (``streamtwin/web/``), ``/healthz``, ``/metrics`` and ``/ws`` in one asyncio process.

A publisher says hello, gets a session, sends a WebRTC offer and receives the
answer; its tracks feed a :class:`~streamtwin.session.Session`.  Viewers join a
session by id and that session's viewer token.  Every client of a session (the
publisher too) receives the session's events exactly as ``streamtwin run
--format jsonl`` prints them, through its own channel (streamtwin/service/channel.py).
WHIP publishers (OBS, GStreamer, FFmpeg) POST their offer to ``/whip`` on the
same port instead (streamtwin/service/whip.py; streamtwin/service/front.py routes those requests).
This module holds the conversation, start-up and shutdown (the ``serve`` command around it is
streamtwin/cli/serve.py); HTTP is in streamtwin/service/http.py, message parsing in streamtwin/service/protocol.py, hellos (who joins
what) in streamtwin/service/joins.py, who may connect in streamtwin/service/access.py and
admission.py, the sessions in streamtwin/service/registry.py, the event log (resume,
viewers of other nodes' sessions, failover) in streamtwin/eventlog/ and
streamtwin/service/log_viewers.py.
The protocol is documented in docs/protocol.md.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import socket
import time
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

from websockets.asyncio.server import Server as WsServer
from websockets.asyncio.server import ServerConnection
from websockets.asyncio.server import serve as ws_serve
from websockets.exceptions import ConnectionClosed
from websockets.http11 import Request, Response
from websockets.protocol import State

from streamtwin.service.channel import CLOSE_FLUSH_S, ClientChannel
from streamtwin.config import Config
from streamtwin.speech.engine import ENGINE_METRICS
from streamtwin.eventlog.store import EventStore
from streamtwin.eventlog.open import open_store
from streamtwin.eventlog.node_log import NodeLog
from streamtwin.service.front import front_connection, listen_socket
from streamtwin.service.http import TEXT, HttpFront, find_web_root, request_query, response
from streamtwin.service.joins import Joins
from streamtwin.service.log_viewers import LogViewers
from streamtwin.service.native_memory import NativeMemory, glibc
from streamtwin.service.metrics import ServiceMetrics
from streamtwin.service.access import allowed_origins, check_bind, turn_credentials
from streamtwin.service.admission import Admission, Limits
from streamtwin.service.whip_rules import Rules as WhipRules
from streamtwin.service.protocol import (
    CLOSE_GOING_AWAY,
    CLOSE_INTERNAL,
    CLOSE_POLICY,
    Refusal,
    offer_sdp,
    parse_client_message,
    parse_hello,
)
from streamtwin.service.participant import Participant
from streamtwin.service.registry import LiveSession, Registry, SessionFactory
from streamtwin.session import Session
from streamtwin.service.webrtc import OfferError, ice_servers, ice_servers_json
from streamtwin.service.whip import WhipEndpoint

log = logging.getLogger(__name__)

# A small kernel send buffer keeps a slow client's backlog in its outbox, where deltas are merged
# or dropped, instead of megabytes aging in the kernel (Linux autotunes it up to 4 MB on loopback).
SEND_BUFFER_BYTES = 256 * 1024
OPEN_TIMEOUT_S = 5.0  # a TCP connection must finish its HTTP/websocket handshake by then
CLOSE_TIMEOUT_S = 2.0


class ConfigError(Exception):
    """The service must not start as configured (one line for the person who started it)."""


def make_session_factory(backend: Any = None) -> SessionFactory:
    """Live sessions sharing one LLM backend (a local model is loaded once, not per session)."""

    def make(config: Config, session_id: str | None, source: str) -> Session:
        return Session(config, source=source, realtime=True, session_id=session_id, backend=backend)

    return make


def limits(config: Config) -> Limits:
    return Limits(
        max_connections=config.max_connections,
        max_connections_per_address=config.max_connections_per_address,
        max_sessions=config.max_sessions,
        max_sessions_per_address=config.max_sessions_per_address or config.max_sessions,
        max_speech_load=config.max_speech_load,
        auth_failures=config.auth_failures_per_min,
        auth_window_s=60.0,
    )


class Server:
    """The websocket service; ``start()`` listens, ``close()`` ends every session and stops."""

    def __init__(
        self,
        config: Config,
        *,
        session_factory: SessionFactory | None = None,
        web_root: Path | None = None,
        store: EventStore | None = None,
    ):
        """``store``: the event store, already opened (``streamtwin serve`` checks it before loading models);
        default: the one ``config`` names (in memory without ``--redis``), opened by :meth:`start`."""
        self.config = config
        self._store = store
        self.log: NodeLog | None = None  # this node's event log, from start() on
        self.log_viewers = LogViewers()  # viewers fed from the log (resumed, or of another node's session)
        self.admission = Admission(limits(config), speech_load=ENGINE_METRICS.recent_load)
        self.metrics = ServiceMetrics(lambda: len(self.sessions), self._client_counts)
        self.registry = Registry(
            config, session_factory or make_session_factory(), self.metrics, self.admission, self._server_ice
        )
        self.http = HttpFront(
            (web_root or find_web_root()).resolve(), self.metrics.render, config.allow_host, self._ws_gate,
            status=lambda: "degraded" if self.log is not None and self.log.degraded else "ok",
        )
        self.whip = WhipEndpoint(self.registry, self.admission, WhipRules(config.token), self._client_ice)
        self.joins = Joins(config, self.admission, self.registry, self.log_viewers, self._client_ice)
        self._channels: set[ClientChannel] = set()
        self._ws_server: WsServer | None = None
        self.memory = NativeMemory(
            config.malloc_trim_s, config.malloc_arena_max, config.malloc_mmap_threshold, glibc(),
            idle=lambda: not self.sessions,
        )

    @property
    def sessions(self) -> dict[str, LiveSession]:
        return self.registry.sessions

    @property
    def port(self) -> int:
        assert self._ws_server is not None
        return self._ws_server.sockets[0].getsockname()[1]

    async def start(self) -> None:
        """Listen; raises :class:`ConfigError` for an unsafe configuration, OSError when the port is taken,
        :class:`~streamtwin.eventlog.open.StoreError` for an event store that cannot be used."""
        problem = check_bind(self.config.host, self.config.token)
        if problem:
            raise ConfigError(problem)
        store = self._store or await open_store(self.config)
        self.log = NodeLog(
            store, secrets.token_hex(6), on_unavailable=self._store_unavailable, on_reaped=self._reaped,
            viewer_counts=self._viewer_counts,
        )
        self.registry.event_log = self.log
        self.log_viewers.open(self.log)
        log.info("node %s; event log %s", self.log.node, "in Redis" if self.config.redis else "in memory")
        self.memory.start()
        if any("@" in url for url in self.config.ice_servers):
            log.warning("TURN credentials in --ice-servers stay on the server; give browsers TURN with --turn-secret")
        config = self.config
        sock = listen_socket(config.host, config.port)
        origins = allowed_origins(sock.getsockname()[1], config.allow_host, config.allow_origin)
        self.whip.rules = WhipRules(config.token, config.allow_host, origins, config.whip_max_offer_bytes)
        self._ws_server = await ws_serve(
            self._handle,
            sock=sock,
            process_request=self.http,
            create_connection=front_connection(self.whip, OPEN_TIMEOUT_S),  # /whip requests go to self.whip
            origins=origins,
            max_size=self.config.max_message_bytes,
            compression=None,  # deflate per client costs CPU the speech model needs; JPEGs do not shrink
            server_header="streamtwin",
            open_timeout=OPEN_TIMEOUT_S,
            close_timeout=CLOSE_TIMEOUT_S,
        )

    async def close(self) -> None:
        """Stop accepting, end every session (speech flushed, ``session.ended`` sent, close 1001),
        close every other client with 1001; bounded by ``shutdown_timeout_s``."""
        await self.memory.close()
        if self._ws_server is None:  # never listened (or the port was taken): only the log to close
            if self.log is not None:
                await self.log.close()
            return
        budget = self.config.shutdown_timeout_s
        deadline = asyncio.get_running_loop().time() + budget
        self._ws_server.server.close()  # no new connections from here on
        self.whip.close()
        for channel in list(self._channels):
            if channel.live is None:
                channel.finish(CLOSE_GOING_AWAY, "server shutting down")
        await self.registry.end_all(
            going_away=True, drain_s=min(self.config.llm_drain_s, budget / 2), timeout=budget - CLOSE_FLUSH_S
        )
        self.log_viewers.close()
        self._ws_server.close(close_connections=True, code=CLOSE_GOING_AWAY, reason="server shutting down")
        remaining = max(deadline - asyncio.get_running_loop().time(), CLOSE_FLUSH_S)
        try:
            await asyncio.wait_for(self._ws_server.wait_closed(), remaining)
        except TimeoutError:
            log.warning("connections still open after %.0f s; cutting them off", budget)
            for connection in list(self._ws_server.connections):
                connection.transport.abort()
            for task in list(self._ws_server.handler_tasks):
                task.cancel()
        if self.log is not None:
            await self.log.close()

    def _store_unavailable(self, reason: str) -> None:
        """Once per outage: each session here tells its viewers (the reason may name the store: logs only)."""
        for live in list(self.sessions.values()):
            live.session.error(
                "store_unavailable",
                "the event log is unreachable; this session goes on, its events are kept and stored when it is back",
            )

    def _reaped(self, sessions: list[str]) -> None:
        log.info("ended the sessions of a dead node: %s (their viewers learn it from the log)", ", ".join(sessions))

    def open_session(self, source: str = "webrtc", address: str = "") -> LiveSession:
        """A new session with no clients yet (publishers get one from their hello); raises :class:`Refusal`."""
        return self.registry.open(source, address)

    def _viewer_counts(self) -> dict[str, int]:
        """Viewers served here, by session (told to the other nodes at each heartbeat)."""
        counts = self.log_viewers.counts()
        for live in self.sessions.values():
            counts[live.id] = counts.get(live.id, 0) + len(live.viewers)
        return counts

    def _client_counts(self) -> dict[tuple[str, ...], float]:
        viewers = sum(len(live.viewers) for live in self.sessions.values()) + self.log_viewers.total
        publishers = sum(p.channel is not None for live in self.sessions.values() for p in live.participants)
        return {("publisher",): publishers, ("viewer",): viewers}

    def _server_ice(self) -> list[Any]:
        return ice_servers(self.config.ice_servers, self._turn_credentials("streamtwin"))

    def _client_ice(self, session_id: str) -> list[dict[str, Any]]:
        return ice_servers_json(self.config.ice_servers, self._turn_credentials(session_id))

    def _turn_credentials(self, user: str) -> tuple[str, str] | None:
        if not self.config.turn_secret:
            return None
        return turn_credentials(self.config.turn_secret, user, time.time(), self.config.turn_ttl_s)

    # --- connections ---------------------------------------------------------------------

    def _ws_gate(self, connection: ServerConnection, request: Request) -> Response | None:
        """Admission of a websocket upgrade, before the handshake: per-address and total caps."""
        address = _address(connection)
        verdict = self.admission.admit_connection(address, time.monotonic())
        if verdict is not None:
            self.metrics.errors.labels(verdict.code).inc()
            status = 503 if verdict.code == "busy" else 429
            return response(status, f"{verdict.message}\n".encode(), TEXT)
        asyncio.ensure_future(self._release_when_closed(connection, address))
        return None

    async def _release_when_closed(self, connection: ServerConnection, address: str) -> None:
        try:
            await connection.wait_closed()
        finally:
            self.admission.release_connection(address)

    async def _handle(self, ws: ServerConnection) -> None:
        sock = ws.transport.get_extra_info("socket")
        if sock is not None:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, SEND_BUFFER_BYTES)
            # asyncio sets TCP_NODELAY only on sockets made with proto=IPPROTO_TCP, which a socket from
            # socket.create_server is not: without it Nagle holds a small frame back until the client
            # acknowledges the previous one (milliseconds of delayed ACK per message).
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        channel = ClientChannel(ws, self.metrics, _address(ws))
        self._channels.add(channel)
        query_token = parse_qs(request_query(ws.request.path)).get("token", [""])[0] if ws.request else ""
        try:
            await self._converse(ws, channel, query_token)
        except Exception:  # a bug: say so once, end this connection, keep serving the others
            log.exception("a %s connection failed", channel.role or "client")
            channel.error("internal", "internal server error", fatal=True)
            channel.finish(CLOSE_INTERNAL, "internal error")
        finally:
            self._channels.discard(channel)
            self._leave(channel)
            if ws.state is not State.OPEN:  # nothing more can be sent
                channel.task.cancel()
            else:
                channel.finish(CLOSE_INTERNAL, "internal error")  # a no-op when a close is already queued
            await asyncio.gather(channel.task, return_exceptions=True)

    async def _converse(self, ws: ServerConnection, channel: ClientChannel, query_token: str) -> None:
        timeout = self.config.hello_timeout_s
        join_by = asyncio.get_running_loop().time() + timeout
        while not channel.task.done():
            try:
                async with asyncio.timeout_at(join_by if channel.live is None else None):
                    raw = await ws.recv()
            except TimeoutError:
                channel.error("hello_timeout", f"no hello within {timeout:g} s", fatal=True)
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
        live = channel.live
        if kind == "hello":
            if live is not None:
                raise Refusal("already_joined", f"already joined session {live.id} as {channel.role}")
            await self.joins.hello(channel, parse_hello(message), query_token)
            return
        if live is None:
            raise Refusal("hello_required", 'say hello first: {"type": "hello", "role": "publisher" | "viewer"}')
        if channel.role != "publisher":
            raise Refusal("not_publisher", f"only the publisher of a session may send {kind!r}")
        participant = live.participant_of(channel)
        if participant is None:
            raise Refusal("replaced", "another connection resumed this session", CLOSE_POLICY)
        if kind == "offer":
            await self._offer(channel, live, participant, offer_sdp(message))
        elif kind == "end":
            live.leave(participant)  # in a room with others: only this publisher's streams end

    # --- media ---------------------------------------------------------------------------

    async def _offer(self, channel: ClientChannel, live: LiveSession, participant: Participant, sdp: str) -> None:
        if participant.media_flowing() and not participant.resumed:
            raise Refusal("already_streaming", "this publisher already sends media; start a new session instead")
        participant.resumed = False  # one replacement of the media per resume
        try:
            answer = await participant.accept_offer(
                sdp, still_wanted=lambda: not live.finishing and participant.channel is channel
            )
        except OfferError as exc:
            raise Refusal("bad_sdp", str(exc)) from None
        channel.send({"type": "answer", "sdp": answer})

    def _leave(self, channel: ClientChannel) -> None:
        live = channel.live
        if live is None:
            return
        if channel.role == "viewer":  # a LiveSession or a LogViewer
            live.remove(channel)
            return
        # (a publisher dropped as too slow was already removed; one that another connection resumed was not it)
        participant = live.participant_of(channel)
        live.remove(channel)
        if channel.role != "publisher" or participant is None or live.finishing:
            return
        # A close frame is a deliberate goodbye; a connection that just died may come back.
        if channel.ws.protocol.close_rcvd is not None:
            who = participant.who
            live.leave(participant, ("publisher_left", f"{who} closed its connection"))
        else:
            live.publisher_gone(participant)


def _address(connection: ServerConnection) -> str:
    peer = connection.remote_address
    return str(peer[0]) if peer else ""
