"""The audio the speaker stage may still embed: the newest ``keep_s`` seconds, or from the start of the oldest
utterance still being labelled (its partials are cut from it as its words arrive), never more than
``max_keep_s``.

Plain class: numpy only, no I/O.
"""

from __future__ import annotations

import numpy as np

SAMPLE_RATE = 16000
KEEP_S = 30.0  # audio kept behind the newest sample when no utterance needs older
MAX_KEEP_S = 120.0  # never more, whatever an utterance still needs


class RecentAudio:
    def __init__(self, keep_s: float = KEEP_S, max_keep_s: float = MAX_KEEP_S) -> None:
        self.keep_s = keep_s
        self.max_keep_s = max_keep_s
        self._audio = np.zeros(0, dtype=np.float32)
        self._origin = 0  # absolute sample index of self._audio[0]

    @property
    def end_s(self) -> float:
        """Media seconds of the newest sample's end."""
        return (self._origin + len(self._audio)) / SAMPLE_RATE

    def push(self, samples: np.ndarray, needed_from_s: list[float]) -> None:
        """16 kHz mono samples; ``needed_from_s``: where each utterance still being labelled starts."""
        self._audio = np.concatenate([self._audio, np.asarray(samples, dtype=np.float32)])
        end = self._origin + len(self._audio)
        keep_from = end - int(self.keep_s * SAMPLE_RATE)
        if needed_from_s:
            needed = min(int(round(s * SAMPLE_RATE)) for s in needed_from_s)
            keep_from = max(min(keep_from, needed), end - int(self.max_keep_s * SAMPLE_RATE))
        if keep_from > self._origin + SAMPLE_RATE:  # trim in steps of a second or more
            self._audio = self._audio[keep_from - self._origin :]
            self._origin = keep_from

    def slice(self, start_s: float, end_s: float) -> np.ndarray:
        """The audio between two media times; what was already trimmed (or not heard yet) is zeros."""
        a, b = int(round(start_s * SAMPLE_RATE)), int(round(end_s * SAMPLE_RATE))
        out = np.zeros(max(0, b - a), dtype=np.float32)
        lo, hi = max(a, self._origin), min(b, self._origin + len(self._audio))
        if hi > lo:
            out[lo - a : hi - a] = self._audio[lo - self._origin : hi - self._origin]
        return out
