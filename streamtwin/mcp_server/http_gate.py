"""``streamtwin mcp --http``: the same door as ``serve`` in front of the SDK's streamable HTTP app.

A request is served only when its ``Host`` names this machine (an IP literal, ``localhost`` or an
``--allow-host`` name: the DNS-rebinding guard of streamtwin/service/access.py) and, when a token is set,
it carries it (``Authorization: Bearer TOKEN``, or ``?token=TOKEN`` for clients that cannot set a header),
compared in constant time.  ``check_bind`` refuses a public address without a token before anything starts.
A missing or wrong token counts against the client's address, and an address with too many in a minute is
refused (429) without its token being looked at, right or wrong, until the minute has passed: serve's
lockout, the same :class:`~streamtwin.service.admission.Admission` policy.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any
from urllib.parse import parse_qs

from streamtwin.service.access import host_allowed, tokens_match
from streamtwin.service.admission import Admission, Limits

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]


def verdict(
    host: str | None, authorization: str, query: str, token: str, allow_host: list[str], *, locked_out: bool = False,
) -> tuple[int, str] | None:
    """Why a request is refused (status, message), or None to serve it; ``locked_out``: the client's address has
    failed the token too often lately (a 401 is a failure to count)."""
    if not host_allowed(host, allow_host):
        return 403, "this host name is not served (use an IP address or localhost, or --allow-host NAME)"
    if not token:
        return None
    if locked_out:
        return 429, "too many failed attempts from this address; try again later"
    scheme, _, given = authorization.partition(" ")
    if scheme.lower() != "bearer" or not given.strip():
        given = (parse_qs(query).get("token") or [""])[0]
    if not tokens_match(given.strip(), token):
        return 401, "missing or wrong token (Authorization: Bearer TOKEN)"
    return None


class HttpGate:
    """ASGI middleware: :func:`verdict` for every HTTP request, the app for the ones it lets through."""

    def __init__(self, app: App, token: str, allow_host: list[str], auth_failures_per_min: int = 10) -> None:
        self.app = app
        self.token = token
        self.allow_host = allow_host
        self.admission = Admission(Limits(auth_failures=auth_failures_per_min, auth_window_s=60.0))

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":  # lifespan
            await self.app(scope, receive, send)
            return
        headers = {name.decode("latin-1").lower(): value.decode("latin-1") for name, value in scope["headers"]}
        address = str((scope.get("client") or ("",))[0])
        now = time.monotonic()
        refused = verdict(headers.get("host"), headers.get("authorization", ""),
                          scope.get("query_string", b"").decode("latin-1"), self.token, self.allow_host,
                          locked_out=self.admission.locked_out(address, now))
        if refused is None:
            await self.app(scope, receive, send)
            return
        status, message = refused
        body = f"{message}\n".encode()
        extra = {401: [(b"www-authenticate", b'Bearer realm="streamtwin"')], 429: [(b"retry-after", b"60")]}
        if status == 401:
            self.admission.auth_failed(address, now)
        await send({"type": "http.response.start", "status": status, "headers": [
            (b"content-type", b"text/plain; charset=utf-8"), (b"content-length", str(len(body)).encode()),
            *extra.get(status, []),
        ]})
        await send({"type": "http.response.body", "body": body})
