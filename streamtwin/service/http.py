"""The plain-HTTP side of the service: static files of ``streamtwin/web/``, ``/healthz``, ``/metrics``, ``/meetings``
(whether the page may offer "Ask all meetings"), the ``/ws`` gate.

:class:`HttpFront` is websockets' ``process_request`` hook: it answers every
request that is not a websocket upgrade of ``/ws`` and refuses any request whose
``Host`` is not this machine (DNS rebinding).  It never raises: a request it
cannot make sense of is a 400, not a traceback.
"""

from __future__ import annotations

import logging
import mimetypes
from collections.abc import Callable
from importlib import resources
from pathlib import Path
from urllib.parse import unquote

from websockets.asyncio.server import ServerConnection
from websockets.datastructures import Headers, MultipleValuesError
from websockets.http11 import Request, Response

from streamtwin.service.access import host_allowed
from streamtwin.service.http_rules import BASE_HEADERS, content_security_policy

log = logging.getLogger(__name__)

REASONS = {200: "OK", 400: "Bad Request", 403: "Forbidden", 404: "Not Found", 426: "Upgrade Required",
           429: "Too Many Requests", 503: "Service Unavailable"}
TEXT = "text/plain; charset=utf-8"

# A gate for websocket upgrades (connection caps): a refusal response, or None to go on.
WsGate = Callable[[ServerConnection, Request], "Response | None"]


def find_web_root() -> Path:
    """The page ships inside the package (package data): a checkout and an installed wheel serve the same files,
    whatever the current folder."""
    return Path(str(resources.files("streamtwin") / "web"))


def request_path(target: str) -> str:
    """The decoded path of a request target, without query or fragment (never raises)."""
    return unquote(target.split("?", 1)[0].split("#", 1)[0])


def request_query(target: str) -> str:
    return target.split("?", 1)[1].split("#", 1)[0] if "?" in target else ""


class HttpFront:
    def __init__(
        self,
        web_root: Path,
        metrics_text: Callable[[], str],
        allowed_hosts: list[str],
        ws_gate: WsGate,
        status: Callable[[], str] = lambda: "ok",
        allow_embed: list[str] | None = None,
        meetings: Callable[[], bytes | None] = lambda: None,
    ):
        """``status()``: what /healthz says ("ok", or "degraded" while the event store is unreachable);
        ``allow_embed``: origins whose pages may frame this one (``--allow-embed``); ``meetings()``: what
        /meetings says (JSON) when past meetings can be asked, None when they cannot (404)."""
        self.web_root = web_root
        self._policy = content_security_policy(allow_embed or [])
        self._status = status
        self._metrics_text = metrics_text
        self._allowed_hosts = allowed_hosts
        self._ws_gate = ws_gate
        self._meetings = meetings

    def __call__(self, connection: ServerConnection, request: Request) -> Response | None:
        reply = self._answer(connection, request)
        if reply is not None:  # every page, file and refusal (not the websocket's 101)
            reply.headers["Content-Security-Policy"] = self._policy
        return reply

    def _answer(self, connection: ServerConnection, request: Request) -> Response | None:
        try:
            host = request.headers.get("Host")
            upgrade = "upgrade" in request.headers.get("Connection", "").lower()
        except MultipleValuesError:
            return response(400, b"one Host and one Connection header, please\n", TEXT)
        if not host_allowed(host, self._allowed_hosts):
            log.info("refused a request for host %r", (host or "")[:100])
            return response(403, b"this host name is not served here (see --allow-host)\n", TEXT)
        path = request_path(request.path)
        if path == "/ws":
            if not upgrade:
                return response(426, b"/ws is the websocket endpoint (see docs/protocol.md)\n", TEXT)
            return self._ws_gate(connection, request)
        if path == "/healthz":
            # 200 either way: a degraded node still serves its sessions (a load balancer must not drop it)
            return response(200, b'{"status":"%s"}\n' % self._status().encode(), "application/json")
        if path == "/metrics":
            return response(200, self._metrics_text().encode(), "text/plain; version=0.0.4; charset=utf-8")
        if path == "/meetings":  # says no more than that a store and a model are there: the asking wants the token
            body = self._meetings()
            if body is None:
                return response(404, b"asking all meetings needs serve --redis URL and a language model\n", TEXT)
            return response(200, body, "application/json")
        return self._static(path)

    def _static(self, path: str) -> Response:
        relative = "index.html" if path in ("", "/") else path.lstrip("/")
        try:
            candidate = (self.web_root / relative).resolve()
            found = candidate.is_relative_to(self.web_root) and candidate.is_file()
        except (OSError, ValueError):  # e.g. an encoded NUL byte
            found = False
        if not found:
            return response(404, b"not found\n", TEXT)
        kind = mimetypes.guess_type(candidate.name)[0] or "application/octet-stream"
        if kind in ("text/javascript", "application/javascript", "text/html", "text/css"):
            kind += "; charset=utf-8"
        return response(200, candidate.read_bytes(), kind)


def response(status: int, body: bytes, content_type: str) -> Response:
    headers = Headers(
        [
            ("Content-Type", content_type),
            ("Content-Length", str(len(body))),
            ("Cache-Control", "no-cache"),
            ("Connection", "close"),
            *BASE_HEADERS,
        ]
    )
    return Response(status, REASONS.get(status, ""), headers, body)
