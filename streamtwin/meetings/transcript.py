"""A past meeting as it is asked about: its transcript (revised text, speakers, times) and its final twin.

:class:`MeetingFold` folds a recording's events (a ``run --record`` file or a session's event log) into a
:class:`Meeting`, with the same :class:`~streamtwin.utterances.Paragraphs` the notes use and the twin as a
viewer sees it.  Only the events a meeting is made of are parsed in full: :func:`wanted` tells them from the
first bytes of their JSON line, so reading a long recording is not paced by its partials, deltas and frames.

Plain classes: no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from streamtwin.events import (
    Event, SessionEnded, SessionStarted, TranscriptFinal, TranscriptRevised, TwinPatch, TwinState,
)
from streamtwin.twin.mirror import TwinMirror
from streamtwin.utterances import Paragraphs

MEETING_TYPES = frozenset({
    SessionStarted.type, SessionEnded.type, TranscriptFinal.type, TranscriptRevised.type, TwinState.type,
    TwinPatch.type,
})
# Every event line starts {"v":1,"type":"...": its type is in the first 40 bytes (events.encode writes it so).
_TYPE_PREFIXES = tuple(f'{{"v":1,"type":"{kind}"'.encode() for kind in MEETING_TYPES)


def wanted(line: bytes) -> bool:
    """Whether an event line (as :func:`streamtwin.events.encode` wrote it) is one a meeting is made of; a line
    written some other way is parsed to be sure."""
    head = line.lstrip()[:48]
    if head.startswith(b'{"v":1,"type":"'):
        return head.startswith(_TYPE_PREFIXES)
    return True


@dataclass(frozen=True)
class Line:
    """One utterance: media seconds from the meeting's start, who said it ("" unknown), what (revised)."""

    start: float
    end: float
    speaker: str
    text: str


@dataclass
class Meeting:
    name: str  # the file's stem, or the session id
    source: str  # where it was read from, credentials removed
    session: str = ""
    started: float = 0.0  # wall clock of session.started (0: unknown)
    duration: float = 0.0  # media seconds up to the last word
    lines: list[Line] = field(default_factory=list)
    twin: dict[str, Any] = field(default_factory=dict)
    ended: bool = False


class MeetingFold:
    """Events in (in seq order), a :class:`Meeting` out."""

    def __init__(self, name: str, source: str) -> None:
        self._meeting = Meeting(name=name, source=source)
        self._paragraphs = Paragraphs()
        self._twin = TwinMirror()
        self.events = 0

    def add(self, event: Event) -> None:
        self.events += 1
        meeting = self._meeting
        if isinstance(event, TranscriptFinal):
            self._paragraphs.final(event)
        elif isinstance(event, TranscriptRevised):
            self._paragraphs.revised(event)
        elif isinstance(event, (TwinState, TwinPatch)):
            self._twin.apply(event)
        elif isinstance(event, SessionStarted):
            meeting.session, meeting.started = event.session, event.wall
        elif isinstance(event, SessionEnded):
            meeting.ended = True

    def meeting(self) -> Meeting:
        meeting = self._meeting
        said = self._paragraphs.flush()
        meeting.lines = [Line(p.start, p.end, p.speaker, " ".join(p.text.split())) for p in said if p.text.strip()]
        meeting.duration = max((line.end for line in meeting.lines), default=0.0)
        meeting.twin = dict(self._twin.state or {})
        return meeting
