"""Streaming-agreement commit policy for a recogniser that re-decodes a growing window.

Whisper is not a streaming model: each decode re-reads the whole window and may
revise its last words.  The policy below decides *what to decode next* and
*which words are safe to commit*, so the adapter only moves audio and calls the
model.  Words are committed when

- two consecutive hypotheses agree on them (LocalAgreement-2), or
- they precede a pause the VAD heard (a pause rarely changes what came before), or
- the utterance ended (everything left is flushed as final), or
- the window outgrew its cap (all but the last second is committed).

The window spans the current utterance (trimmed when the VAD hears it end, or
at the cap): Whisper is far more accurate with the sentence's start in view,
and a tiny.en decode costs nearly the same for 1 s or 10 s of audio.  Silence
between utterances is never decoded.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..events import Event, TranscriptFinal, TranscriptPartial
from .endpoint import Endpointer, SpeechEnd, SpeechPause, SpeechStart

_PUNCT = re.compile(r"[^\w']+")


@dataclass(frozen=True)
class Word:
    text: str  # as Whisper printed it, with its leading space and punctuation
    start: float
    end: float

    @property
    def key(self) -> str:
        return _PUNCT.sub("", self.text.lower())


def join_words(words: list[Word]) -> str:
    return "".join(w.text for w in words).strip()


class LocalAgreement:
    """Commits the longest prefix on which the last two hypotheses agree."""

    def __init__(self) -> None:
        self.committed: list[Word] = []
        self.committed_end = 0.0
        self.hypothesis: list[Word] = []  # the latest uncommitted words

    def insert(self, words: list[Word]) -> list[Word]:
        """Take a new hypothesis (absolute times); return the newly agreed words."""
        fresh = self._drop_already_committed(words)
        agreed: list[Word] = []
        for old, new in zip(self.hypothesis, fresh):
            if old.key != new.key:
                break
            agreed.append(new)
        self.hypothesis = fresh[len(agreed) :]
        self._commit(agreed)
        return agreed

    def commit_before(self, time: float) -> list[Word]:
        """Commit hypothesis words that start before ``time`` (a pause edge)."""
        ready = [w for w in self.hypothesis if w.start < time]
        self.hypothesis = self.hypothesis[len(ready) :]
        self._commit(ready)
        return ready

    def commit_ending_by(self, time: float) -> list[Word]:
        ready: list[Word] = []
        for word in self.hypothesis:
            if word.end > time:
                break
            ready.append(word)
        self.hypothesis = self.hypothesis[len(ready) :]
        self._commit(ready)
        return ready

    def commit_all(self) -> list[Word]:
        ready, self.hypothesis = self.hypothesis, []
        self._commit(ready)
        return ready

    def prompt(self, before: float, max_words: int = 40) -> str:
        """Committed words that precede the decode window: context, never a transcript of it.

        A prompt repeating words that are also in the audio makes Whisper garble
        the order and the timestamps, so only text before ``before`` is used.
        """
        earlier = [w for w in self.committed[-(max_words + 60) :] if w.end <= before + 0.05]
        return join_words(earlier[-max_words:])

    def _commit(self, words: list[Word]) -> None:
        if words:
            self.committed.extend(words)
            self.committed_end = words[-1].end

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
) -> list[tuple[str, float, float]]:
    """Words of the segments that look like speech.

    On these machines, Whisper's inventions at the end of a window ("Thank
    you.", "Thanks for watching.") came with a no-speech score of 0.5-0.9 and
    mean word probabilities of 0.1-0.5.  The no-speech score alone is not
    enough: a window that starts mid-word (a stream joined mid-sentence) scored
    0.4-0.55 while its words scored 0.8-0.9.  So a segment is dropped when it is
    both likely silence and unsure of its words, or hopelessly unsure.
    """
    words: list[tuple[str, float, float]] = []
    for segment in segments:
        if not segment.words:
            continue
        mean_prob = sum(w[3] for w in segment.words) / len(segment.words)
        if mean_prob < min_mean_prob:
            continue
        if segment.no_speech_prob >= max_no_speech and mean_prob < confident_prob:
            continue
        words.extend((text, start, end) for text, start, end, _ in segment.words)
    return words


@dataclass(frozen=True)
class DecodeRequest:
    """Decode media ``[start, end)``; ``kind`` is step, pause or final."""

    id: int
    start: float
    end: float
    kind: str
    prompt: str


class StreamingTranscriber:
    """Schedules decodes and turns their words into transcript events.

    Inputs: :meth:`on_vad` per VAD window, :meth:`on_audio` as audio arrives,
    :meth:`on_decoded` with each result, :meth:`finish` at the end.  Output:
    :meth:`next_decode` says what to decode (one at a time), and
    :meth:`on_decoded` returns ``transcript.final`` / ``transcript.partial`` events.
    """

    def __init__(
        self,
        endpointer: Endpointer | None = None,
        step_s: float = 0.5,
        max_window_s: float = 12.0,
        min_decode_s: float = 0.6,
    ):
        self.endpointer = endpointer or Endpointer()
        self.agreement = LocalAgreement()
        self.step_s = step_s
        self.max_window_s = max_window_s
        self.min_decode_s = min_decode_s
        self.window_start = 0.0  # audio before this is no longer needed
        self.audio_end = 0.0
        self._in_flight: DecodeRequest | None = None
        self._next_id = 0
        self._last_step_end = 0.0
        self._pending_pause: float | None = None
        self._pending_end: float | None = None
        self._partial_text = ""

    # --- inputs -------------------------------------------------------------

    def on_audio(self, audio_end: float) -> None:
        self.audio_end = audio_end

    def on_vad(self, prob: float, start: float, end: float) -> None:
        for edge in self.endpointer.push(prob, start, end):
            self._on_edge(edge)

    def finish(self) -> None:
        """The source ended: whatever is still open becomes final."""
        for edge in self.endpointer.finish(self.audio_end):
            self._on_edge(edge)
        if self._pending_end is None and self.agreement.hypothesis:
            self._pending_end = self.audio_end

    @property
    def keep_from(self) -> float:
        """Earliest media time a future decode can ask for; older audio can be dropped.

        In silence that is just the pad a speech start reaches back over, so a
        long quiet stretch never piles up in the buffer.
        """
        busy = self.endpointer.in_speech or self._pending_end is not None or self._in_flight is not None
        if busy or self.agreement.hypothesis:
            return self.window_start
        return max(self.window_start, self.audio_end - self.endpointer.pad_s - 0.1)

    @property
    def idle(self) -> bool:
        """Nothing in flight and nothing left to decode (the adapter may stop)."""
        return self._in_flight is None and self.next_decode(peek=True) is None

    # --- scheduling ---------------------------------------------------------

    def next_decode(self, peek: bool = False) -> DecodeRequest | None:
        if self._in_flight is not None:
            return None
        request = self._choose()
        if request is not None and not peek:
            self._in_flight = request
            self._next_id += 1
        return request

    def _choose(self) -> DecodeRequest | None:
        prompt = self.agreement.prompt(before=self.window_start)
        if self._pending_end is not None:
            end = min(self._pending_end + 0.1, self.audio_end)
            if end - self.window_start < self.min_decode_s / 2:
                return None
            return DecodeRequest(self._next_id, self.window_start, end, "final", prompt)
        if not self.endpointer.in_speech:
            return None
        span = self.audio_end - self.window_start
        pause = self._pending_pause
        if pause is not None and pause - self.window_start >= self.min_decode_s / 2:
            # Stop just after the pause edge: trailing silence is where Whisper hallucinates.
            end = min(pause + 0.1, self.audio_end)
            return DecodeRequest(self._next_id, self.window_start, end, "pause", prompt)
        if pause is not None and pause <= self.window_start:
            self._pending_pause = None
        if span >= self.min_decode_s and self.audio_end - self._last_step_end >= self.step_s:
            return DecodeRequest(self._next_id, self.window_start, self.audio_end, "step", prompt)
        return None

    # --- results ------------------------------------------------------------

    def on_decoded(self, request: DecodeRequest, words: list[tuple[str, float, float]]) -> list[Event]:
        """``words`` are (text, start, end) relative to ``request.start``."""
        self._in_flight = None
        self._last_step_end = request.end
        hypothesis = [Word(t, request.start + s, request.start + e) for t, s, e in words]
        hypothesis = [w for w in hypothesis if w.start < request.end]
        committed = self.agreement.insert(hypothesis)

        if request.kind == "final":
            committed += self.agreement.commit_all()
            self._pending_end = None
            self._pending_pause = None
            self.window_start = max(self.window_start, request.end)
        elif self._covers_pending_pause(request):
            # Any decode that heard past the pause commits what precedes it: no extra decode.
            committed += self.agreement.commit_before(self._pending_pause)
            self._pending_pause = None
        elif request.end - self.window_start > self.max_window_s:
            committed += self.agreement.commit_ending_by(request.end - 1.0)
            self.window_start = max(self.window_start, self.agreement.committed_end)
        return self._events(committed, request)

    def _events(self, committed: list[Word], request: DecodeRequest) -> list[Event]:
        out: list[Event] = []
        if committed:
            out.append(
                TranscriptFinal(
                    text=join_words(committed),
                    start=round(committed[0].start, 3),
                    end=round(committed[-1].end, 3),
                    words=[[w.text.strip(), round(w.start, 3), round(w.end, 3)] for w in committed],
                    media_time=round(request.end, 3),
                )
            )
        tentative = self.agreement.hypothesis
        text = join_words(tentative)
        if text != self._partial_text:
            self._partial_text = text
            start = tentative[0].start if tentative else request.end
            out.append(TranscriptPartial(text=text, start=round(start, 3), media_time=round(request.end, 3)))
        return out

    # --- helpers ------------------------------------------------------------

    def _covers_pending_pause(self, request: DecodeRequest) -> bool:
        pause = self._pending_pause
        return pause is not None and request.end >= pause + 0.05

    def _on_edge(self, edge: SpeechStart | SpeechPause | SpeechEnd) -> None:
        if isinstance(edge, SpeechStart):
            if not self.agreement.hypothesis and self._pending_end is None:
                self.window_start = max(self.window_start, edge.time)
        elif isinstance(edge, SpeechPause):
            self._pending_pause = edge.time
        elif isinstance(edge, SpeechEnd):
            self._pending_pause = None
            if self._has_uncommitted_speech(edge.time):
                self._pending_end = edge.time

    def _has_uncommitted_speech(self, until: float) -> bool:
        return until - self.window_start >= self.min_decode_s / 2 or bool(self.agreement.hypothesis)
