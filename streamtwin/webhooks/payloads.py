"""What a webhook posts and how it is signed: the URLs and events accepted, the bodies, the headers.

Pure functions (no I/O).  A body is JSON, built once and never changed, so a retry posts the same bytes
under the same signature and delivery id (a receiver drops a delivery id it has seen).  The signature
is ``sha256=`` and the hex HMAC-SHA256 of the body with ``--webhook-secret`` as the key, in
``X-Streamtwin-Signature`` (as GitHub's ``X-Hub-Signature-256``); docs/integrations.md shows how to check it.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from typing import Any
from urllib.parse import urlsplit

EVENTS = ("twin", "ended")
DEFAULT_EVENTS = ("ended",)
SIGNATURE_HEADER = "X-Streamtwin-Signature"
SCHEMA = 1


def check_url(url: str) -> str:
    """``url`` if it is an absolute http(s) URL with a host; else ValueError saying what is wrong."""
    parts = urlsplit(url.strip())
    if parts.scheme not in ("http", "https"):
        raise ValueError(f"--webhook {url!r}: a webhook URL starts with http:// or https://")
    try:
        host = parts.hostname
        parts.port  # noqa: B018 - raises ValueError for a port that is not a number in range
    except ValueError:
        raise ValueError(f"--webhook {url!r}: the port is not a number from 1 to 65535") from None
    if not host:
        raise ValueError(f"--webhook {url!r}: the URL names no host")
    return url.strip()


def parse_events(names: list[str] | tuple[str, ...]) -> frozenset[str]:
    """``--webhook-events twin,ended`` as a set; ValueError for a name that is not one of :data:`EVENTS`."""
    chosen = frozenset(name.strip().lower() for name in names if name.strip())
    unknown = sorted(chosen - set(EVENTS))
    if unknown:
        raise ValueError(f"--webhook-events: unknown {', '.join(unknown)} (choose among {', '.join(EVENTS)})")
    if not chosen:
        raise ValueError(f"--webhook-events: name at least one of {', '.join(EVENTS)}")
    return chosen


def sign(secret: str, body: bytes) -> str:
    return "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


def verify(secret: str, body: bytes, signature: str) -> bool:
    """What a receiver does (and the tests): the signature matches the body, compared in constant time."""
    return hmac.compare_digest(sign(secret, body), signature)


def headers(event: str, delivery_id: str, body: bytes, secret: str) -> dict[str, str]:
    out = {
        "Content-Type": "application/json",
        "User-Agent": "streamtwin-webhook/1",
        "X-Streamtwin-Event": event,
        "X-Streamtwin-Delivery": delivery_id,
    }
    if secret:
        out[SIGNATURE_HEADER] = sign(secret, body)
    return out


def ended_body(
    delivery_id: str, created: float, session: str, notes: str, twin: dict[str, Any] | None, stats: dict[str, Any]
) -> bytes:
    """The session is over: its notes in Markdown (as ``run --format md`` writes them) and its final twin."""
    return _encode({
        "schema": SCHEMA, "event": "ended", "id": delivery_id, "created": created, "session": session,
        "notes_markdown": notes, "twin": twin or {}, "stats": stats,
    })


def twin_body(
    delivery_id: str, created: float, session: str, version: int, twin: dict[str, Any] | None,
    patch: list[dict[str, Any]],
) -> bytes:
    """The twin changed: the whole twin at ``version`` and the RFC 6902 patch that made it (empty for a state)."""
    return _encode({
        "schema": SCHEMA, "event": "twin", "id": delivery_id, "created": created, "session": session,
        "version": version, "twin": twin or {}, "patch": patch,
    })


def _encode(body: dict[str, Any]) -> bytes:
    return json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode()
