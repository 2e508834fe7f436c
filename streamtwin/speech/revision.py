"""One more decode of each utterance, whole, once it has ended: a correction of what streaming committed.

Streaming commits words from short windows as soon as two decodes agree, and two decodes of the first
second or two of a sentence can agree on a misreading ("our own servant's time" for "around 70
times"): with the whole utterance heard, the same model reads it like the offline transcript.  Decoded
again on the engine's spare time, each of the five English samples came out with 0-2 points of WER
above offline instead of 4-9 (bench/asr_stream.py, ``revised`` column).  Finals stay commits: the
correction is a separate ``transcript.revised`` event for the whole utterance, sent only when the
words differ, and only while it is fresh (a busy engine skips it rather than queue stale work).

The second reading also hears the utterances said just before it (up to ``CONTEXT_S``), audio and
all, and keeps only its own words: a lone utterance is read with nothing but earlier text as
context, the offline decode with 30 s of audio.  On the English samples (VAD utterances, offline
experiment) the mean WER of the revised text went from 6.0% to 3.4% with 10 s of earlier audio
(6 s: 4.4%, 20 s: 4.3%), and to 3.0% with a beam of 5 instead of 2 (the same cost within 15%).

It decodes in Whisper's timestamp mode (the engine's ``WindowJob.timestamps``), as offline decoding
does, where streaming decodes ask for none: a whole utterance, often two turns run together, is
read as segments.  On the virtual clock (2026-12-05) that fixed "meets" for "beats" (lecture 4.7 ->
3.5%) and two words of the support call (4.1 -> 2.7%) with base, a word of the meeting with tiny.en
(1.9 -> 1.3%), and changed no other English sample; German 14.3 -> 13.0%, Spanish 6.5 -> 8.1%.

Plain class: no I/O, no clock.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, replace

from streamtwin.events import Event, TranscriptFinal, TranscriptRevised
from streamtwin.speech.hypotheses import Word, join_words

LEAD_S = 0.3  # audio before the first committed word (its onset may start earlier)
TRAIL_S = 0.4  # and after the last one
CONTEXT_S = 10.0  # earlier utterances that began within this before an utterance are heard with it
MAX_WINDOW_S = 20.0  # ... while the whole window stays within this (the encoder keeps a silence tail)


@dataclass(frozen=True)
class Heard:
    """An ended utterance, as context for the next ones' revisions."""

    start: float  # its audio (kept) starts here
    first: float  # its first word
    last: float  # its last word's end


@dataclass(frozen=True)
class Revision:
    """An ended utterance to decode again: its number, the words committed for it, its language."""

    utterance: int
    words: tuple[Word, ...]
    language: str
    earliest: float = 0.0  # no audio before this is kept for it
    context_from: float | None = None  # the earlier utterances heard with it start here
    own_from: float = 0.0  # words heard before this belong to them

    @property
    def own_start(self) -> float:
        return max(self.earliest, self.words[0].start - LEAD_S)

    @property
    def start(self) -> float:
        return self.own_start if self.context_from is None else self.context_from

    @property
    def end(self) -> float:
        return self.words[-1].end + TRAIL_S


class Revisions:
    """Ended utterances waiting for their second decode, the one running, and what comes of it.

    ``within_s``: a revision not started within that many seconds of its utterance's end is dropped
    (0: never revise); ``max_s``: longer utterances are not revised (their audio is not kept)."""

    KEEP_READ = 8  # revised utterances remembered as context for the next revisions (a prompt holds ~40 words)

    def __init__(self, within_s: float = 3.0, max_s: float = 20.0) -> None:
        self.within_s = within_s
        self.max_s = max_s
        self._waiting: deque[Revision] = deque()
        self._running: dict[int, Revision] = {}
        self._read: deque[tuple[Revision, tuple[Word, ...]]] = deque(maxlen=self.KEEP_READ)
        self._heard: deque[Heard] = deque(maxlen=self.KEEP_READ)
        self.dropped = 0  # stale: the engine had no time for them

    def closed(self, utterance: int, words: list[Word], language: str, earliest: float) -> None:
        """An utterance ended with ``words`` committed (times absolute)."""
        if self.within_s <= 0 or not words or words[-1].end - words[0].start > self.max_s:
            return
        revision = Revision(utterance, tuple(words), language, earliest)
        end = revision.end
        context = [h for h in self._heard if h.first >= words[0].start - CONTEXT_S and end - h.start <= MAX_WINDOW_S]
        if context:  # a run of the latest ones: both conditions hold from some utterance on
            revision = replace(revision, context_from=context[0].start,
                               own_from=(context[-1].last + words[0].start) / 2)
        self._waiting.append(revision)
        self._heard.append(Heard(revision.own_start, words[0].start, words[-1].end))

    def context_from(self, first: float) -> float | None:
        """The earliest audio a revision of an utterance whose words start at or after ``first``
        may read as its context (it must be kept until then)."""
        starts = [h.start for h in self._heard if h.first >= first - CONTEXT_S]
        return min(starts) if starts else None

    def due(self, audio_end: float) -> Revision | None:
        """The oldest revision still fresh at ``audio_end`` (stale ones are dropped)."""
        while self._waiting and audio_end - self._waiting[0].end > self.within_s:
            self._waiting.popleft()
            self.dropped += 1
        return self._waiting[0] if self._waiting and not self._running else None

    def started(self, revision: Revision) -> None:
        self._waiting.remove(revision)
        self._running[revision.utterance] = revision

    def abandon(self, utterance: int) -> None:
        self._running.pop(utterance, None)

    def clear(self) -> None:
        self._waiting.clear()
        self._running.clear()
        self._heard.clear()

    @property
    def keep_from(self) -> float | None:
        """The earliest audio a waiting or running revision still reads."""
        starts = [r.start for r in (*self._waiting, *self._running.values())]
        return min(starts) if starts else None

    def as_read(self, committed: list[Word]) -> list[Word]:
        """``committed`` with each revised utterance's words replaced by its revision: the context a
        revision reads after (the earlier misreadings, left in the prompt, pull the next one the same way)."""
        out: list[Word] = []
        spans = [(r.words[0].start, r.words[-1].end, words) for r, words in self._read]
        for word in committed:
            span = next(((s, e, w) for s, e, w in spans if s - 0.01 <= word.start and word.end <= e + 0.01), None)
            if span is None:
                out.append(word)
            elif not out or out[-1] is not span[2][-1]:
                out.extend(span[2])
        return out

    def result(self, utterance: int, words: list[Word], media_time: float) -> TranscriptRevised | None:
        """The second decode heard ``words``: the correction, or None when it says the same (or failed:
        fewer than half the words, or more than twice as many, is a decode that stopped early or looped).

        A reading with earlier utterances that stopped early is read again alone: Whisper may end after
        re-reading a finished sentence and never reach the utterance's own audio (base, meeting: "I think
        the server is too small." and then nothing of "Great. Carol, please fix ...")."""
        revision = self._running.pop(utterance, None)
        if revision is None:
            return None
        if revision.context_from is not None:
            words = [w for w in words if (w.start + w.end) / 2 >= revision.own_from]  # its own words
        stopped_early = len(words) < len(revision.words) / 2
        if stopped_early and revision.context_from is not None:
            self._waiting.appendleft(replace(revision, context_from=None, own_from=0.0))
        before, after = [w.key for w in revision.words], [w.key for w in words]
        if not words or stopped_early or after == before or len(after) > 2 * len(before) + 2:
            return None
        self._read.append((revision, tuple(words)))
        return TranscriptRevised(
            text=join_words(words),
            start=round(words[0].start, 3),
            end=round(words[-1].end, 3),
            words=[[w.text.strip(), round(w.start, 3), round(w.end, 3)] for w in words],
            utterance=utterance,
            language=revision.language,
            replaces=join_words(list(revision.words)),
            media_time=round(media_time, 3),
        )


def revised_transcript(events: Iterable[Event]) -> str:
    """The text as a viewer ends up with it: each revised utterance's finals replaced by its revision."""
    utterances: dict[int, list[str]] = {}
    unnumbered: list[str] = []
    for event in events:
        if isinstance(event, TranscriptRevised):
            utterances[event.utterance] = [event.text]
        elif isinstance(event, TranscriptFinal) and event.text:
            (utterances.setdefault(event.utterance, []) if event.utterance else unnumbered).append(event.text)
    return " ".join([*unnumbered, *(text for texts in utterances.values() for text in texts)])
