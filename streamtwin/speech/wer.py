"""Word error rate, for tests and benchmarks that score transcripts against references."""

from __future__ import annotations

import re

_SPEAKER = re.compile(r"^\s*\w+:\s*", re.MULTILINE)
_NON_WORD = re.compile(r"[^\w' ]+|_")


def normalise(text: str, *, strip_speakers: bool = False) -> list[str]:
    """Lower-case words without punctuation (and without "Name:" prefixes if asked)."""
    if strip_speakers:
        text = _SPEAKER.sub(" ", text)
    text = _NON_WORD.sub(" ", text.lower().replace("-", " "))
    return text.split()


def word_error_rate(reference: list[str], hypothesis: list[str]) -> float:
    """(substitutions + deletions + insertions) / reference words, by edit distance."""
    if not reference:
        return float(bool(hypothesis))
    previous = list(range(len(hypothesis) + 1))
    for i, ref_word in enumerate(reference, 1):
        current = [i]
        for j, hyp_word in enumerate(hypothesis, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ref_word != hyp_word)))
        previous = current
    return previous[-1] / len(reference)
