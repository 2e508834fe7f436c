"""The live service: the page (``streamtwin/web/``), ``/healthz``, ``/metrics`` and ``/ws`` in one asyncio process.

This module wires the parts together, starts listening and shuts down; each part has a module of its own:
the ``/ws`` conversation (:mod:`streamtwin.service.conversation`), hellos and who joins what
(:mod:`~streamtwin.service.joins`), the running sessions and their fan-out (:mod:`~streamtwin.service.registry`,
:mod:`~streamtwin.service.fanout`), static files and ``/healthz`` (:mod:`~streamtwin.service.http`), WHIP on the
same port (:mod:`~streamtwin.service.whip`, routed by :mod:`~streamtwin.service.front`), who may connect and
how many (:mod:`~streamtwin.service.access`, :mod:`~streamtwin.service.admission`), ICE servers
(:mod:`~streamtwin.service.ice`), and viewers fed from the event log (:mod:`~streamtwin.service.log_viewers`).
The ``serve`` command around it is streamtwin/cli/serve.py; the protocol is documented in docs/protocol.md.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from pathlib import Path
from typing import Any

from websockets.asyncio.server import Server as WsServer
from websockets.asyncio.server import ServerConnection
from websockets.asyncio.server import serve as ws_serve
from websockets.http11 import Request, Response

from streamtwin.service.channel import CLOSE_FLUSH_S
from streamtwin.service.conversation import Conversations, client_address
from streamtwin.config import Config
from streamtwin.speech.engine import ENGINE_METRICS
from streamtwin.eventlog.store import EventStore
from streamtwin.eventlog.open import open_store
from streamtwin.eventlog.node_log import NodeLog
from streamtwin.service.front import front_connection, listen_socket
from streamtwin.service.http import TEXT, HttpFront, find_web_root, response
from streamtwin.service.joins import Joins
from streamtwin.service.log_viewers import LogViewers
from streamtwin.service.native_memory import NativeMemory, glibc
from streamtwin.service.metrics import ServiceMetrics
from streamtwin.service.access import allowed_origins, check_bind
from streamtwin.service.admission import Admission, Limits
from streamtwin.service.past_meetings import PastMeetings
from streamtwin.service.proxies import BadProxy, TrustedProxies
from streamtwin.service.whip_rules import Head
from streamtwin.service.whip_rules import Rules as WhipRules
from streamtwin.service.protocol import CLOSE_GOING_AWAY
from streamtwin.service.registry import LiveSession, Registry, SessionFactory
from streamtwin.session import Session
from streamtwin.service.ice import IceServers
from streamtwin.service.whip import WhipEndpoint

log = logging.getLogger(__name__)

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
        backend: Any = None,
    ):
        """``store``: the event store, already opened; default: the one ``config`` names (in memory without
        ``--redis``), opened by :meth:`open_store` or :meth:`start`.  ``backend``: the language model that answers
        questions over all meetings (with ``--redis``; None: none are).  Raises :class:`ConfigError` for an unsafe
        configuration (a public address without a token), before anything is opened."""
        self.config = config
        self._store = store
        self.log: NodeLog | None = None  # this node's event log, from start() on
        self.log_viewers = LogViewers()  # viewers fed from the log (resumed, or of another node's session)
        self.admission = Admission(limits(config), speech_load=ENGINE_METRICS.recent_load)
        self.metrics = ServiceMetrics(
            lambda: len(self.sessions), self._client_counts,
            events_lost=lambda: self.log.writer.queue.lost_total if self.log is not None else 0,
        )
        problem = check_bind(config.host, config.token)
        if problem:  # before anything is opened or bound
            raise ConfigError(problem)
        try:
            self.proxies = TrustedProxies(config.trusted_proxy)
        except BadProxy as exc:
            raise ConfigError(str(exc)) from None
        ice = IceServers(config)
        self.registry = Registry(
            config, session_factory or make_session_factory(), self.metrics, self.admission, ice.for_server
        )
        self.meetings = PastMeetings(backend)
        self.http = HttpFront(
            (web_root or find_web_root()).resolve(), self.metrics.render, config.allow_host, self._ws_gate,
            status=lambda: "degraded" if self.log is not None and self.log.degraded else "ok",
            allow_embed=config.allow_embed, meetings=self.meetings.offer,
        )
        self.whip = WhipEndpoint(self.registry, self.admission, WhipRules(config.token), ice.for_client)
        self.conversations = Conversations(
            config, self.metrics, Joins(config, self.admission, self.registry, self.log_viewers, ice.for_client),
            self.proxies, self.meetings,
        )
        self._ws_server: WsServer | None = None
        self._closed = False
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

    async def open_store(self) -> None:
        """Open the event store ``config`` names, if not yet open (``streamtwin serve`` does it before loading
        models, so a bad store fails in a second); raises :class:`~streamtwin.eventlog.open.StoreError`."""
        if self._store is None:
            self._store = await open_store(self.config)

    async def start(self) -> None:
        """Listen; raises OSError when the port is taken, :class:`~streamtwin.eventlog.open.StoreError` for an
        event store that cannot be used."""
        await self.open_store()
        assert self._store is not None
        self.log = NodeLog(
            self._store, secrets.token_hex(6), on_unavailable=self._store_unavailable, on_reaped=self._reaped,
            on_lost=self._events_lost, viewer_counts=self._viewer_counts,
        )
        self.registry.event_log = self.log
        self.log_viewers.open(self.log)
        if self.config.redis:  # an event log in memory holds only this process's sessions: not offered
            self.meetings.open(self._store)
        log.info("node %s; event log %s", self.log.node, "in Redis" if self.config.redis else "in memory")
        self.memory.start()
        if any("@" in url for url in self.config.ice_servers):
            log.warning("TURN credentials in --ice-servers stay on the server; give browsers TURN with --turn-secret")
        config = self.config
        sock = listen_socket(config.host, config.port)
        origins = allowed_origins(sock.getsockname()[1], config.allow_host, config.allow_origin)
        self.whip.rules = WhipRules(config.token, config.allow_host, origins, config.whip_max_offer_bytes)
        self._ws_server = await ws_serve(
            self.conversations,
            sock=sock,
            process_request=self.http,
            # /whip requests go to self.whip, with the client's address as the trusted proxies name it
            create_connection=front_connection(self.whip, OPEN_TIMEOUT_S, self._http_client),
            origins=origins,
            max_size=self.config.max_message_bytes,
            compression=None,  # deflate per client costs CPU the speech model needs; JPEGs do not shrink
            server_header="streamtwin",
            open_timeout=OPEN_TIMEOUT_S,
            close_timeout=CLOSE_TIMEOUT_S,
        )

    async def close(self) -> None:
        """Stop accepting, end every session (speech flushed, ``session.ended`` sent, close 1001),
        close every other client with 1001; bounded by ``shutdown_timeout_s``.  Closing twice does nothing."""
        if self._closed:
            return
        self._closed = True
        await self.memory.close()
        await self.meetings.close()
        if self._ws_server is None:  # never listened (or the port was taken): only the log or store to close
            if self.log is not None:
                await self.log.close()
            elif self._store is not None:
                await self._store.close()
            return
        budget = self.config.shutdown_timeout_s
        deadline = asyncio.get_running_loop().time() + budget
        self._ws_server.server.close()  # no new connections from here on
        self.whip.close()
        for channel in list(self.conversations.channels):
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

    def _events_lost(self, session: str, first: int) -> None:
        """Once per loss (until it is reported in the log): the session's viewers are told at once."""
        live = self.sessions.get(session)
        if live is not None and not live.finishing:
            live.session.notice(
                "events_lost",
                f"the event log could not keep this session's events from seq {first} on (the event store refused "
                "or could not take them): viewers who join or resume later miss them; this connection missed nothing",
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

    # --- connections ---------------------------------------------------------------------

    def _ws_gate(self, connection: ServerConnection, request: Request) -> Response | None:
        """Admission of a websocket upgrade, before the handshake: per-address and total caps."""
        address = client_address(connection, self.proxies)
        verdict = self.admission.admit_connection(address)
        if verdict is not None:
            self.metrics.errors.labels(verdict.code).inc()
            status = 503 if verdict.code == "busy" else 429
            return response(status, f"{verdict.message}\n".encode(), TEXT)
        asyncio.ensure_future(self._release_when_closed(connection, address))
        return None

    def _http_client(self, peer: str, head: Head) -> str:
        """A plain HTTP request's client address (see :class:`~streamtwin.service.proxies.TrustedProxies`)."""
        return self.proxies.client(peer, head.values("forwarded"), head.values("x-forwarded-for"))

    async def _release_when_closed(self, connection: ServerConnection, address: str) -> None:
        try:
            await connection.wait_closed()
        finally:
            self.admission.release_connection(address)
