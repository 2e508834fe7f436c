"""A late joiner's snapshot, folded from a session's event log: what a node that does not run the session
(it only reads the log) sends a viewer before live events, or after a ``resume_gap``.

The same content as :meth:`streamtwin.session.Session.snapshot`: the current twin whole (the last
``twin.state`` with the ``twin.patch``es after it applied), the last ``vision.observation``, the finals of
the last whole utterances (with their revisions) and the current partial.  Events keep their original bytes (and seqs); the
twin is serialised anew.  :attr:`seq` is the last seq folded: live events follow from there.

Plain class: no I/O, no clock.
"""

from __future__ import annotations

from streamtwin.events import (
    Event,
    TranscriptFinal,
    TranscriptPartial,
    TranscriptRevised,
    TwinPatch,
    TwinState,
    VisionObservation,
    encode,
)
from streamtwin.twin.mirror import TwinMirror
from streamtwin.utterances import RecentUtterances

RECENT_UTTERANCES = 60


class SnapshotFold:
    def __init__(self, session: str, recent_utterances: int = RECENT_UTTERANCES) -> None:
        self.session = session
        self.seq = 0
        self._twin = TwinMirror()
        self._observation: bytes | None = None
        self._recent: RecentUtterances[bytes] = RecentUtterances(recent_utterances)
        self._partial: TranscriptPartial | None = None
        self._partial_data = b""

    def add(self, event: Event, data: bytes) -> None:
        """The next event of the log (``data``: its bytes as logged)."""
        self.seq = max(self.seq, event.seq)
        if isinstance(event, (TwinState, TwinPatch)):
            self._twin.apply(event)
        elif isinstance(event, VisionObservation):
            self._observation = data
        elif isinstance(event, TranscriptPartial):
            self._partial, self._partial_data = event, data
        elif isinstance(event, TranscriptFinal):
            self._recent.add(event, data)
        elif isinstance(event, TranscriptRevised):
            self._recent.revise(event.utterance, data)

    def events(self) -> list[bytes]:
        """The snapshot, in the order a viewer applies it."""
        out: list[bytes] = []
        if self._twin.state is not None:
            twin = TwinState(session=self.session, version=self._twin.version, state=self._twin.state)
            out.append(encode(twin.to_dict()))
        if self._observation is not None:
            out.append(self._observation)
        out += self._recent.items()
        if self._partial is not None and self._partial.text:
            out.append(self._partial_data)
        return out
