"""``--redis`` URLs: checked before anything connects, and shown without their password.

``redis://[[USER]:PASSWORD@]HOST[:PORT][/DB]`` (``rediss://`` for TLS).  ``streamtwin replay`` also takes
``redis://HOST:PORT/DB/SESSION``: the store's URL and one session in it.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlsplit, urlunsplit

SCHEMES = ("redis", "rediss")


class BadRedisURL(ValueError):
    """A ``--redis`` URL that cannot name a Redis database."""


@dataclass(frozen=True)
class RedisTarget:
    url: str  # what redis-py connects to (password included)
    shown: str  # the same without the password: for logs and messages
    session: str = ""  # replay: the session named after the database


def parse_redis_url(url: str, *, with_session: bool = False) -> RedisTarget:
    """Check ``url`` (and split off ``/SESSION`` when ``with_session``); raises :class:`BadRedisURL`."""
    parts = urlsplit(url.strip())
    shown = redact_url(url.strip())
    if parts.scheme not in SCHEMES:
        raise BadRedisURL(f"not a Redis URL: {shown!r} (expected redis://HOST:PORT/DB)")
    try:
        port = parts.port
    except ValueError:
        raise BadRedisURL(f"bad port in {shown!r}") from None
    if not parts.hostname:
        raise BadRedisURL(f"no host in {shown!r} (expected redis://HOST:PORT/DB)")
    if parts.query or parts.fragment:
        raise BadRedisURL(f"unexpected ?query or #fragment in {shown!r}")
    path = [part for part in parts.path.split("/") if part]
    session = ""
    if with_session:
        if not path:
            raise BadRedisURL(f"no session in {shown!r} (expected redis://HOST:PORT/DB/SESSION)")
        session = path.pop()
    if len(path) > 1 or (path and not path[0].isdigit()):
        raise BadRedisURL(f"bad database in {shown!r}: expected a number, as in redis://HOST:PORT/0")
    netloc = parts.netloc.rsplit("@", 1)[0] + "@" if "@" in parts.netloc else ""
    netloc += parts.hostname if ":" not in parts.hostname else f"[{parts.hostname}]"
    netloc += f":{port or 6379}"
    database = f"/{path[0] if path else 0}"
    clean = urlunsplit((parts.scheme, netloc, database, "", ""))
    return RedisTarget(clean, redact_url(clean), session)


def redact_url(url: str) -> str:
    """``redis://user:secret@host`` -> ``redis://user:***@host``: a password never reaches a log."""
    parts = urlsplit(url)
    if "@" not in parts.netloc:
        return url
    userinfo, host = parts.netloc.rsplit("@", 1)
    user = userinfo.split(":", 1)[0]
    return urlunsplit((parts.scheme, f"{user}:***@{host}" if ":" in userinfo else f"***@{host}", parts.path,
                       parts.query, parts.fragment))
