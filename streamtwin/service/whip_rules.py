"""WHIP (RFC 9725) at the HTTP level: which status a request gets, with which headers.  No I/O, no clock.

The adapter (streamtwin/service/whip.py) hands :func:`decide` the head of a request (method, target,
headers) and acts on the answer: a finished :class:`Reply` (a refusal, a CORS pre-flight), a
:class:`Create` (read the SDP offer, open a session) or a :class:`Delete` (end one).  The
outcomes of those actions become replies here too (:func:`created`, :func:`refused`, ...), so
every status and header the endpoint can send is chosen in this one module.

* ``/whip`` is the endpoint: ``POST`` an SDP offer (``application/sdp``) -> ``201`` with the
  answer, ``Location: /whip/RESOURCE`` and the viewer page in a ``Link`` header.
* ``/whip/RESOURCE`` is the session: ``DELETE`` ends it.  RESOURCE is a secret of its own, not
  the session id (viewers know the session id; they must not be able to end the session).
* ``GET``, ``HEAD`` and ``PUT`` (and ``POST`` on a session) are 405, reserved by the RFC;
  ``PATCH`` (trickle ICE, ICE restart) is 501: the answer carries every candidate already.
* The same walls as ``/ws``: the ``Host`` allow-list (403), the same-origin rule for browsers
  (403, and CORS headers only for allowed origins), the access token as a Bearer token (401).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from http import HTTPStatus
from typing import Any

from streamtwin.service.access import host_allowed, origin_allowed, tokens_match
from streamtwin.service.sdp_rules import offer_problem

ENDPOINT = "/whip"
SDP = "application/sdp"
TEXT = "text/plain; charset=utf-8"
ENDPOINT_METHODS = "POST, OPTIONS"
RESOURCE_METHODS = "DELETE, OPTIONS"
RETRY_AFTER_S = 10  # a full server: try again in a while
RESOURCE_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
SINGLE_HEADERS = ("host", "origin", "authorization", "content-type", "content-length")
CORS_EXPOSED = "Location, Link, Accept-Post, Allow, Retry-After, WWW-Authenticate"
CORS_ALLOWED_HEADERS = "Authorization, Content-Type, If-Match"
CORS_MAX_AGE_S = 600


@dataclass(frozen=True)
class Head:
    """A request as far as the headers: names lowercased, values as sent (several of one name kept)."""

    method: str
    target: str
    headers: tuple[tuple[str, str], ...] = ()

    def get(self, name: str) -> str | None:
        for key, value in self.headers:
            if key == name:
                return value
        return None

    def count(self, name: str) -> int:
        return sum(key == name for key, _ in self.headers)

    def values(self, name: str) -> list[str]:
        return [value for key, value in self.headers if key == name]

    @property
    def path(self) -> str:
        return self.target.split("?", 1)[0].split("#", 1)[0]


@dataclass(frozen=True)
class Rules:
    token: str  # "" when the server runs without one (loopback only)
    allowed_hosts: list[str] = field(default_factory=list)
    origins: list[Any] | None = None  # allowed_origins(); None: any origin
    max_offer_bytes: int = 64 * 1024


@dataclass(frozen=True)
class Reply:
    status: int
    headers: tuple[tuple[str, str], ...] = ()
    body: bytes = b""
    content_type: str = TEXT
    auth_failed: bool = False  # a missing or wrong token: the adapter counts it against the address
    resource: str = ""  # the session resource a 201 created

    @property
    def reason(self) -> str:
        try:
            return HTTPStatus(self.status).phrase
        except ValueError:
            return ""


@dataclass(frozen=True)
class Create:
    """Read the offer (at most ``max_bytes``), open a session, answer."""

    max_bytes: int


@dataclass(frozen=True)
class Delete:
    resource: str


def claims(target: str) -> bool:
    """Whether a request target is WHIP's (the rest of the server never sees it)."""
    path = target.split("?", 1)[0]
    return path == ENDPOINT or path.startswith(ENDPOINT + "/")


def text(status: int, message: str, *headers: tuple[str, str], auth_failed: bool = False) -> Reply:
    return Reply(status, tuple(headers), f"{message}\n".encode(), auth_failed=auth_failed)


def decide(head: Head, rules: Rules, *, locked_out: bool = False) -> Reply | Create | Delete:
    """The verdict on a request head: in the order a client learns the most useful thing first,
    and never more than it may know (a wrong token hears 401 before whether a resource exists)."""
    if any(head.count(name) > 1 for name in SINGLE_HEADERS):
        return text(400, "one each of Host, Origin, Authorization, Content-Type and Content-Length, please")
    if head.count("host") != 1 or not host_allowed(head.get("host"), rules.allowed_hosts):
        return text(403, "this host name is not served here (see --allow-host)")
    origin = head.get("origin")
    if origin is not None and not origin_allowed(origin, rules.origins):
        return text(403, "this origin may not use WHIP here (see --allow-origin)")
    resource = _resource(head.path)
    if resource is None:
        return text(404, "no such WHIP resource")
    methods = ENDPOINT_METHODS if resource == "" else RESOURCE_METHODS
    if head.method == "OPTIONS":
        return _preflight(methods, endpoint=resource == "")
    if head.method == "PATCH" and resource:
        return text(501, "trickle ICE and ICE restarts are not supported: the answer carries every candidate")
    if head.method not in methods.split(", "):
        return text(405, f"{head.method} is not allowed here; allowed: {methods}", ("Allow", methods))
    if locked_out:
        return text(429, "too many failed attempts from this address; try again later", ("Retry-After", "60"))
    if rules.token and not tokens_match(_bearer(head.get("authorization")), rules.token):
        challenge = ("WWW-Authenticate", 'Bearer realm="streamtwin"')
        return text(401, "a missing or wrong Bearer token", challenge, auth_failed=True)
    if resource:
        return Delete(resource)
    if _media_type(head.get("content-type")) != SDP:
        return text(415, f"the offer must be sent as {SDP}", ("Accept-Post", SDP))
    length = head.get("content-length")
    if length is not None:
        if not length.strip().isdigit():
            return text(400, "a Content-Length that is not a number")
        if int(length) > rules.max_offer_bytes:
            return offer_too_large(rules)
    return Create(rules.max_offer_bytes)


def check_offer(body: bytes) -> str | Reply:
    """The offer as text, or a 400 for what is not SDP or can never bring media (aiortc judges the rest), before
    a session is opened for it."""
    try:
        offer = body.decode("utf-8")
    except UnicodeDecodeError:
        return bad_offer("the offer is not UTF-8 text")
    problem = offer_problem(offer)
    return offer if problem is None else bad_offer(problem)


def offer_too_large(rules: Rules) -> Reply:
    return text(413, f"an SDP offer may have at most {rules.max_offer_bytes} bytes")


def bad_offer(message: str) -> Reply:
    return text(400, message)


def bad_request(message: str) -> Reply:
    return text(400, message)


def request_timeout() -> Reply:
    return text(408, "the request did not arrive in time")


def not_found() -> Reply:
    return text(404, "no such WHIP resource (the session ended, or never was)")


def deleted() -> Reply:
    return text(200, "the session is ending (speech flushed, viewers told)")


def unavailable(message: str = "the server is shutting down") -> Reply:
    return text(503, message, ("Retry-After", str(RETRY_AFTER_S)))


def internal_error() -> Reply:
    return text(500, "internal server error")


def refused(code: str, message: str) -> Reply:
    """A session the admission refused: the whole server full (503) or this address at its cap (429)."""
    if code == "busy":
        return unavailable(message)
    if code == "internal":
        return internal_error()
    return text(429, message, ("Retry-After", str(RETRY_AFTER_S)))


def created(answer: str, resource: str, viewer_url: str, ice_servers: list[dict[str, Any]]) -> Reply:
    """201 with the answer; the session at ``Location``, its viewer page (and ICE servers) as ``Link``s."""
    links = [f'<{viewer_url}>; rel="alternate"; type="text/html"; title="viewer"']
    links += ice_server_links(ice_servers)
    headers = [("Location", f"{ENDPOINT}/{resource}")] + [("Link", link) for link in links]
    return Reply(201, tuple(headers), answer.encode(), SDP, resource=resource)


def ice_server_links(servers: list[dict[str, Any]]) -> list[str]:
    """RFC 9725 section 4.6: ``<stun:...>; rel="ice-server"``, TURN with its short-lived credentials."""
    links = []
    for server in servers:
        urls = server["urls"] if isinstance(server["urls"], list) else [server["urls"]]
        for url in urls:
            link = f'<{url}>; rel="ice-server"'
            if server.get("username") is not None:
                link += f'; username="{server["username"]}"; credential="{server["credential"]}"'
                link += '; credential-type="password"'
            links.append(link)
    return links


def cors(head: Head, rules: Rules) -> tuple[tuple[str, str], ...]:
    """Headers that let an allowed browser origin read a reply (none for other clients)."""
    origin = head.get("origin")
    if origin is None or not origin_allowed(origin, rules.origins):
        return ()
    return (
        ("Access-Control-Allow-Origin", origin),
        ("Access-Control-Expose-Headers", CORS_EXPOSED),
        ("Vary", "Origin"),
    )


def _preflight(methods: str, *, endpoint: bool) -> Reply:
    """RFC 9725: OPTIONS answers CORS pre-flights (no token needed), with ``Accept-Post`` on the endpoint."""
    headers = [
        ("Allow", methods),
        ("Access-Control-Allow-Methods", methods),
        ("Access-Control-Allow-Headers", CORS_ALLOWED_HEADERS),
        ("Access-Control-Max-Age", str(CORS_MAX_AGE_S)),
    ]
    if endpoint:
        headers.append(("Accept-Post", SDP))
    return Reply(200, tuple(headers))


def _resource(path: str) -> str | None:
    """"" for the endpoint, the resource id for a session URL, None for anything else."""
    if path in (ENDPOINT, ENDPOINT + "/"):
        return ""
    rest = path[len(ENDPOINT) + 1:] if path.startswith(ENDPOINT + "/") else ""
    return rest if RESOURCE_ID.fullmatch(rest) else None


def _bearer(header: str | None) -> str:
    scheme, _, credentials = (header or "").strip().partition(" ")
    return credentials.strip() if scheme.lower() == "bearer" else ""


def _media_type(header: str | None) -> str:
    return (header or "").split(";", 1)[0].strip().lower()
