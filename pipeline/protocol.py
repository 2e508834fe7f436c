"""The /ws protocol's client side, as plain data: parsing and validating client messages, error frames.

No sockets here: :func:`parse_client_message` turns one raw websocket message into a
checked dict or raises :class:`Refusal`, which the server turns into an ``error``
message (and, for a fatal refusal, a close code).  docs/protocol.md is the contract.
"""

from __future__ import annotations

import json
import re
from typing import Any

CLIENT_TYPES = ("hello", "offer", "end")
ROLES = ("publisher", "viewer")
SESSION_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")

# Close codes (RFC 6455): a refusal says why in the error message sent just before.
CLOSE_NORMAL = 1000  # the session ended (websockets itself sends 1001 when the server shuts down)
CLOSE_POLICY = 1008  # not authorised, no such session, no hello
CLOSE_INTERNAL = 1011
CLOSE_TRY_LATER = 1013  # full, or the client reads too slowly


class Refusal(Exception):
    """A client message we will not act on; ``close`` (a close code) when the connection must end."""

    def __init__(self, code: str, message: str, close: int | None = None):
        super().__init__(message)
        self.code = code
        self.message = message
        self.close = close


def parse_client_message(raw: str | bytes) -> dict[str, Any]:
    """One client message: a JSON object with a known ``type``; raises :class:`Refusal` otherwise."""
    if isinstance(raw, bytes):
        raise Refusal("bad_message", "binary messages are not accepted: send JSON text")
    try:
        message = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise Refusal("bad_json", f"not valid JSON: {exc}") from None
    if not isinstance(message, dict) or not isinstance(message.get("type"), str):
        raise Refusal("bad_message", 'a message is a JSON object with a "type" string')
    if message["type"] not in CLIENT_TYPES:
        known = ", ".join(CLIENT_TYPES)
        raise Refusal("unknown_type", f"unknown message type {message['type']!r} (known: {known})")
    return message


def error_message(code: str, message: str, *, fatal: bool = False) -> str:
    return json.dumps({"type": "error", "code": code, "message": message, "fatal": fatal})


def close_reason(text: str) -> str:
    """A close frame's reason holds at most 123 bytes of UTF-8."""
    return text.encode()[:120].decode(errors="ignore")
