"""The digital twin: schema, repair of model output and minimal patches.

Small models wrap JSON in chatter and code fences, leave trailing commas, get
cut off by ``max_tokens`` and invent action items.  So model output is never
trusted: it is extracted, repaired, coerced to the schema and validated;
anything still invalid is rejected and the twin keeps its last valid state.
Viewers get RFC 6902 patches between versions, so staying in sync is cheap.
Choosing among candidates: :mod:`streamtwin.twin.verifier`; joining the rules' draft and the
last checks before viewers: :mod:`streamtwin.twin.merge`.

Plain module: no I/O, no clock.
"""

from __future__ import annotations

import copy
import json
import re
from typing import Any

import jsonpatch
from jsonschema import Draft202012Validator

from streamtwin.twin.heard import UNASSIGNED, names_nobody
from streamtwin.twin.item_ids import assign_ids, id_number

MAX_ITEMS = 20
MAX_TEXT = 300
MAX_NAME = 80
MAX_SUMMARY = 1500

_TEXT = {"type": "string", "maxLength": MAX_TEXT}
_TEXT_LIST = {"type": "array", "items": _TEXT, "maxItems": MAX_ITEMS}

# Property order is generation order under a grammar: the compact, valuable fields come
# first and the long summary last, so a reply cut off by max_tokens or the wall-time
# cap loses the least (repair keeps every member completed before the cut).
TWIN_SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "required": ["people", "action_items", "decisions", "open_questions", "topics", "scene", "summary"],
    "properties": {
        "people": {
            "type": "array",
            "maxItems": MAX_ITEMS,
            "items": {
                "type": "object",
                "additionalProperties": False,
                "required": ["name"],
                "properties": {
                    "name": {"type": "string", "minLength": 1, "maxLength": MAX_NAME},
                    "role": {"type": "string", "maxLength": MAX_NAME},
                },
            },
        },
        "action_items": {
            "type": "array",
            "maxItems": MAX_ITEMS,
            "items": {
                "type": "object",
                "additionalProperties": False,
                "required": ["text", "owner", "due"],
                "properties": {
                    "id": {"type": "string", "maxLength": 16},
                    "text": {"type": "string", "minLength": 1, "maxLength": MAX_TEXT},
                    "owner": {"type": "string", "maxLength": MAX_NAME},
                    "due": {"type": "string", "maxLength": MAX_NAME},
                },
            },
        },
        "decisions": _TEXT_LIST,
        "open_questions": _TEXT_LIST,
        "topics": _TEXT_LIST,
        "scene": {
            "type": "object",
            "additionalProperties": False,
            "required": ["description", "updated_at"],
            "properties": {
                "description": _TEXT,
                "updated_at": {"type": ["number", "null"]},
            },
        },
        "summary": {"type": "string", "maxLength": MAX_SUMMARY},
    },
}

_LIMITS = ("maxLength", "maxItems")


def _without_limits(node: Any) -> Any:
    if isinstance(node, dict):
        return {key: _without_limits(value) for key, value in node.items() if key not in _LIMITS}
    return node


# What a backend needs for schema-constrained decoding.  Without the size limits:
# llama.cpp unrolls each into grammar rules and refuses the result ("exceeds sane
# defaults"), and OpenAI's strict mode rejects them; repair() enforces them instead.
# Not "strict" either: strict mode refuses optional properties (people[].role).
TWIN_RESPONSE_FORMAT: dict[str, Any] = {
    "type": "json_schema",
    "json_schema": {"name": "twin", "strict": False, "schema": _without_limits(TWIN_SCHEMA)},
}

_VALIDATOR = Draft202012Validator(TWIN_SCHEMA)
_FIELDS = tuple(TWIN_SCHEMA["required"])


def empty_state() -> dict[str, Any]:
    return {
        "people": [],
        "action_items": [],
        "decisions": [],
        "open_questions": [],
        "topics": [],
        "scene": {"description": "", "updated_at": None},
        "summary": "",
    }


# --- extraction and repair ----------------------------------------------------


def extract_json(text: str) -> Any | None:
    """The first JSON object in ``text``: skips chatter and code fences, drops
    trailing commas, and closes an object cut off mid-way at its last complete member."""
    fence = re.search(r"```(?:json|JSON)?\s*\n?(.*?)(?:```|$)", text, re.DOTALL)
    if fence and "{" in fence.group(1):
        text = fence.group(1)
    start = text.find("{")
    if start < 0:
        return None
    for candidate in _balanced_candidates(text, start):
        try:
            return json.loads(candidate)
        except json.JSONDecodeError:
            continue
    return None


def _balanced_candidates(text: str, start: int) -> list[str]:
    """Scan one JSON value from ``start`` (string-aware) and return readings to try, best first."""
    out: list[str] = []
    closers: list[str] = []
    in_string = escaped = False
    last_comma: tuple[int, tuple[str, ...]] | None = None
    for char in text[start:]:
        if in_string:
            out.append(char)
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
            continue
        if char == '"':
            in_string = True
        elif char in "{[":
            closers.append("}" if char == "{" else "]")
        elif char in "}]":
            while out and out[-1].isspace():
                out.pop()
            if out and out[-1] == ",":
                out.pop()  # trailing comma
            if not closers or closers[-1] != char:
                return []
            closers.pop()
            out.append(char)
            if not closers:
                return ["".join(out)]
            continue
        elif char == ",":
            last_comma = (len(out), tuple(closers))
        out.append(char)
    # Cut off (e.g. by max_tokens): close what is open, else keep every member
    # completed before the last comma.
    candidates = [] if in_string else ["".join(out).rstrip().rstrip(",") + "".join(reversed(closers))]
    if last_comma is not None:
        length, open_closers = last_comma
        candidates.append("".join(out[:length]) + "".join(reversed(open_closers)))
    return candidates


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _as_text(value: Any, limit: int = MAX_TEXT) -> str | None:
    """A scalar as text; None for things that are not text-like."""
    if isinstance(value, str):
        return _clip(" ".join(value.split()), limit)
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, dict) and len(value) == 1:
        return _as_text(next(iter(value.values())), limit)
    if isinstance(value, list):
        parts = [text for text in (_as_text(item, limit) for item in value) if text]
        return _clip(" ".join(parts), limit) if parts else None
    return None


def _as_list(value: Any) -> list[Any]:
    if value is None:
        return []
    return value if isinstance(value, list) else [value]


def _first(mapping: dict[str, Any], *keys: str) -> Any:
    for key in keys:
        if mapping.get(key) not in (None, ""):
            return mapping[key]
    return None


def _coerce_summary(value: Any) -> Any:
    """Text if it can be read as text; otherwise left as is for validation to reject."""
    text = _as_text(value, MAX_SUMMARY)
    return value if text is None else text


def _coerce_text_list(value: Any) -> list[str]:
    seen: set[str] = set()
    out: list[str] = []
    for item in _as_list(value):
        text = _as_text(item)
        if text and text.lower() not in seen:
            seen.add(text.lower())
            out.append(text)
    return out[:MAX_ITEMS]


def _coerce_people(value: Any) -> list[dict[str, str]]:
    seen: set[str] = set()
    out: list[dict[str, str]] = []
    for item in _as_list(value):
        raw = item if isinstance(item, dict) else {"name": item}
        name = _as_text(raw.get("name"), MAX_NAME)
        if not name or name.lower() in seen:
            continue
        seen.add(name.lower())
        person = {"name": name}
        role = _as_text(raw.get("role"), MAX_NAME)
        if role:
            person["role"] = role
        out.append(person)
    return out[:MAX_ITEMS]


# A placeholder where a date goes: a small model writes the owner's "unassigned" there too (meeting.wav, Qwen).
_NO_DATE = {"", "unassigned", "none", "n/a", "na", "tbd", "unknown", "not said", "not specified", "null", "no date"}


def _coerce_action_items(value: Any) -> list[dict[str, str]]:
    out: list[dict[str, str]] = []
    for item in _as_list(value):
        raw = item if isinstance(item, dict) else {"text": item}
        text = _as_text(_first(raw, "text", "task", "item", "description"))
        if not text:
            continue
        owner = _as_text(_first(raw, "owner", "assignee", "who"), MAX_NAME) or ""
        due = _as_text(_first(raw, "due", "deadline", "due_date", "when"), MAX_NAME) or ""
        due = "" if due.strip(" .-").lower() in _NO_DATE else due
        coerced = {"text": text, "owner": UNASSIGNED if names_nobody(owner) else owner, "due": due}
        given_id = _as_text(raw.get("id"), 16)
        if given_id:
            coerced["id"] = given_id
        out.append(coerced)
    return out[:MAX_ITEMS]


def _coerce_scene(value: Any, previous: dict[str, Any]) -> dict[str, Any]:
    raw = value if isinstance(value, dict) else {"description": value}
    description = _as_text(raw.get("description")) or ""
    updated_at = raw.get("updated_at", previous.get("updated_at"))
    if isinstance(updated_at, str):
        try:
            updated_at = float(updated_at)
        except ValueError:
            updated_at = None
    if not isinstance(updated_at, (int, float)) or isinstance(updated_at, bool):
        updated_at = None
    return {"description": description, "updated_at": updated_at}


def _unwrap(obj: dict[str, Any]) -> dict[str, Any]:
    """``{"twin": {...}}`` and the like: models love an extra envelope."""
    if len(obj) == 1:
        inner = next(iter(obj.values()))
        if isinstance(inner, dict) and set(inner) & set(_FIELDS):
            return inner
    return obj


# --- the model ------------------------------------------------------------------


class TwinModel:
    """The current twin state and its version; only valid states get in."""

    def __init__(self, state: dict[str, Any] | None = None) -> None:
        self.state: dict[str, Any] = copy.deepcopy(state) if state is not None else empty_state()
        if self.validate(self.state):
            raise ValueError(f"invalid initial twin state: {self.validate(self.state)}")
        self.version = 0
        self.last_id = max((id_number(a.get("id", "")) for a in self.state["action_items"]), default=0)

    @staticmethod
    def validate(obj: Any) -> list[str]:
        """Schema errors as "path: message" strings (empty: valid)."""
        errors = sorted(_VALIDATOR.iter_errors(obj), key=lambda error: [str(p) for p in error.absolute_path])
        return [f"{'/'.join(str(p) for p in error.absolute_path) or '<root>'}: {error.message}" for error in errors]

    def repair_verbose(self, raw: str | Any) -> tuple[dict[str, Any] | None, list[str]]:
        """Like :meth:`repair`, and the reasons when the result is rejected."""
        obj = extract_json(raw) if isinstance(raw, str) else copy.deepcopy(raw)
        if obj is None:
            found = isinstance(raw, str) and "{" in raw
            return None, ["JSON unreadable or cut off before its first member" if found else "no JSON object found"]
        if not isinstance(obj, dict):
            return None, [f"<root>: expected an object, got {type(obj).__name__}"]
        obj = _unwrap(obj)
        previous = self.state
        coercers = {
            "summary": _coerce_summary,
            "topics": _coerce_text_list,
            "people": _coerce_people,
            "action_items": _coerce_action_items,
            "open_questions": _coerce_text_list,
            "decisions": _coerce_text_list,
            "scene": lambda v: _coerce_scene(v, previous["scene"]),
        }
        # A field the model left out means "unchanged", not "now empty".
        repaired = {
            name: coercers[name](obj[name]) if name in obj else copy.deepcopy(previous[name]) for name in _FIELDS
        }
        repaired["action_items"] = assign_ids(repaired["action_items"], previous["action_items"], self.last_id)
        errors = self.validate(repaired)
        return (None, errors) if errors else (repaired, [])

    def repair(self, raw: str | Any) -> dict[str, Any] | None:
        """Model output (text or parsed) as a valid state, or None if it cannot be saved."""
        return self.repair_verbose(raw)[0]

    def apply(self, new_state: dict[str, Any]) -> tuple[list[dict[str, Any]], int]:
        """Adopt ``new_state``; returns the RFC 6902 patch from the old state and the version.

        An unchanged state gives an empty patch and keeps the version.
        """
        errors = self.validate(new_state)
        if errors:
            raise ValueError(f"refusing an invalid twin state: {errors[:3]}")
        operations = jsonpatch.make_patch(self.state, new_state).patch
        if operations:
            self.state = copy.deepcopy(new_state)
            self.version += 1
            self.last_id = max([self.last_id] + [id_number(a.get("id", "")) for a in new_state["action_items"]])
        return operations, self.version
