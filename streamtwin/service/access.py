"""Who may talk to the service: Host and Origin rules, tokens, secrets.  Pure functions, no I/O.

* **Host allow-list** (DNS rebinding): a request is served only when its ``Host`` names this
  machine by an IP literal, ``localhost``, or a name given with ``--allow-host``.  A rebinding
  attack needs a domain name of its own, which is never on that list.
* **Same origin** (cross-site websocket hijacking): ``/ws`` accepts a browser only from a page
  served by this server (any allowed host, this port) or an origin given with ``--allow-origin``;
  clients that send no ``Origin`` (not browsers) are let in, the token still applies.
* **Tokens**: the access token is compared in constant time; per-session secrets (viewer and
  resume tokens) are random and unguessable, as are session ids.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import ipaddress
import re
import secrets

LOOPBACK_NAMES = ("localhost", "localhost.")
IP_LITERAL = r"(?:\d{1,3}(?:\.\d{1,3}){3}|\[[0-9A-Fa-f:.]+\])"


def new_secret() -> str:
    """128 random bits, URL-safe: session ids, viewer, resume and join tokens.  Never with a leading "-":
    ids and join tokens go on command lines (``--session ID --join-token TOKEN``), where argparse takes
    "-x..." for an option."""
    while (secret := secrets.token_urlsafe(16)).startswith("-"):
        pass
    return secret


def tokens_match(given: str, expected: str) -> bool:
    return bool(expected) and hmac.compare_digest(given.encode(), expected.encode())


def token_digest(token: str) -> str:
    """What the session directory keeps of a viewer token so that any node can check one, never the
    token itself (128 random bits: an unsalted SHA-256 cannot be reversed)."""
    return hashlib.sha256(token.encode()).hexdigest()


def digest_matches(given: str, digest: str) -> bool:
    return bool(given) and bool(digest) and hmac.compare_digest(token_digest(given), digest)


def is_loopback(host: str) -> bool:
    """True for a bind address that only this machine can reach."""
    if host.lower() in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def split_host(header: str) -> str:
    """``Host`` header -> the host name or address, lowercased, without port or brackets."""
    header = header.strip().lower()
    if header.startswith("["):
        return header[1:].split("]", 1)[0]
    return header.rsplit(":", 1)[0] if header.count(":") == 1 else header


def host_allowed(header: str | None, allowed_hosts: list[str]) -> bool:
    if not header:
        return False
    host = split_host(header).rstrip(".")
    if host == "localhost" or host in (h.lower().rstrip(".") for h in allowed_hosts):
        return True
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


def allowed_origins(port: int, allowed_hosts: list[str], extra: list[str]) -> list[str | re.Pattern[str] | None] | None:
    """The ``origins=`` list for websockets: pages of this server on any allowed host and this port,
    the ``extra`` origins, and no Origin at all (a non-browser client).  ``*`` in extra: any origin."""
    if "*" in extra:
        return None
    names = "|".join([IP_LITERAL, "localhost", *(re.escape(h.lower()) for h in allowed_hosts)])
    default_port = {80: "http", 443: "https"}.get(port)
    port_part = f"(?::{port})" + ("?" if default_port else "")
    same_origin = re.compile(rf"https?://(?:{names}){port_part}", re.IGNORECASE)
    return [None, same_origin, *(origin.rstrip("/") for origin in extra)]


def origin_allowed(origin: str | None, origins: list[str | re.Pattern[str] | None] | None) -> bool:
    """Whether ``origin`` passes an :func:`allowed_origins` list, matched as websockets matches it for
    ``/ws`` (exact strings, whole-string patterns, None for no Origin), so plain HTTP endpoints keep the same rule."""
    if origins is None:
        return True
    for allowed in origins:
        if allowed == origin or (isinstance(allowed, re.Pattern) and origin is not None and allowed.fullmatch(origin)):
            return True
    return False


def check_bind(host: str, token: str) -> str | None:
    """Why the service must not start as configured, or None."""
    if not token and not is_loopback(host):
        return (
            f"refusing to listen on {host} without an access token: anyone on the network could publish "
            "and watch; set --token (or STREAMTWIN_TOKEN), or bind to 127.0.0.1"
        )
    return None


def turn_credentials(secret: str, user: str, now: float, ttl_s: float) -> tuple[str, str]:
    """Short-lived TURN credentials from a secret shared with the TURN server (the "TURN REST API"
    scheme coturn implements with ``use-auth-secret``): the username is ``expiry:user`` and the
    password the base64 HMAC-SHA1 of it, so a leaked pair stops working at ``expiry`` (unix seconds)."""
    username = f"{int(now + ttl_s)}:{user}"
    digest = hmac.new(secret.encode(), username.encode(), hashlib.sha1).digest()
    return username, base64.b64encode(digest).decode()
