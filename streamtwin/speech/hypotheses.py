"""What one decode heard, and which of its words two decodes agree on (LocalAgreement-2).

Whisper re-decodes a growing window, so the same words arrive again and again, sometimes revised.
:class:`LocalAgreement` keeps the words committed so far and commits the longest prefix that two
hypotheses heard a stride apart agree on; :func:`speech_words` drops what only looks like speech.
The scheduling around it is :mod:`streamtwin.speech.agreement`.  Plain code: no I/O, no clock.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace

# A word as a decode reports it, window-relative: (text, start, end) or (text, start, end, probability).
HeardWord = tuple[str, float, float] | tuple[str, float, float, float]

_PUNCT = re.compile(r"[^\w']+")
_SPACES = re.compile(r"\s{2,}")


@dataclass(frozen=True)
class Word:
    text: str  # as Whisper printed it, with its leading space and punctuation
    start: float
    end: float
    prob: float = 0.0  # the decoder's probability of the word (0: not known)

    @property
    def key(self) -> str:
        return _PUNCT.sub("", self.text.lower())


def join_words(words: list[Word]) -> str:
    # Whisper may emit a space token of its own ("I think  the").
    return _SPACES.sub(" ", "".join(w.text for w in words)).strip()


def spoken_words(words: list[Word]) -> list[Word]:
    """Punctuation Whisper printed as a word of its own joins the word before it (or goes)."""
    out: list[Word] = []
    for word in words:
        if word.key:
            out.append(word)
        elif out:
            out[-1] = Word(out[-1].text + word.text.strip(), out[-1].start, out[-1].end, out[-1].prob)
    return out


class LocalAgreement:
    """Commits the longest prefix two hypotheses agree on, never the newer one's last word.

    The two are not simply the last two: decodes run every quarter second, and two
    windows that differ by so little audio make the same mistake twice.  The newer
    hypothesis is compared with the latest one heard at least ``stride`` seconds
    earlier (``insert(..., heard_until=)``), as if decodes came that far apart.

    A word heard once is the slow case: it waits for the next decode.  With ``confident``, the
    words after a prefix agreed in full commit on one hearing while each has at least that
    probability (the first unsure one and all after it wait for agreement; the last word is still
    held back).  Whisper base, 0.9, the five English samples on the virtual clock: word commit
    p50 / p90 0.745 / 1.423 s -> 0.730 / 1.362, the finals the same but on the shared microphone,
    where they got better (WER 11.2 -> 8.2%); German and Spanish unchanged (``bench.asr_stream``).

    A word the two read differently holds every word after it, and a first word after a silence
    may be read differently by every decode ("God" / "Good"): on a room participant's own track,
    "Good, then we can launch the app" waited for the utterance's end (2.6 s for "Good").  With
    ``substitute_after`` = K, a word the two differ on is agreed on as the newer reads it (it heard
    more) when both then agree on the next K words.  K = 2, virtual clock (2026-12-05): that track's
    p90 2.26 -> 1.16 s; German finals WER 46.8 -> 45.5%, revised 13.0 -> 10.4%; every other figure of
    base and tiny.en on the seven samples the same or better, no WER worse.
    """

    KEEP_COMMITTED = 120  # words kept for prompts and de-duplication; older ones are already out

    def __init__(
        self, stride: float = 0.0, settled_gap: float | None = None, confident: float | None = None,
        substitute_after: int = 0,
    ) -> None:
        self.stride = stride
        self.confident = confident
        self.substitute_after = substitute_after
        # The newest hypothesis's last word is held back (it may be cut short) unless the audio
        # went on for ``settled_gap`` seconds past it with no further word heard.
        self.settled_gap = settled_gap
        self.committed: list[Word] = []  # the most recent committed words (bounded)
        self.committed_end = 0.0
        self.hypothesis: list[Word] = []  # the latest uncommitted words
        self._history: list[tuple[float, list[Word]]] = []  # (audio end, hypothesis), oldest first

    def insert(self, words: list[Word], heard_until: float | None = None, commit: bool = True) -> list[Word]:
        """Take a new hypothesis (absolute times); return the newly agreed words (none unless ``commit``)."""
        fresh = self._drop_already_committed(words)
        end = heard_until if heard_until is not None else (words[-1].end if words else self.committed_end)
        earlier = [h for t, h in self._history if t <= end - self.stride + 1e-9]
        reference = self._drop_already_committed(earlier[-1]) if earlier and commit else []
        agreed: list[Word] = []
        settled = fresh if fresh and self.settled_gap is not None and end - fresh[-1].end >= self.settled_gap else fresh[:-1]
        for i, (old, new) in enumerate(zip(reference, settled)):
            if old.key != new.key and not self._agree_after(reference, settled, i):
                break
            agreed.append(new)
        if self.confident is not None and commit and earlier and len(agreed) == len(reference):
            # Past what the earlier hypothesis heard, words the decoder is sure of need no second vote.
            for new in settled[len(agreed):]:
                if new.prob < self.confident:
                    break
                agreed.append(new)
        keep = len(earlier) - 1 if earlier else 0
        self._history = self._history[keep:] + [(end, fresh)]
        self.hypothesis = fresh[len(agreed) :]
        return self._commit(agreed)

    def _agree_after(self, older: list[Word], newer: list[Word], i: int) -> bool:
        """Both hypotheses go on alike for ``substitute_after`` words after their ``i``-th."""
        k = self.substitute_after
        after = newer[i + 1 : i + 1 + k]
        return k > 0 and len(after) == k and [w.key for w in older[i + 1 : i + 1 + k]] == [w.key for w in after]

    def commit_before(self, time: float) -> list[Word]:
        """Commit hypothesis words that start before ``time`` (a pause edge)."""
        ready = [w for w in self.hypothesis if w.start < time]
        self.hypothesis = self.hypothesis[len(ready) :]
        return self._commit(ready)

    def commit_ending_by(self, time: float) -> list[Word]:
        ready: list[Word] = []
        for word in self.hypothesis:
            if word.end > time:
                break
            ready.append(word)
        self.hypothesis = self.hypothesis[len(ready) :]
        return self._commit(ready)

    def commit_all(self) -> list[Word]:
        ready, self.hypothesis = self.hypothesis, []
        return self._commit(ready)

    def prompt(self, before: float, max_words: int = 40, read: Callable[[list[Word]], list[Word]] | None = None) -> str:
        """Committed words that precede the decode window: context, never a transcript of it.

        A prompt repeating words that are also in the audio makes Whisper garble
        the order and the timestamps, so only text before ``before`` is used.  ``read``
        may replace words with better readings of them (an utterance's revision).
        """
        earlier = [w for w in self.committed if w.end <= before + 0.05]
        return join_words((read(earlier) if read else earlier)[-max_words:])

    def _commit(self, words: list[Word]) -> list[Word]:
        """Commit ``words``; returned as committed: none starts before the previous one ended.  Two decodes
        time a word boundary tens of milliseconds apart, and a word re-read up to 0.1 s before the commit point
        is kept (:meth:`_drop_already_committed`), so a new final could start before the last one ended."""
        floor = self.committed_end
        placed = []
        for word in words:
            if word.start < floor:
                word = replace(word, start=min(floor, word.end))
            placed.append(word)
            floor = max(floor, word.end)
        if placed:
            self.committed.extend(placed)
            del self.committed[: -self.KEEP_COMMITTED]
            self.committed_end = placed[-1].end
        return placed

    def _drop_already_committed(self, words: list[Word]) -> list[Word]:
        """Whisper re-reads audio before the commit point: skip what was already said."""
        fresh = [w for w in words if w.start > self.committed_end - 0.1]
        if not fresh or not self.committed or abs(fresh[0].start - self.committed_end) > 1.0:
            return fresh
        # An n-gram at the head repeating the committed tail is the same speech heard twice.
        for n in range(min(5, len(self.committed), len(fresh)), 0, -1):
            tail = [w.key for w in self.committed[-n:]]
            head = [w.key for w in fresh[:n]]
            if tail == head:
                return fresh[n:]
        return fresh


@dataclass(frozen=True)
class DecodedSegment:
    """One Whisper segment: words as (text, start, end, probability) plus its no-speech score."""

    words: list[tuple[str, float, float, float]]
    no_speech_prob: float


def speech_words(
    segments: list[DecodedSegment],
    max_no_speech: float = 0.45,
    confident_prob: float = 0.7,
    min_mean_prob: float = 0.15,
) -> list[tuple[str, float, float, float]]:
    """Words of the segments that look like speech.

    On these machines, Whisper's inventions at the end of a window ("Thank
    you.", "Thanks for watching.") came with a no-speech score of 0.5-0.9 and
    mean word probabilities of 0.1-0.5.  The no-speech score alone is not
    enough: a window that starts mid-word (a stream joined mid-sentence) scored
    0.4-0.55 while its words scored 0.8-0.9.  So a segment is dropped when it is
    both likely silence and unsure of its words, or hopelessly unsure.
    """
    words: list[tuple[str, float, float, float]] = []
    for segment in segments:
        if not segment.words:
            continue
        mean_prob = sum(w[3] for w in segment.words) / len(segment.words)
        if mean_prob < min_mean_prob:
            continue
        if segment.no_speech_prob >= max_no_speech and mean_prob < confident_prob:
            continue
        words.extend(segment.words)
    return words
