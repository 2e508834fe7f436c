"""Where each word of a sample was spoken, to measure commit latency from: the synthesizer's word ends.

Whisper's aligned ends, which the committed words carry, are off: base's come early (an utterance's last
word by 0.1-0.26 s on these samples), which added 0.07-0.08 s to the median commit latency on meeting.wav,
and tiny.en's late, which took 0.02-0.07 s off it.  Measured from them, the aligner's error counts as
latency.  ``samples/NAME.words.json`` holds where espeak-ng ended every word (``samples/word_times.py``).
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Container
from pathlib import Path

from streamtwin.speech.wer import normalise


def word_key(text: str) -> str:
    return " ".join(normalise(text))


def spoken_word_ends(path: str, turns: Container[int] | None = None) -> list[tuple[str, float]] | None:
    """The sample's words (normalised) and where the synthesizer ended each (``NAME.words.json``), or None;
    only the words of ``turns`` (indices into the sample's script) if given: one speaker's.
    ``meeting.mp4`` is ``meeting.wav``'s first 20 s (``meeting_mp4.json``), so it finds that file's words:
    the ones after its end are never committed, so never matched."""
    words = Path(path).with_suffix(".words.json")
    if not words.is_file():
        return None
    return [
        (word_key(w["word"]), w["end"])
        for w in json.loads(words.read_text())["words"]
        if turns is None or w["turn"] in turns
    ]


def timed_commits(committed: list[tuple[str, float]], spoken: list[tuple[str, float]]) -> list[float]:
    """Commit latency of each committed word the transcript has right: ``committed`` is (word, committed
    at), ``spoken`` (word, its end), both in order, words normalised; the two are aligned word by word
    (a misheard, missing or extra word has no latency here)."""
    matcher = difflib.SequenceMatcher(a=[w for w, _ in committed], b=[w for w, _ in spoken], autojunk=False)
    return [committed[a + k][1] - spoken[b + k][1] for a, b, size in matcher.get_matching_blocks() for k in range(size)]
