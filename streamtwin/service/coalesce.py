"""A session's ``assistant.delta`` texts merged into frames that every client receives alike.

A fast model's text reaches the session once per event-loop turn; a websocket
message per turn per client would still cost more than the text.  The session
merges deltas for a short window and sends each frame, serialised once, to all
of its clients.  Sending a frame costs a client about the same whatever its
size, so the window grows with the number of clients (``clients / sends_per_s``)
between ``min_window_s`` (what a lone viewer waits) and ``max_window_s`` (below
what a reader notices).  How a client that falls behind is treated is its own
:class:`~streamtwin.service.outbox.Outbox`'s business, never the session's.

Plain class: no I/O, no clock: the caller starts the window when :meth:`push` says one begins.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Frame:
    """Merged text of one generation from ``deltas`` deltas; ``last`` is the newest, whose envelope heads
    the frame."""

    generation: int
    text: str
    last: Any = None
    deltas: int = 1


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

    def window_for(self, clients: int) -> float:
        """How long deltas wait to share a frame, from the first pending one: the sends of one frame to
        every client stay within ``sends_per_s``."""
        return min(self.max_window_s, max(self.min_window_s, clients / self.sends_per_s))

    def push(self, generation: int, text: str, last: Any = None) -> bool:
        """Queue one delta (consecutive deltas of one generation merge); True if nothing was pending
        before it: its window starts now."""
        if not text:
            return False
        first = not self._segments
        if first or self._segments[-1].generation != generation:
            self._segments.append(_Segment(generation))
        segment = self._segments[-1]
        segment.parts.append(text)
        segment.last = last
        return first

    def flush(self) -> list[Frame]:
        """Everything pending, as frames: when its window ends, or before another event is forwarded
        (order is kept)."""
        frames = [Frame(s.generation, "".join(s.parts), s.last, len(s.parts)) for s in self._segments]
        self._segments = []
        return frames
