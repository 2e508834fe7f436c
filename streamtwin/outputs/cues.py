"""Subtitle cues from committed words: at most two lines, about seven seconds each.

Readers take in a short block of text at a glance, so a cue closes when its words
would need a third line (``max_chars`` a line), when it would last longer than
``max_duration_s``, after a long pause (``max_gap_s``), and at the end of an
utterance (the next one is often another speaker).  Past one full line it also
closes at the end of a sentence, so a cue does not start the next sentence with
a fragment.  A cue shorter than ``min_duration_s`` stays up longer, but never
into the next one; that is why a closed cue is held until the next word arrives.

Plain class: no I/O, no clock; words carry media seconds.  ``streamtwin/web/exports.js``
builds the same cues in the page (a test holds the two to the same output).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Sequence

SENTENCE_END = (".", "?", "!", "…")
CLAUSE_END = (",", ";", ":", "—")


@dataclass(frozen=True)
class Word:
    text: str
    start: float
    end: float


@dataclass(frozen=True)
class Cue:
    start: float
    end: float
    lines: tuple[str, ...]

    @property
    def text(self) -> str:
        return " ".join(self.lines)


def timed_words(text: str, start: float, end: float, words: Sequence[Sequence[Any]]) -> list[Word]:
    """The words of one final with times: the recogniser's own when they spell the final's
    text, else the text's words spread evenly over the final's span (the text is what counts)."""
    tokens = text.split()
    if [str(word[0]).strip() for word in words] == tokens:
        return [Word(token, float(word[1]), float(word[2])) for token, word in zip(tokens, words)]
    step = (end - start) / len(tokens) if tokens else 0.0
    return [Word(token, start + i * step, start + (i + 1) * step) for i, token in enumerate(tokens)]


def break_lines(words: Sequence[str], max_chars: int) -> list[str] | None:
    """``words`` on one line if they fit, else on two; None when they need three.

    Of the ways to split in two, one after a sentence end reads best, then one after a
    comma (or other pause), then the most balanced.  A word longer than a line may stand
    on a line of its own."""

    def fits(line: Sequence[str]) -> bool:
        return len(line) == 1 or len(" ".join(line)) <= max_chars

    if fits(words):
        return [" ".join(words)]
    best: tuple[int, int, int] | None = None  # (pause rank, longest line, split index)
    for split in range(1, len(words)):
        first, second = words[:split], words[split:]
        if fits(first) and fits(second):
            pause = 0 if first[-1].endswith(SENTENCE_END) else 1 if first[-1].endswith(CLAUSE_END) else 2
            rank = (pause, max(len(" ".join(first)), len(" ".join(second))), split)
            if best is None or rank < best:
                best = rank
    if best is None:
        return None
    return [" ".join(words[: best[2]]), " ".join(words[best[2]:])]


class CueBuilder:
    """Feed each final's words with :meth:`add`; finished cues come back in order."""

    def __init__(
        self,
        *,
        max_chars: int = 42,
        max_duration_s: float = 7.0,
        max_gap_s: float = 1.5,
        min_duration_s: float = 1.0,
    ) -> None:
        self.max_chars = max_chars
        self.max_duration_s = max_duration_s
        self.max_gap_s = max_gap_s
        self.min_duration_s = min_duration_s
        self._words: list[Word] = []  # the open cue
        self._held: Cue | None = None  # closed, waiting for the next cue's start

    def add(self, words: Sequence[Word], *, utterance_end: bool = False) -> list[Cue]:
        """One final's words (in order); ``utterance_end`` closes the open cue after them."""
        done: list[Cue] = []
        for word in words:
            if self._words and self._breaks_before(word):
                self._close()
            if not self._words and self._held is not None:
                done.append(self._release(word.start))
            self._words.append(word)
            if self._full_sentence():
                self._close()
        if utterance_end:
            self._close()
        return done

    def flush(self) -> list[Cue]:
        """The source ended: every cue still open or held."""
        self._close()
        return [self._release(math.inf)] if self._held is not None else []

    def _breaks_before(self, word: Word) -> bool:
        first, last = self._words[0], self._words[-1]
        if word.start - last.end > self.max_gap_s or word.end - first.start > self.max_duration_s:
            return True
        texts = [w.text for w in self._words] + [word.text]
        return break_lines(texts, self.max_chars) is None

    def _full_sentence(self) -> bool:
        """Past one full line, a sentence end closes the cue."""
        text = " ".join(w.text for w in self._words)
        return len(text) >= self.max_chars and text.endswith(SENTENCE_END)

    def _close(self) -> None:
        if not self._words:
            return
        lines = break_lines([w.text for w in self._words], self.max_chars)
        assert lines is not None  # every word was admitted only if the cue still fit
        start, end = self._words[0].start, max(w.end for w in self._words)
        self._held = Cue(start, max(end, start), tuple(lines))
        self._words = []

    def _release(self, next_start: float) -> Cue:
        held, self._held = self._held, None
        assert held is not None
        end = max(held.end, min(held.start + self.min_duration_s, next_start))
        return Cue(held.start, end, held.lines)
