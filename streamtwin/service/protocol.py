"""The /ws protocol's client side, as plain data: parsing and validating client messages, error frames.

No sockets here: :func:`parse_client_message` turns one raw websocket message into a
checked dict or raises :class:`Refusal`, which the server turns into an ``error``
message (and, for a fatal refusal, a close code).  docs/protocol.md is the contract.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from streamtwin.rooms.roster import RosterError, clean_name
from streamtwin.service.sdp_rules import offer_problem
from streamtwin.speech.speech_stage import LANGUAGE_TAG, primary_language

CLIENT_TYPES = ("hello", "offer", "end", "ask", "rename")
ROLES = ("publisher", "viewer", "meetings")  # meetings: asks every past session (serve --redis)
SESSION_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")  # matched whole (fullmatch): "$" would let "id\n" through
MAX_DEPTH = 8  # hello options are the deepest thing a client sends; nothing needs more
MAX_TEXT_FIELD = 256  # tokens and session ids
MAX_SOURCE_LABEL = 200
MAX_SEQ = 2**63 - 1  # a Redis stream id's part
MAX_SDP_BYTES = 64 * 1024  # a browser offer with every candidate is 3-15 kB

# Close codes (RFC 6455): a refusal says why in the error message sent just before.
CLOSE_NORMAL = 1000  # the session ended
CLOSE_GOING_AWAY = 1001  # the server shuts down
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
    """One client message: a JSON object with a known ``type``; raises :class:`Refusal` otherwise.

    Whatever the text, the only exception that leaves is :class:`Refusal`: deep nesting
    (RecursionError in ``json``), huge integers (ValueError) and lone surrogates are refused too.
    """
    if isinstance(raw, bytes):
        raise Refusal("bad_message", "binary messages are not accepted: send JSON text")
    try:
        message = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise Refusal("bad_json", f"not valid JSON: {exc.msg} at position {exc.pos}") from None
    except RecursionError:
        raise Refusal("bad_json", f"JSON nested deeper than {MAX_DEPTH} levels") from None
    except ValueError as exc:  # e.g. an integer past Python's digit limit
        raise Refusal("bad_json", f"not acceptable JSON: {str(exc)[:100]}") from None
    check_json_shape(message)
    if not isinstance(message, dict) or not isinstance(message.get("type"), str):
        raise Refusal("bad_message", 'a message is a JSON object with a "type" string')
    if message["type"] not in CLIENT_TYPES:
        known = ", ".join(CLIENT_TYPES)
        raise Refusal("unknown_type", f"unknown message type {message['type'][:40]!r} (known: {known})")
    return message


def check_json_shape(value: Any, max_depth: int = MAX_DEPTH) -> None:
    """Refuse nesting deeper than ``max_depth`` and strings that are not valid Unicode text
    (a lone surrogate such as ``"\\ud800"`` cannot be encoded as UTF-8, so it could never be sent back)."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, str):
            if not _is_text(item):
                raise Refusal("bad_message", "strings must be valid Unicode (no lone surrogates)")
        elif isinstance(item, (dict, list)):
            if depth > max_depth:
                raise Refusal("bad_json", f"JSON nested deeper than {max_depth} levels")
            children = [*item.keys(), *item.values()] if isinstance(item, dict) else item
            stack.extend((child, depth + 1) for child in children)


def _is_text(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


@dataclass
class Hello:
    role: str
    session: str | None = None
    token: str = ""
    resume: str = ""
    options: dict[str, Any] = field(default_factory=dict)
    resume_from: int | None = None  # a viewer's last seq applied: it gets exactly the events after it

    @property
    def source(self) -> str:
        source = self.options.get("source")
        return source[:MAX_SOURCE_LABEL] if isinstance(source, str) and source.strip() else "webrtc"

    @property
    def name(self) -> Any:
        """A room participant's display name (``options.name``), unchecked; None when not given."""
        return self.options.get("name")

    @property
    def snapshot(self) -> bool:
        return self.options.get("snapshot", True) is not False

    @property
    def language(self) -> str:
        """The language the publisher's side expects to speak (``options.language``: the page sends
        ``navigator.language``), as its primary subtag ("de" of "de-AT"); "" when not given."""
        return primary_language(str(self.options.get("language") or ""))  # parse_hello refused what is no tag


def parse_hello(message: dict[str, Any]) -> Hello:
    """The fields of a hello, checked; raises ``bad_hello``."""
    role = message.get("role")
    if role not in ROLES:
        raise Refusal("bad_hello", f"role must be 'publisher', 'viewer' or 'meetings', not {str(role)[:40]!r}")
    session_id = message.get("session")
    if session_id is not None and not valid_session_id(session_id):
        raise Refusal("bad_hello", "a session id is 1-64 letters, digits, '-' or '_'")
    if role == "meetings" and session_id is not None:
        raise Refusal("bad_hello", "a meetings hello asks every session: it names none")
    texts = {}
    for name in ("token", "resume"):
        value = message.get(name) or ""
        if not isinstance(value, str) or len(value) > MAX_TEXT_FIELD:
            raise Refusal("bad_hello", f"{name} must be a string of at most {MAX_TEXT_FIELD} characters")
        texts[name] = value
    options = message.get("options") or {}
    if not isinstance(options, dict):
        raise Refusal("bad_hello", "options must be an object")
    language = options.get("language")
    if language is not None and not (isinstance(language, str) and LANGUAGE_TAG.fullmatch(language)):
        raise Refusal("bad_hello", f"options.language is a language tag such as 'en' or 'de-AT', not {str(language)[:40]!r}")
    return Hello(role, session_id, texts["token"], texts["resume"], options, resume_from(message, role))


def resume_from(message: dict[str, Any], role: str) -> int | None:
    """A viewer's ``resume_from``: the seq of the last event it applied (an integer >= 0), or None."""
    value = message.get("resume_from")
    if value is None:
        return None
    if role != "viewer":
        raise Refusal("bad_hello", "resume_from is for viewers (a publisher resumes with its resume token)")
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= MAX_SEQ:
        raise Refusal("bad_hello", "resume_from is the seq of the last event received: an integer >= 0")
    return value


def valid_session_id(value: Any) -> bool:
    return isinstance(value, str) and SESSION_ID.fullmatch(value) is not None


def offer_sdp(message: dict[str, Any]) -> str:
    """The SDP of an offer message, checked for size and for what any offer that can bring media has."""
    sdp = message.get("sdp")
    if not isinstance(sdp, str) or not sdp.strip():
        raise Refusal("bad_message", 'an offer carries the SDP as a string: {"type": "offer", "sdp": "v=0..."}')
    if len(sdp) > MAX_SDP_BYTES:
        raise Refusal("bad_sdp", f"the offer is larger than {MAX_SDP_BYTES} characters")
    problem = offer_problem(sdp)
    if problem is not None:
        raise Refusal("bad_sdp", problem)
    return sdp


def error_message(code: str, message: str, *, fatal: bool = False) -> str:
    return json.dumps({"type": "error", "code": code, "message": message, "fatal": fatal})


def close_reason(text: str) -> str:
    """A close frame's reason holds at most 123 bytes of UTF-8."""
    return text.encode()[:120].decode(errors="ignore")


VOICE_LABEL = re.compile(r"S[1-9][0-9]{0,2}")


def parse_rename(message: dict[str, Any]) -> tuple[str, str]:
    """A viewer's ``rename`` {``speaker``: a voice label, ``name``}: the label and the name, checked (the name as a
    room's participant names are: printable, spaces folded, 1-40 characters); raises ``bad_rename``."""
    label = message.get("speaker")
    if not isinstance(label, str) or not VOICE_LABEL.fullmatch(label):
        raise Refusal("bad_rename", 'rename needs "speaker": a voice label such as "S2"')
    try:
        return label, clean_name(message.get("name"))
    except RosterError as exc:
        raise Refusal("bad_rename", f"rename: {exc}") from None
