"""``streamtwin mcp --http``: the same door as ``serve`` in front of the SDK's streamable HTTP app.

A request is served only when its ``Host`` names this machine (an IP literal, ``localhost`` or an
``--allow-host`` name: the DNS-rebinding guard of streamtwin/service/access.py) and, when a token is set,
it carries it (``Authorization: Bearer TOKEN``, or ``?token=TOKEN`` for clients that cannot set a header),
compared in constant time.  ``check_bind`` refuses a public address without a token before anything starts.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any
from urllib.parse import parse_qs

from streamtwin.service.access import host_allowed, tokens_match

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]


def verdict(
    host: str | None, authorization: str, query: str, token: str, allow_host: list[str]
) -> tuple[int, str] | None:
    """Why a request is refused (status, message), or None to serve it."""
    if not host_allowed(host, allow_host):
        return 403, "this host name is not served (use an IP address or localhost, or --allow-host NAME)"
    if not token:
        return None
    scheme, _, given = authorization.partition(" ")
    if scheme.lower() != "bearer" or not given.strip():
        given = (parse_qs(query).get("token") or [""])[0]
    if not tokens_match(given.strip(), token):
        return 401, "missing or wrong token (Authorization: Bearer TOKEN)"
    return None


class HttpGate:
    """ASGI middleware: :func:`verdict` for every HTTP request, the app for the ones it lets through."""

    def __init__(self, app: App, token: str, allow_host: list[str]) -> None:
        self.app = app
        self.token = token
        self.allow_host = allow_host

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":  # lifespan
            await self.app(scope, receive, send)
            return
        headers = {name.decode("latin-1").lower(): value.decode("latin-1") for name, value in scope["headers"]}
        refused = verdict(headers.get("host"), headers.get("authorization", ""),
                          scope.get("query_string", b"").decode("latin-1"), self.token, self.allow_host)
        if refused is None:
            await self.app(scope, receive, send)
            return
        status, message = refused
        body = f"{message}\n".encode()
        extra = [(b"www-authenticate", b'Bearer realm="streamtwin"')] if status == 401 else []
        await send({"type": "http.response.start", "status": status, "headers": [
            (b"content-type", b"text/plain; charset=utf-8"), (b"content-length", str(len(body)).encode()), *extra,
        ]})
        await send({"type": "http.response.body", "body": body})
