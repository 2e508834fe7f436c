"""A room of several publishers: who is in it, and how their finals share one transcript.

:class:`Roster` admits participants by name (checked, unique within the room, a stable colour
slot each) and forgets them when they leave.

:class:`Interleave` puts the finals of several speech streams (one per participant, each its own
speech stage) onto one event stream.  Everything downstream (the session's recent transcript, the
assistant's context window, the page) groups finals into utterances one at a time, so the
interleave hands over an utterance at a time: the stream whose pending utterance started first
has the floor until that utterance ends; the others' finals wait, then follow in order of their
start.  A final never waits longer than ``max_hold_s``: a long monologue cannot mute the room
(the interrupted utterance then continues as a new paragraph).  Utterance numbers are made
unique within the session (each stream counts from 1).

Plain classes: no I/O, no clock (``now`` is passed in), no events: items are opaque.
"""

from __future__ import annotations

import unicodedata
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from streamtwin.rooms.lookalikes import read_alike, skeleton

MAX_NAME_CHARS = 40
COLOUR_SLOTS = 8
DEFAULT_MAX_HOLD_S = 4.0
KEEP_ENDED = 32  # utterances per stream whose revision may still come


class RosterError(Exception):
    """A join the room refuses: ``code`` and a message for the client."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code
        self.message = message


def clean_name(raw: Any) -> str:
    """A participant's display name: printable text, spaces folded, 1-40 characters; raises :class:`RosterError`."""
    if not isinstance(raw, str):
        raise RosterError("bad_name", "options.name must be a string (the participant's display name)")
    name = " ".join("".join(c for c in raw if unicodedata.category(c)[0] != "C").split())
    if not name:
        raise RosterError("bad_name", "a room participant needs a name (options.name)")
    if len(name) > MAX_NAME_CHARS:
        raise RosterError("bad_name", f"a name has at most {MAX_NAME_CHARS} characters")
    label = skeleton(name)
    if label.startswith("S") and label[1:].isdigit():  # "S2" is how a voice label reads: never a person
        raise RosterError("bad_name", f"{name!r} reads as a voice label; choose another name")
    return name


@dataclass(frozen=True)
class Member:
    name: str
    slot: int  # 1..COLOUR_SLOTS: the colour the page gives this speaker
    joined_at: float  # session seconds when they joined


class Roster:
    def __init__(self, max_participants: int = 8):
        self.max_participants = max_participants
        self.members: dict[str, Member] = {}  # in order of joining
        self._slots_used = 0

    def join(self, raw_name: Any, at: float) -> Member:
        name = clean_name(raw_name)
        if any(read_alike(name, member) for member in self.members):  # "Tom" in Cyrillic or full-width is Tom
            raise RosterError("name_taken", f"someone called {name!r} is already in this room; choose another name")
        if len(self.members) >= self.max_participants:
            raise RosterError("room_full", f"the room holds its maximum of {self.max_participants} participants")
        member = Member(name, self._slots_used % COLOUR_SLOTS + 1, at)
        self._slots_used += 1
        self.members[name] = member
        return member

    def leave(self, name: str) -> Member | None:
        return self.members.pop(name, None)

    def __len__(self) -> int:
        return len(self.members)


@dataclass
class _Pending:
    utterance: int  # the stream's own number
    start: float
    ends: bool  # the last final of its utterance
    item: Any
    arrived: float


@dataclass
class _Stream:
    queue: deque[_Pending] = field(default_factory=deque)
    numbers: dict[int, int] = field(default_factory=dict)  # own utterance number -> the session's
    ended: dict[int, int] = field(default_factory=dict)  # the same, for utterances released whole (recent ones)
    revisions: dict[int, Any] = field(default_factory=dict)  # revisions whose utterance is still held


class Interleave:
    """Feed each stream's finals in order with :meth:`push`; released ``(item, utterance)`` pairs come back,
    ``utterance`` being the session-wide number to give the final."""

    def __init__(self, max_hold_s: float = DEFAULT_MAX_HOLD_S):
        self.max_hold_s = max_hold_s
        self._streams: dict[str, _Stream] = {}
        self._floor: str | None = None
        self._next_number = 1

    def push(
        self, stream: str, item: Any, *, utterance: int, start: float, ends: bool, now: float
    ) -> list[tuple[Any, int]]:
        self._streams.setdefault(stream, _Stream()).queue.append(_Pending(utterance, start, ends, item, now))
        return self.release(now)

    def revise(self, stream: str, item: Any, *, utterance: int) -> list[tuple[Any, int]]:
        """A revision of the stream's utterance ``utterance``: out under the session's number once that
        utterance's last final is (now, if it is already)."""
        known = self._streams.get(stream)
        if known is None:
            return []
        if utterance in known.ended:
            return [(item, known.ended.pop(utterance))]
        if any(pending.utterance == utterance and pending.ends for pending in known.queue):
            known.revisions[utterance] = item
        return []  # else long gone (or revised already): nothing to revise

    def remove(self, stream: str, now: float) -> list[tuple[Any, int]]:
        """The stream ended (its speech flushed): what it still holds goes out, and it gives up the floor."""
        out = self._drain(stream, everything=True) if stream in self._streams else []
        self._streams.pop(stream, None)
        if self._floor == stream:
            self._floor = None
        return out + self.release(now)

    def next_deadline(self) -> float | None:
        """When the oldest held final is due regardless of the floor (for the caller's timer)."""
        waiting = [s.queue[0].arrived for name, s in self._streams.items() if s.queue and name != self._floor]
        return min(waiting) + self.max_hold_s if waiting else None

    def release(self, now: float) -> list[tuple[Any, int]]:
        out: list[tuple[Any, int]] = []
        while True:
            if self._floor is None:
                self._floor = self._earliest()
                if self._floor is None:
                    return out
            out += self._drain(self._floor)
            if self._floor is not None and self._overdue(now):
                self._floor = None  # the others waited long enough: the open utterance is interrupted
            elif self._floor is not None:
                return out

    def _drain(self, name: str, everything: bool = False) -> list[tuple[Any, int]]:
        """The floor's finals up to the end of its utterance (which gives up the floor)."""
        stream = self._streams[name]
        out = []
        while stream.queue:
            pending = stream.queue.popleft()
            number = self._number(stream, pending.utterance)
            out.append((pending.item, number))
            if pending.ends:
                stream.numbers.pop(pending.utterance, None)
                if pending.utterance in stream.revisions:
                    out.append((stream.revisions.pop(pending.utterance), number))
                else:
                    stream.ended[pending.utterance] = number
                    while len(stream.ended) > KEEP_ENDED:
                        del stream.ended[next(iter(stream.ended))]
                if not everything:
                    self._floor = None
                    break
        return out

    def _number(self, stream: _Stream, own: int) -> int:
        if own not in stream.numbers:
            stream.numbers[own] = self._next_number
            self._next_number += 1
        return stream.numbers[own]

    def _earliest(self) -> str | None:
        heads = [(s.queue[0].start, name) for name, s in self._streams.items() if s.queue]
        return min(heads)[1] if heads else None

    def _overdue(self, now: float) -> bool:
        deadline = self.next_deadline()
        return deadline is not None and now >= deadline
