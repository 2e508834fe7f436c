"""Typed pipeline events: the only currency between stages and outputs.

Every event serialises to one flat JSON object: the envelope (``v``, ``type``,
``session``, ``seq``, ``wall``, ``media_time``) plus the event's own fields at
the top level.  The same objects go to the terminal, to JSONL and to browsers,
so a consumer needs exactly one parser (:func:`from_dict`).
"""

from __future__ import annotations

import dataclasses
import functools
import json
from dataclasses import dataclass, field
from typing import Any, ClassVar

import orjson

SCHEMA_VERSION = 1
MAX_DEPTH = 32  # JSON nesting of an event: a twin patch's value is the deepest, at about 6

ENVELOPE_FIELDS = ("v", "type", "session", "seq", "wall", "media_time")

_REGISTRY: dict[str, type[Event]] = {}


class EventSchemaError(ValueError):
    """A JSON object that is not a valid event of a known type."""


@dataclass(kw_only=True)
class Event:
    """Envelope shared by every event; subclasses add their own fields."""

    type: ClassVar[str] = ""
    session: str = ""
    seq: int = 0
    wall: float = 0.0
    media_time: float | None = None

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if cls.type:
            _REGISTRY[cls.type] = cls

    def to_dict(self) -> dict[str, Any]:
        body = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        out: dict[str, Any] = {"v": SCHEMA_VERSION, "type": self.type}
        out.update(body)
        return out

    def to_json(self) -> str:
        return _dumps(self.to_dict())


def _dumps(body: dict[str, Any]) -> str:
    return json.dumps(body, ensure_ascii=False, separators=(",", ":"))


def encode(body: dict[str, Any]) -> bytes:
    """An event object as UTF-8 JSON, as :meth:`Event.to_json` writes it: what a websocket carries."""
    return _dumps(body).encode()


def event_types() -> dict[str, type[Event]]:
    return dict(_REGISTRY)


@functools.cache
def _field_names(cls: type[Event]) -> frozenset[str]:
    """An event type's fields and the envelope's ``v`` and ``type``: what its JSON object may hold."""
    return frozenset(f.name for f in dataclasses.fields(cls)) | {"v", "type"}


def from_dict(data: dict[str, Any]) -> Event:
    """Parse one event object; raises :class:`EventSchemaError` on anything off."""
    if not isinstance(data, dict):
        raise EventSchemaError("an event is a JSON object")
    if data.get("v") != SCHEMA_VERSION:
        raise EventSchemaError(f"unsupported event schema version {data.get('v')!r}")
    cls = _REGISTRY.get(data.get("type"))  # type: ignore[arg-type]
    if cls is None:
        raise EventSchemaError(f"unknown event type {data.get('type')!r}")
    names = _field_names(cls)
    if not names.issuperset(data):
        raise EventSchemaError(f"{cls.type}: unknown fields {sorted(set(data) - names)}")
    try:
        return cls(**{k: v for k, v in data.items() if k != "v" and k != "type"})
    except TypeError as exc:
        raise EventSchemaError(f"{cls.type}: {exc}") from None


def from_json(line: str) -> Event:
    """Parse one event from its JSON text; raises :class:`EventSchemaError`, also for nesting past
    ``MAX_DEPTH`` (a recording or a log entry is read from outside: a line nested 5,000 deep must not end
    a replay with a ``RecursionError``)."""
    try:
        data = _loads(line)
        # Nesting is at most the number of opening brackets: most lines (a final of up to ~30 words) are
        # cleared by counting them, without walking what was parsed.
        too_deep = line.count("[") + line.count("{") > MAX_DEPTH and _deeper_than(data, MAX_DEPTH)
    except json.JSONDecodeError as exc:
        raise EventSchemaError(f"not JSON: {exc}") from None
    except RecursionError:
        too_deep = True
    if too_deep:
        raise EventSchemaError(f"JSON nested deeper than {MAX_DEPTH} levels")
    return from_dict(data)


def _loads(line: str) -> Any:
    """``json.loads``, through orjson first (3-4x faster: reading a past meeting is mostly this).  What orjson
    refuses and Python's json takes (NaN, integers past 64 bits, nesting past 1,024) is read by the latter."""
    try:
        return orjson.loads(line)
    except orjson.JSONDecodeError:
        return json.loads(line)


def _deeper_than(value: Any, limit: int) -> bool:
    """Whether parsed JSON nests deeper than ``limit``: only containers go on the stack (a final's words,
    ``[text, start, end]`` each, are looked at once), and JSON gives exact dicts and lists."""
    stack = [(value, 1)]
    push = stack.append
    while stack:
        item, depth = stack.pop()
        if type(item) is dict:
            item = item.values()
        elif type(item) is not list:
            continue
        if depth > limit:
            return True
        for child in item:
            if type(child) is list or type(child) is dict:
                push((child, depth + 1))
    return False


# --- session lifecycle -------------------------------------------------------


@dataclass(kw_only=True)
class SessionStarted(Event):
    type: ClassVar[str] = "session.started"
    source: str
    options: dict[str, Any] = field(default_factory=dict)


@dataclass(kw_only=True)
class SessionEnded(Event):
    """``stats`` holds audio_s, processing_s and rtf (processing / audio)."""

    type: ClassVar[str] = "session.ended"
    stats: dict[str, Any] = field(default_factory=dict)


@dataclass(kw_only=True)
class Error(Event):
    """Something went wrong; ``fatal`` says whether the session ends because of it."""

    type: ClassVar[str] = "error"
    code: str
    message: str
    fatal: bool = False


@dataclass(kw_only=True)
class Notice(Event):
    """Something viewers should know that is not an error: ``publisher_away`` (its connection dropped; it
    may resume), ``publisher_back``.  An event, so it is logged with a seq and reaches viewers on every node."""

    type: ClassVar[str] = "notice"
    code: str
    message: str


@dataclass(kw_only=True)
class Progress(Event):
    """How far a finite source has been processed (for progress bars)."""

    type: ClassVar[str] = "progress"
    position: float
    duration: float | None = None


@dataclass(kw_only=True)
class ParticipantJoined(Event):
    """Someone joined the session's room (several publishers, each a name); ``slot`` (1-8) picks their colour.

    Late viewers get one per participant present in the snapshot."""

    type: ClassVar[str] = "participant.joined"
    name: str
    slot: int = 1


@dataclass(kw_only=True)
class ParticipantLeft(Event):
    """A participant left the room (their speech was flushed first); ``reason`` is an error code or ""."""

    type: ClassVar[str] = "participant.left"
    name: str
    slot: int = 1
    reason: str = ""


# --- speech ------------------------------------------------------------------


@dataclass(kw_only=True)
class TranscriptPartial(Event):
    """The uncommitted tail: may still change; replaces the previous partial."""

    type: ClassVar[str] = "transcript.partial"
    text: str
    start: float
    speaker: str = ""  # in a room: the participant speaking (each has a partial of their own)


@dataclass(kw_only=True)
class TranscriptFinal(Event):
    """Committed text; never revised.  ``words`` carries [text, start, end] triples.

    Finals are commits (often a few words); ``utterance`` numbers the spoken
    utterance they belong to (1, 2, ... per speech stream) and ``utterance_end``
    marks its last commit, so consumers can group fragments into what was said.
    ``language`` is the ISO code the recogniser transcribed in.

    ``speaker`` ("S1", "S2", ...) says who spoke, from their voice, when speaker labels are on
    (``--speakers``); ``speaker_name`` is the name that speaker gave themselves ("I'm Tom"), once
    they did.  In a room (several publishers) both are the participant's name, and
    ``utterance`` is numbered across the session.  The label of an utterance's last final (``utterance_end``) holds for all of it;
    earlier finals carry the best match so far ("" while it is not known).
    """

    type: ClassVar[str] = "transcript.final"
    text: str
    start: float
    end: float
    words: list[list[Any]] = field(default_factory=list)
    utterance: int = 0
    utterance_end: bool = False
    language: str = ""
    speaker: str = ""
    speaker_name: str = ""


@dataclass(kw_only=True)
class TranscriptRevised(Event):
    """Utterance ``utterance`` decoded again, whole, once it ended: its text replaces the text of that
    utterance's finals (``replaces``, as committed).  At most one per utterance, after its last final,
    and only when the words differ; finals themselves are never revised.  ``speaker`` and
    ``speaker_name`` are the utterance's, as on its last final."""

    type: ClassVar[str] = "transcript.revised"
    text: str
    start: float
    end: float
    words: list[list[Any]] = field(default_factory=list)
    utterance: int = 0
    language: str = ""
    replaces: str = ""
    speaker: str = ""
    speaker_name: str = ""


@dataclass(kw_only=True)
class SpeakerTurns(Event):
    """Earlier speech changes voice label, on new evidence (never silently): each of ``turns`` {``utterance``,
    ``start``, ``end``, ``speaker``, ``speaker_name``} says that the words of that utterance whose middle lies in
    [start, end) (media seconds) are ``speaker``'s from now on, whatever the finals said.  ``reason``: ``split``
    (one utterance held several voices: sent right after its last final), ``recluster`` (past speech moved to
    another voice as more was heard) or ``merged`` (labels found to be one voice: ``merged`` maps each label gone
    to the label kept)."""

    type: ClassVar[str] = "speaker.turns"
    turns: list[dict[str, Any]] = field(default_factory=list)
    reason: str = ""
    merged: dict[str, str] = field(default_factory=dict)


@dataclass(kw_only=True)
class SpeakerNamed(Event):
    """A voice label takes a name (or a new one): ``how`` is ``introduced`` ("I'm Tom"), ``addressed`` ("Thanks,
    Alice." after that voice spoke; "Carol, please ..." and a new voice answers), ``participants`` (the names
    given up front), ``profile`` (a known voice, ``--voices``) or ``viewer`` (renamed on the page); ``utterance``
    is the one that gave it away (0: none).  Finals from then on carry it as ``speaker_name``.  ``name`` "" says the
    label lost its name (it went with the speech that gave it to another label: ``previous`` is the name)."""

    type: ClassVar[str] = "speaker.named"
    speaker: str
    name: str
    how: str = ""
    utterance: int = 0
    previous: str = ""


# --- language model ----------------------------------------------------------


@dataclass(kw_only=True)
class AssistantStarted(Event):
    """A generation began; ``trigger`` says why (final, heartbeat, scene, question).

    An answer to a question is checked before it is shown: it arrives as one delta.
    """

    type: ClassVar[str] = "assistant.started"
    generation: int
    trigger: str
    backend: str = ""
    model: str = ""
    question: str = ""  # for trigger "question": the utterance addressed to the assistant, verbatim
    asker: str = ""  # for trigger "question": who asked (a participant's or speaker's name, a voice label, "viewer")
    # What a twin update affords now (chosen from the backend's measured speed): best-of-N samples,
    # refine rounds, within its latency budget.
    twin_budget_s: float = 0.0
    twin_samples: int = 1
    twin_refine: int = 0
    # With --llm-race or --llm-fallback: how ``backend`` came to answer ("primary", "race": the first of
    # the racers to produce a token, "fallback": the ones before it failed or stalled) and, for a
    # fallback, why (``reason``).  Empty with a single backend.
    route: str = ""
    reason: str = ""


@dataclass(kw_only=True)
class AssistantSwitched(Event):
    """Another backend took a generation over after its first token (the one answering failed or stalled).

    ``restart``: the text shown so far for this generation is withdrawn; the deltas that follow
    are the new backend's answer from its beginning.
    """

    type: ClassVar[str] = "assistant.switched"
    generation: int
    backend: str
    model: str = ""
    previous: str = ""
    reason: str = ""
    restart: bool = True


@dataclass(kw_only=True)
class AssistantDelta(Event):
    type: ClassVar[str] = "assistant.delta"
    generation: int
    text: str


@dataclass(kw_only=True)
class AssistantDone(Event):
    """End of a generation; a cancelled one is not an answer."""

    type: ClassVar[str] = "assistant.done"
    generation: int
    ttft_ms: float | None = None
    tokens: int = 0
    tokens_per_s: float | None = None
    cancelled: bool = False
    reason: str = ""


@dataclass(kw_only=True)
class TwinState(Event):
    """The whole digital twin; sent first and to late joiners."""

    type: ClassVar[str] = "twin.state"
    version: int
    state: dict[str, Any] = field(default_factory=dict)


@dataclass(kw_only=True)
class TwinPatch(Event):
    """RFC 6902 JSON Patch from ``version - 1`` to ``version``; ``why`` explains the pick."""

    type: ClassVar[str] = "twin.patch"
    version: int
    patch: list[dict[str, Any]] = field(default_factory=list)
    why: dict[str, Any] = field(default_factory=dict)


# --- vision ------------------------------------------------------------------


@dataclass(kw_only=True)
class VisionObservation(Event):
    """A sampled frame worth attention: kind is scene_change, motion or keyframe."""

    type: ClassVar[str] = "vision.observation"
    kind: str
    score: float
    thumbnail: str = ""
    width: int = 0
    height: int = 0
    note: str = ""
