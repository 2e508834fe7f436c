"""One port, two kinds of request: the first request line of a connection decides who serves it.

websockets serves pages, ``/healthz``, ``/metrics`` and ``/ws``, but its HTTP parser refuses a
request with a body, which WHIP needs (an SDP offer is POSTed).  :class:`FrontConnection` is
the connection class websockets builds for every accepted socket: it holds the bytes back until
the request line is in and, when a :class:`PlainHttp` handler claims the target, switches the transport
to a :class:`HttpExchange`; else, once the whole head is in, it hands the connection to websockets
untouched, or answers 400 with the reason when websockets could not place the request (a body, two
requests in one write, a target that is not a path: websockets would close without a status).

:class:`HttpExchange` reads one request with h11 (head and body, each bounded in size and time),
asks the handler for a reply, writes it and closes.  It never raises into asyncio: garbage is a
400, a slow client a 408, a handler that fails a 500, and a client that vanishes is told to the
handler (:meth:`PlainHttp.undelivered`) so it can undo what the reply would have announced.
:func:`listen_socket` binds that one port.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import socket
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

import h11
from websockets.asyncio.server import ServerConnection

from streamtwin.service.http_rules import BASE_HEADERS, end_of_head, unplaceable
from streamtwin.service.whip_rules import Head, Reply, bad_request, internal_error, request_timeout, unavailable

log = logging.getLogger(__name__)

MAX_REQUEST_LINE = 8192  # websockets' own limit: a longer line goes to it and is refused there
MAX_HEAD_BYTES = 16 * 1024
LISTEN_BACKLOG = 1024
LINGER_S = 5.0  # after a reply, how long the client may take to close its side


def listen_socket(host: str, port: int) -> socket.socket:
    """Bind before serving, so the same-origin rule knows the port (also for ``--port 0``).

    A deep accept queue: during a connection flood, /healthz and honest clients still get in
    (Python's default of 128 overflowed in the flood tests and dropped a health check)."""
    if host in ("", "::"):
        return socket.create_server(("::", port), family=socket.AF_INET6, dualstack_ipv6=True, backlog=LISTEN_BACKLOG)
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    return socket.create_server((host, port), family=family, backlog=LISTEN_BACKLOG)


class PlainHttp(Protocol):
    """A handler of plain HTTP requests on the service's port (WHIP)."""

    def claims(self, target: str) -> bool: ...

    def early(self, head: Head, address: str) -> Reply | int:
        """A reply from the head alone (refusals, OPTIONS, DELETE), or how many body bytes to read."""

    def respond(self, head: Head, body: bytes, address: str) -> Awaitable[Reply]: ...

    def undelivered(self, reply: Reply) -> None:
        """The client left before ``reply`` could be sent."""


# A plain HTTP request's client address, from its peer's and its head (forwarding headers of a trusted proxy).
ClientOf = Callable[[str, Head], str]


def front_connection(plain: PlainHttp, timeout_s: float, client_of: ClientOf) -> Callable[..., ServerConnection]:
    """The ``create_connection`` for websockets' ``serve``."""
    return functools.partial(FrontConnection, plain=plain, timeout_s=timeout_s, client_of=client_of)


class FrontConnection(ServerConnection):
    def __init__(self, *args: Any, plain: PlainHttp, timeout_s: float, client_of: ClientOf, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._plain = plain
        self._timeout_s = timeout_s
        self._client_of = client_of
        self._first = bytearray()
        self._routed = False
        self._pending_transport: asyncio.Transport | None = None
        self._timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # websockets starts its handshake in connection_made; it waits until we know it is its request.
        assert isinstance(transport, asyncio.Transport)
        self._pending_transport = transport
        self._timer = asyncio.get_running_loop().call_later(self._timeout_s, transport.abort)

    def data_received(self, data: bytes) -> None:
        if self._routed:
            super().data_received(data)
            return
        self._first += data
        received = bytes(self._first)
        line_end = received.find(b"\n")
        if line_end < 0:
            if len(received) < MAX_REQUEST_LINE:
                return
            self._route(received, problem=None)  # websockets answers 414
            return
        target = received[:line_end].rstrip(b"\r").split(b" ")
        if len(target) == 3 and self._plain.claims(target[1].decode("latin-1")):
            self._route(received, problem=None, plain=True)  # WHIP reads its body itself
            return
        head_end = end_of_head(received)
        if head_end < 0:
            if len(received) < MAX_HEAD_BYTES:
                return
            self._route(received, problem=None)  # websockets answers for its own limits
            return
        self._route(received, problem=unplaceable(received[:head_end], trailing=len(received) > head_end))

    def _route(self, received: bytes, *, problem: str | None, plain: bool = False) -> None:
        """Hand the connection on: to WHIP's exchange (``plain``), to a 400 saying ``problem``, or to websockets."""
        self._routed = True
        transport = self._pending_transport
        assert transport is not None and self._timer is not None
        self._timer.cancel()
        self._pending_transport, self._first = None, bytearray()
        if plain or problem is not None:
            exchange = HttpExchange(self._plain, self._timeout_s, self._client_of)
            transport.set_protocol(exchange)
            exchange.connection_made(transport)
            if problem is None:
                exchange.data_received(received)
            else:
                log.info("refused a request the router cannot place: %s", problem)
                exchange.refuse(bad_request(problem))
        else:
            super().connection_made(transport)
            super().data_received(received)

    def eof_received(self) -> bool | None:
        if self._routed:
            return super().eof_received()
        return None  # closed before a request line: the transport closes itself

    def connection_lost(self, exc: Exception | None) -> None:
        if self._routed:
            super().connection_lost(exc)
        elif self._timer is not None:
            self._timer.cancel()


class HttpExchange(asyncio.Protocol):
    """One request, one reply, then the connection closes."""

    def __init__(self, plain: PlainHttp, timeout_s: float, client_of: ClientOf):
        self._plain = plain
        self._timeout_s = timeout_s
        self._client_of = client_of
        self._h11 = h11.Connection(h11.SERVER, max_incomplete_event_size=MAX_HEAD_BYTES)
        self._transport: asyncio.Transport | None = None
        self._address = ""
        self._head: Head | None = None
        self._body = bytearray()
        self._max_body = 0
        self._state = "reading"  # -> "responding" (the handler works) -> "replied"
        self._gone = False
        self._timer: asyncio.TimerHandle | None = None
        self.task: asyncio.Task[None] | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self._transport = transport
        peer = transport.get_extra_info("peername")
        self._address = str(peer[0]) if peer else ""
        self._timer = asyncio.get_running_loop().call_later(self._timeout_s, self._timed_out)

    def data_received(self, data: bytes) -> None:
        if self._state == "reading":  # later bytes (after a reply is decided) are read and dropped
            self._h11.receive_data(data)
            self._read()

    def eof_received(self) -> bool | None:
        if self._state == "reading":
            self._h11.receive_data(b"")
            self._read()
        elif self._state == "responding":
            # A client that closes while its request is handled has left (HTTP clients keep their side
            # open until the reply; a vanished one may never read it): its reply is undelivered.
            log.info("an HTTP client at %s left before its reply", self._address)
            self._gone = True
        return None  # close

    def connection_lost(self, exc: Exception | None) -> None:
        self._gone = True
        self._stop_timer()

    def _read(self) -> None:
        try:
            while self._state == "reading":
                event = self._h11.next_event()
                if event is h11.NEED_DATA:
                    return
                if isinstance(event, h11.Request):
                    self._on_head(event)
                elif isinstance(event, h11.Data):
                    self._body += event.data
                    if len(self._body) > self._max_body:
                        self._reply(Reply(413, body=f"the body may have at most {self._max_body} bytes\n".encode()))
                elif isinstance(event, h11.EndOfMessage):
                    self._state = "responding"
                    self._stop_timer()
                    self.task = asyncio.ensure_future(self._respond())
                else:  # the client closed before a whole request: nobody to answer
                    self._reply(bad_request("the request ended early"))
        except h11.RemoteProtocolError:  # (h11's message may quote a header, a token too: not logged)
            log.info("a malformed HTTP request from %s", self._address)
            self._reply(bad_request("a malformed HTTP request"))
        except Exception:  # a bug: this request fails, the service goes on
            log.exception("an HTTP request from %s failed", self._address)
            self._reply(internal_error())

    def _on_head(self, event: h11.Request) -> None:
        headers = tuple((name.decode("latin-1").lower(), value.decode("latin-1")) for name, value in event.headers)
        self._head = Head(event.method.decode("latin-1"), event.target.decode("latin-1"), headers)
        self._address = self._client_of(self._address, self._head)
        early = self._plain.early(self._head, self._address)
        if isinstance(early, Reply):
            self._reply(early)
            return
        self._max_body = early
        if self._h11.they_are_waiting_for_100_continue and self._transport is not None:
            self._transport.write(self._h11.send(h11.InformationalResponse(status_code=100, headers=[])) or b"")

    async def _respond(self) -> None:
        assert self._head is not None
        try:
            reply = await self._plain.respond(self._head, bytes(self._body), self._address)
        except asyncio.CancelledError:  # the server is shutting down
            self._reply(unavailable())
            raise
        except Exception:
            log.exception("a %s %s failed", self._head.method, self._head.path)
            reply = internal_error()
        self._reply(reply)

    def refuse(self, reply: Reply) -> None:
        """Answer at once, whatever the request (what it still sends is read and dropped)."""
        self._reply(reply)

    def _timed_out(self) -> None:
        self._timer = None
        if self._state == "reading":
            self._reply(request_timeout())
        else:  # replied long ago and the client never closed: let go of the connection
            if self._transport is not None:
                self._transport.abort()

    def _stop_timer(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _reply(self, reply: Reply) -> None:
        """Send ``reply``, then half-close; the client's close (or a linger timeout) ends the connection.
        Closing at once could reset a connection whose unread body is still arriving, losing the reply."""
        self._state = "replied"
        self._stop_timer()
        transport = self._transport
        if transport is None or self._gone or transport.is_closing():
            self._plain.undelivered(reply)
            return
        head_only = self._head is not None and self._head.method == "HEAD"
        try:
            transport.write(serialize(reply, head_only=head_only))
        except ValueError:
            log.exception("an unsendable reply (%d)", reply.status)
            transport.write(serialize(internal_error()))
        if transport.can_write_eof():
            transport.write_eof()
            self._timer = asyncio.get_running_loop().call_later(LINGER_S, self._timed_out)
        else:
            transport.close()


def serialize(reply: Reply, *, head_only: bool = False) -> bytes:
    """An HTTP/1.1 response that closes the connection (headers are the server's own, never echoed raw)."""
    headers = [
        ("Content-Type", reply.content_type),
        ("Content-Length", str(len(reply.body))),
        ("Cache-Control", "no-store"),
        ("Connection", "close"),
        ("Server", "streamtwin"),
        *BASE_HEADERS,
        *reply.headers,
    ]
    lines = [f"HTTP/1.1 {reply.status} {reply.reason}"] + [f"{name}: {value}" for name, value in headers]
    if any("\r" in line or "\n" in line for line in lines):
        raise ValueError("a header with a line break")
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + (b"" if head_only else reply.body)
