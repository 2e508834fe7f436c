"""A session's ``assistant.delta`` texts merged into frames that every client receives alike.

A fast model's text reaches the session once per event-loop turn; a websocket
message per turn per client would still cost more than the text.  The session
merges deltas for a short window and sends each frame, serialised once, to all
of its clients.  Sending a frame costs a client about the same whatever its
size, so the window grows with the number of clients (``clients / sends_per_s``)
between ``min_window_s`` (what a lone viewer waits) and ``max_window_s`` (below
what a reader notices).  How a client that falls behind is treated is its own
:class:`~pipeline.policy.outbox.Outbox`'s business, never the session's.

Plain class: no I/O, no clock; ``now`` is passed in.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Frame:
    """Merged text of one generation; ``last`` is its newest delta, whose envelope heads the frame."""

    generation: int
    text: str
    last: Any = None


@dataclass
class _Segment:
    generation: int
    parts: list[str] = field(default_factory=list)
    last: Any = None


class FrameCoalescer:
    def __init__(self, min_window_s: float = 0.002, max_window_s: float = 0.03, sends_per_s: float = 5000.0) -> None:
        self.min_window_s = min_window_s
        self.max_window_s = max_window_s
        self.sends_per_s = sends_per_s
        self._segments: list[_Segment] = []
        self._first_pending_at: float | None = None

    def window_for(self, clients: int) -> float:
        """How long deltas wait to share a frame: the sends of one frame to every client stay
        within ``sends_per_s``."""
        return min(self.max_window_s, max(self.min_window_s, clients / self.sends_per_s))

    def push(self, now: float, generation: int, text: str, last: Any = None) -> None:
        """Queue one delta; consecutive deltas of one generation merge."""
        if not text:
            return
        if not self._segments or self._segments[-1].generation != generation:
            self._segments.append(_Segment(generation))
        segment = self._segments[-1]
        segment.parts.append(text)
        segment.last = last
        if self._first_pending_at is None:
            self._first_pending_at = now

    def next_due(self, clients: int) -> float | None:
        """When the pending deltas are due as frames (None: nothing pending)."""
        if self._first_pending_at is None:
            return None
        return self._first_pending_at + self.window_for(clients)

    def flush(self) -> list[Frame]:
        """Everything pending, as frames: when due, or before another event is forwarded (order is kept)."""
        frames = [Frame(s.generation, "".join(s.parts), s.last) for s in self._segments]
        self._segments = []
        self._first_pending_at = None
        return frames
