"""Per-client coalescing of ``assistant.delta`` texts into frames.

A fast model emits far more deltas than a browser needs to see: one websocket
message per token would cost more than the token.  Each client gets its own
coalescer: deltas are merged for ``window_s`` (a few tens of ms, below what a
reader notices), longer while the client reports a backlog, and not at all
while it cannot send.  Pending text is bounded: past ``max_pending_chars`` the
oldest pending characters are dropped and the next frame of that generation
says how many, so the client can show the gap instead of silently losing it.

Plain class: no I/O, no clock; ``now`` is passed in.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Frame:
    """Merged delta text of one generation; ``dropped_chars`` were lost just before ``text``."""

    generation: int
    text: str
    dropped_chars: int = 0


@dataclass
class _Segment:
    generation: int
    parts: list[str] = field(default_factory=list)
    chars: int = 0
    dropped: int = 0


class TokenCoalescer:
    def __init__(
        self,
        window_s: float = 0.03,
        max_pending_chars: int = 1 << 18,
        *,
        slow_backlog_bytes: int = 1 << 16,
        max_window_s: float = 0.5,
    ) -> None:
        self.window_s = window_s
        self.max_pending_chars = max_pending_chars
        self.slow_backlog_bytes = slow_backlog_bytes
        self.max_window_s = max_window_s
        self._segments: list[_Segment] = []
        self._pending_chars = 0
        self._first_pending_at: float | None = None
        self.dropped_chars_total = 0

    @property
    def pending_chars(self) -> int:
        return self._pending_chars

    def push(self, now: float, generation: int, text: str) -> None:
        """Queue one delta; consecutive deltas of one generation merge."""
        if not text:
            return
        if not self._segments or self._segments[-1].generation != generation:
            self._segments.append(_Segment(generation))
        segment = self._segments[-1]
        segment.parts.append(text)
        segment.chars += len(text)
        self._pending_chars += len(text)
        if self._first_pending_at is None:
            self._first_pending_at = now
        if self._pending_chars > self.max_pending_chars:
            self._drop_oldest(self._pending_chars - self.max_pending_chars)

    def window_for(self, backlog_bytes: int = 0) -> float:
        """The merge window: one step longer per ``slow_backlog_bytes`` of unsent backlog."""
        steps = 1 + backlog_bytes // self.slow_backlog_bytes
        return min(self.max_window_s, self.window_s * steps)

    def next_due(self, backlog_bytes: int = 0) -> float | None:
        """When :meth:`due` will next have a frame (None: nothing pending)."""
        if self._first_pending_at is None:
            return None
        return self._first_pending_at + self.window_for(backlog_bytes)

    def due(self, now: float, backlog_bytes: int = 0, can_send: bool = True) -> list[Frame]:
        """Frames to send now: everything pending once the oldest delta waited a full window."""
        due_at = self.next_due(backlog_bytes)
        if due_at is None or not can_send or now < due_at:
            return []
        return self.flush()

    def flush(self) -> list[Frame]:
        """Everything pending, at once (e.g. before ``assistant.done`` is forwarded)."""
        frames = [Frame(s.generation, "".join(s.parts), s.dropped) for s in self._segments]
        self._segments = []
        self._pending_chars = 0
        self._first_pending_at = None
        return frames

    def _drop_oldest(self, excess: int) -> None:
        for segment in self._segments:
            if excess <= 0:
                break
            if segment.chars == 0:
                continue
            cut = min(excess, segment.chars)
            text = "".join(segment.parts)[cut:]
            segment.parts = [text] if text else []
            segment.chars -= cut
            segment.dropped += cut
            self._pending_chars -= cut
            self.dropped_chars_total += cut
            excess -= cut
