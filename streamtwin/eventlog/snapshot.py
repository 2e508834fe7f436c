"""A late joiner's snapshot: what a viewer needs before live events, folded from a session's events.

One implementation for both places a snapshot is made: a live session keeps one for viewers who join it
(:meth:`streamtwin.session.Session.snapshot`, items are the events), and a node that only reads a session's
log folds one for its viewers, or after a ``resume_gap`` (items are the logged bytes).  It holds who is in
the room (each ``participant.joined`` not followed by their ``participant.left``), the current twin whole
(the last ``twin.state`` with the ``twin.patch``es after it applied), the last ``vision.observation``, the
finals of the last whole utterances (with their revisions), the ``speaker.turns`` since (who said which part, as
relabelled), each voice label's latest ``speaker.named`` and each speaker's current partial.  Items keep
their original seqs; the twin is a new ``twin.state``.  :attr:`seq` is the last seq folded: live events
follow from there.

Plain class: no I/O, no clock.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import Generic, TypeVar

from streamtwin.events import (
    Event,
    ParticipantJoined,
    ParticipantLeft,
    SpeakerNamed,
    SpeakerTurns,
    TranscriptFinal,
    TranscriptPartial,
    TranscriptRevised,
    TwinPatch,
    TwinState,
    VisionObservation,
)
from streamtwin.twin.mirror import TwinMirror
from streamtwin.utterances import RecentUtterances

RECENT_UTTERANCES = 60  # whole utterances (all their finals) a late viewer receives

T = TypeVar("T")


class SnapshotFold(Generic[T]):
    """Events folded in order, each with the item (the event, or its bytes) a viewer is sent for it."""

    def __init__(self, session: str, recent_utterances: int | None = None) -> None:
        self.session = session
        self.seq = 0
        self._participants: dict[str, T] = {}
        self._twin = TwinMirror()
        self._observation: T | None = None
        self._recent: RecentUtterances[T] = RecentUtterances(recent_utterances or RECENT_UTTERANCES)
        self._partials: dict[str, T] = {}  # each speaker's current partial ("" when alone), if it shows text
        self._turns: deque[T] = deque(maxlen=recent_utterances or RECENT_UTTERANCES)  # relabels of recent speech
        self._names: dict[str, T] = {}  # voice label -> its latest speaker.named

    def add(self, event: Event, item: T) -> None:
        """The session's next event, and what a viewer is sent for it."""
        self.seq = max(self.seq, event.seq)
        if isinstance(event, (TwinState, TwinPatch)):
            self._twin.apply(event)
        elif isinstance(event, VisionObservation):
            self._observation = item
        elif isinstance(event, TranscriptPartial):
            if event.text:
                self._partials[event.speaker] = item
            else:
                self._partials.pop(event.speaker, None)
        elif isinstance(event, TranscriptFinal):
            self._recent.add(event, item)
        elif isinstance(event, TranscriptRevised):
            self._recent.revise(event.utterance, item)
        elif isinstance(event, SpeakerTurns):
            self._turns.append(item)
        elif isinstance(event, SpeakerNamed):
            self._names[event.speaker] = item
        elif isinstance(event, ParticipantJoined):
            self._participants[event.name] = item
        elif isinstance(event, ParticipantLeft):
            self._participants.pop(event.name, None)

    def snapshot(self, twin_item: Callable[[TwinState], T]) -> list[T]:
        """The snapshot, in the order a viewer applies it; ``twin_item`` makes the item of the current twin."""
        out = list(self._participants.values())
        if self._twin.state is not None:
            out.append(twin_item(TwinState(session=self.session, version=self._twin.version, state=self._twin.state)))
        if self._observation is not None:
            out.append(self._observation)
        out += self._recent.items()
        out += self._turns
        out += self._names.values()
        out += self._partials.values()
        return out
