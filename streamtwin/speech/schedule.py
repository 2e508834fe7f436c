"""Which speech streams the shared engine decodes next, and which of them together.

Every session's speech stream asks the engine for a decode when its policy has
one due; the engine materialises the request only when it runs, so a decode
always covers the freshest audio and no stale work queues up.  This class only
orders the waiting streams: earliest deadline first (a stream that talks
non-stop asks again at once, but with a later deadline than a quiet stream that
has been waiting, so it cannot starve it), and it groups streams into one batch
while padding every window to the longest one wastes little.  No clock, no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Hashable

# How long a decode of each kind may wait before it is late: an utterance's end is
# what a person waits for, a pause commit next, a growing-window step after, an ended
# utterance's second decode (its revision) last.
SLACK_S = {"final": 0.0, "pause": 0.05, "step": 0.3, "revise": 1.0}


@dataclass(frozen=True)
class Waiting:
    stream: Hashable
    deadline: float
    seconds: float  # length of the window it will decode (padding cost in a batch)


class DecodeScheduler:
    def __init__(self, max_batch: int = 4, max_padding: float = 0.35, tail_s: float = 6.0):
        self.max_batch = max_batch
        self.max_padding = max_padding  # share of a batch's encoder work spent on padding
        self.tail_s = tail_s  # silence every window is encoded with anyway
        self._waiting: dict[Hashable, Waiting] = {}

    def want(self, stream: Hashable, now: float, kind: str, seconds: float) -> None:
        """``stream`` has a decode of ``kind`` due; an earlier wish keeps its (earlier) deadline."""
        deadline = now + SLACK_S.get(kind, SLACK_S["step"])
        known = self._waiting.get(stream)
        if known is not None:
            deadline = min(deadline, known.deadline)
        self._waiting[stream] = Waiting(stream, deadline, seconds)

    def drop(self, stream: Hashable) -> None:
        self._waiting.pop(stream, None)

    @property
    def depth(self) -> int:
        return len(self._waiting)

    def next_batch(self) -> list[Hashable]:
        """Streams to decode now (removed from the queue): the most urgent first."""
        ordered = sorted(self._waiting.values(), key=lambda w: w.deadline)
        batch: list[Waiting] = []
        for candidate in ordered:
            if len(batch) == self.max_batch:
                break
            if not batch or self._padding(batch + [candidate]) <= self.max_padding:
                batch.append(candidate)
        for chosen in batch:
            del self._waiting[chosen.stream]
        return [chosen.stream for chosen in batch]

    def _padding(self, batch: list[Waiting]) -> float:
        longest = max(w.seconds for w in batch) + self.tail_s
        useful = sum(w.seconds + self.tail_s for w in batch)
        return 1.0 - useful / (longest * len(batch)) if longest > 0 else 0.0
