"""Voice-activity endpointing: turns per-window speech probabilities into speech edges.

Silero VAD scores 32 ms windows; this class adds hysteresis and timing so the
recogniser knows when speech started, when a short *pause* happened (a safe
place to commit and trim) and when the utterance *ended* (flush everything).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class SpeechStart:
    time: float  # media seconds, already padded backwards


@dataclass(frozen=True)
class SpeechPause:
    time: float  # where the silence began


@dataclass(frozen=True)
class SpeechEnd:
    time: float  # where the silence began (speech end)


EndpointEvent = SpeechStart | SpeechPause | SpeechEnd


class Endpointer:
    """Hysteresis over VAD probabilities.

    ``threshold`` opens speech, ``threshold - 0.15`` keeps it open; a silence of
    ``pause_s`` yields one :class:`SpeechPause`, of ``end_s`` one :class:`SpeechEnd`.
    Speech shorter than ``min_speech_s`` that ends is ignored (clicks, breaths).
    """

    def __init__(
        self,
        threshold: float = 0.5,
        pause_s: float = 0.2,
        end_s: float = 0.4,
        pad_s: float = 0.15,
        min_speech_s: float = 0.1,
    ):
        self.threshold = threshold
        self.neg_threshold = max(threshold - 0.15, 0.01)
        self.pause_s = pause_s
        self.end_s = end_s
        self.pad_s = pad_s
        self.min_speech_s = min_speech_s
        self.in_speech = False
        self.speech_start = 0.0
        self._silence_start: float | None = None
        self._paused = False
        self._last_end = 0.0

    def push(self, prob: float, start: float, end: float) -> list[EndpointEvent]:
        """Feed one VAD window covering media ``[start, end)``; returns the edges it caused."""
        if not self.in_speech:
            if prob >= self.threshold:
                self.in_speech = True
                self.speech_start = max(start - self.pad_s, self._last_end, 0.0)
                self._silence_start = None
                self._paused = False
                return [SpeechStart(self.speech_start)]
            return []

        if prob >= self.neg_threshold:
            self._silence_start = None
            self._paused = False
            return []
        if self._silence_start is None:
            self._silence_start = start
        silence = end - self._silence_start
        too_short = self._silence_start - self.speech_start < self.min_speech_s + self.pad_s
        if silence >= self.end_s:
            self.in_speech = False
            self._last_end = self._silence_start
            return [] if too_short else [SpeechEnd(self._silence_start)]
        if silence >= self.pause_s and not self._paused and not too_short:
            self._paused = True
            return [SpeechPause(self._silence_start)]
        return []

    def finish(self, now: float) -> list[EndpointEvent]:
        """The source ended: close an open utterance."""
        if not self.in_speech:
            return []
        self.in_speech = False
        end = self._silence_start if self._silence_start is not None else now
        return [SpeechEnd(end)]
