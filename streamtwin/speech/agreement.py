"""Streaming-agreement commit policy for a recogniser that re-decodes a growing window.

Whisper is not a streaming model: each decode re-reads the window and may
revise its last words.  The policy below decides *what to decode next* and
*which words are safe to commit*, so the adapter only moves audio and calls the
model.  Words are committed when

- two hypotheses heard at least a stride apart agree on them, the newest
  hypothesis's last word held back unless the audio went on well past it
  (LocalAgreement-2: a word still being spoken is often cut short; a single word
  read two ways passes, as the newer reads it, when the two agree on the next two),
  and the words after them that the decoder is sure of, or
- they precede a pause the VAD heard (a pause rarely changes what came before), or
- the utterance ended: the latest hypothesis is flushed as final at once when it
  already heard the end, else after one last decode, or
- the window outgrew its cap (all but the last second is committed).

Windows stay short: one starts at the utterance's start and is cut at each pause
(the committed text before it becomes the prompt) and at the cap.  Decodes are
cheap on short windows (see :mod:`streamtwin.speech.whisper`), so they run as often as
the engine allows while someone speaks, two at once when the engine has a spare
worker (a result overtaken by a later one is dropped).  Silence is never decoded.

The events themselves (numbered finals, the partial) are made by
:class:`~streamtwin.speech.transcript_out.TranscriptOut`.  An ended utterance is
then decoded once more, whole, when the engine has the time
(:mod:`streamtwin.speech.revision`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from streamtwin.events import Event
from streamtwin.speech.endpoint import Endpointer, SpeechEnd, SpeechPause, SpeechStart
from streamtwin.speech.hypotheses import HeardWord, LocalAgreement, Word, spoken_words
from streamtwin.speech.revision import LEAD_S, Revisions
from streamtwin.speech.transcript_out import TranscriptOut


@dataclass(frozen=True)
class DecodeRequest:
    """Decode media ``[start, end)``; ``kind`` is step, pause, final or revise (``utterance``, whole)."""

    id: int
    start: float
    end: float
    kind: str
    prompt: str
    overlapped: bool = False  # started while another decode ran
    utterance: int = 0


class StreamingTranscriber:
    """Schedules decodes and turns their words into transcript events.

    Inputs: :meth:`on_vad` per VAD window, :meth:`on_audio` as audio arrives,
    :meth:`on_decoded` with each result, :meth:`finish` at the end.  Output:
    :meth:`next_decode` says what to decode (one at a time, or two overlapped steps), and :meth:`on_vad`
    and :meth:`on_decoded` return ``transcript.final`` / ``transcript.partial`` events.
    """

    def __init__(
        self,
        endpointer: Endpointer | None = None,
        step_s: float = 0.25,
        max_window_s: float = 10.0,
        min_decode_s: float = 0.6,
        min_pause_commit_s: float = 1.2,
        min_agreement_s: float = 1.0,
        agreement_stride_s: float = 0.25,
        settled_gap_s: float = 0.3,
        confident_prob: float | None = 0.9,
        substitute_after: int = 2,
        min_cut_s: float = 3.0,
        overlap_s: float = 1.0,
        language_window_s: float = 3.0,
        language_hold_s: float = 2.0,
        revise_within_s: float = 3.0,
    ):
        self.endpointer = endpointer or Endpointer()
        self.agreement = LocalAgreement(
            stride=agreement_stride_s, settled_gap=settled_gap_s, confident=confident_prob,
            substitute_after=substitute_after,
        )
        self.step_s = step_s
        self.max_window_s = max_window_s
        self.min_decode_s = min_decode_s
        # A decode of under ~1 s of speech guesses ("Got point", "No. No."): a pause that
        # early commits nothing; agreement and the utterance's end decide those words.
        self.min_pause_commit_s = min_pause_commit_s
        self.min_agreement_s = min_agreement_s
        # Cutting a window costs its next first word unless the new window starts a little
        # earlier: it re-reads up to ``overlap_s`` of committed words (dropped again on arrival).
        self.min_cut_s = min_cut_s
        self.overlap_s = overlap_s
        self.language = ""  # put on finals; the adapter sets it once it is known
        # While the language is unknown nothing is committed and short utterances are held (not
        # flushed) until the window holds ``language_window_s`` of audio: 1.5 s of German read
        # as Thai, "Good afternoon." as German.  After ``language_hold_s`` of silence a held
        # utterance is flushed anyway, so a lone "Hello?" is not kept back for good.
        self.awaiting_language = False
        self.language_window_s = language_window_s
        self.language_hold_s = language_hold_s
        self._held_end: float | None = None  # end of a held utterance while nobody speaks
        self._holding = False  # the window holds an earlier utterance, waiting for the language
        self._finishing = False
        self.window_start = 0.0  # decodes start here; audio before it is no longer needed
        self._speech_from = 0.0  # where speech not yet committed may begin (after any overlap)
        self.audio_end = 0.0
        # Decodes running: one, or two growing-window steps overlapped on a spare engine worker.
        self._in_flight: list[DecodeRequest] = []
        self._next_id = 0
        self._applied_id = 0  # the latest decode whose result was applied
        self._last_step_end = 0.0
        self._decoded_end = 0.0  # audio end of the latest applied decode
        self._pending_pause: float | None = None
        self._pending_end: float | None = None
        self.revisions = Revisions(within_s=revise_within_s)
        self._out = TranscriptOut(self.revisions)

    @property
    def utterance(self) -> int:
        """Number of the utterance being transcribed."""
        return self._out.utterance

    # --- inputs -------------------------------------------------------------

    def on_audio(self, audio_end: float) -> None:
        self.audio_end = audio_end

    def on_vad(self, prob: float, start: float, end: float) -> list[Event]:
        out: list[Event] = []
        for edge in self.endpointer.push(prob, start, end):
            out += self._on_edge(edge)
        return out

    def finish(self) -> list[Event]:
        """The source ended: whatever is still open becomes final."""
        out: list[Event] = []
        self._finishing = True
        for edge in self.endpointer.finish(self.audio_end):
            out += self._on_edge(edge)
        if self._pending_end is None and (self.agreement.hypothesis or self._holding):
            self._pending_end = self.audio_end
        return out

    def stop_now(self) -> list[Event]:
        """Interrupted (Ctrl-C): the tentative words already shown close the utterance as final, without
        the decode that would have confirmed them; a decode still in flight is forgotten."""
        self._in_flight = []
        self._pending_end = self._pending_end if self._pending_end is not None else self.audio_end
        events = self._close_utterance([], self.audio_end)
        self.revisions.clear()
        return events

    @property
    def keep_from(self) -> float:
        """Earliest media time a future decode can ask for; older audio can be dropped.

        In silence that is just the pad a speech start reaches back over, so a
        long quiet stretch never piles up in the buffer.
        """
        busy = self.endpointer.in_speech or self._pending_end is not None or bool(self._in_flight)
        if busy or self.agreement.hypothesis or self._holding:
            keep = self.window_start
        else:
            keep = max(self.window_start, self.audio_end - self.endpointer.pad_s - 0.1)
        # The next revision hears the utterances just before its own: from its first word on, or
        # from any audio still kept when its first word is yet to come.
        first = self._out.words[0].start if self._out.words else keep
        for revising in (self.revisions.keep_from, self._open_revision_start, self.revisions.context_from(first)):
            if revising is not None:
                keep = min(keep, revising)
        return keep

    @property
    def _open_revision_start(self) -> float | None:
        """Where the current utterance's revision will start reading (its audio is kept until then)."""
        if self._out.floor is None or not self._out.words or self.revisions.within_s <= 0:
            return None
        start = max(self._out.floor, self._out.words[0].start - LEAD_S)
        return start if self.audio_end - start <= self.revisions.max_s else None

    @property
    def idle(self) -> bool:
        """Nothing in flight and nothing left to decode (the adapter may stop)."""
        return not self._in_flight and self.next_decode(peek=True) is None

    # --- scheduling ---------------------------------------------------------

    def next_decode(self, peek: bool = False, overlap: bool = False) -> DecodeRequest | None:
        """The decode due now; ``peek`` only asks (it runs for every 32 ms of audio, so it builds no prompt).

        With ``overlap`` (the engine has a worker nobody else wants) a growing-window step
        may start while another step runs: hypotheses then arrive twice as often, and
        agreement, which needs two of them, comes sooner.  Pauses and ends never overlap
        each other.  An ended utterance's revision runs when nothing else is due, or beside
        anything on a spare worker; anything may start beside a revision on a spare worker.
        """
        if len(self._in_flight) >= 2 or (self._in_flight and not overlap):
            return None
        running = self._in_flight[0] if self._in_flight else None
        request = self._choose()
        no_revision_running = running is None or running.kind != "revise"
        if request is not None and running is not None and running.kind != "revise":
            # Beside a step, another step only if no revision waits: an utterance's second reading
            # matters more than agreement a quarter second sooner (and is dropped when not started soon).
            if not (running.kind == "step" and request.kind == "step") or self.revisions.due(self.audio_end):
                request = None
        if request is None and no_revision_running:
            revision = self.revisions.due(self.audio_end)
            if revision is None:
                return None
            if not peek:
                self.revisions.started(revision)
            request = DecodeRequest(self._next_id, revision.start, revision.end, "revise", "",
                                    utterance=revision.utterance)
        if request is None:
            return None
        if not peek:
            if request.kind == "revise":
                prompt = self.agreement.prompt(before=request.start, read=self.revisions.as_read)
            else:
                prompt = self.agreement.prompt(before=self.window_start)
            request = replace(request, prompt=prompt, overlapped=bool(self._in_flight))
            self._in_flight.append(request)
            if request.kind != "revise":
                self._last_step_end = request.end
            self._next_id += 1
        return request

    def abandon(self, request: DecodeRequest) -> None:
        """A decode failed: forget it (the audio stays; the next decode covers it again)."""
        self._in_flight = [r for r in self._in_flight if r is not request]
        if request.kind == "revise":
            self.revisions.abandon(request.utterance)

    def _choose(self) -> DecodeRequest | None:
        prompt = ""  # filled in by next_decode
        held = self._held_end
        if held is not None and not self.endpointer.in_speech and self.audio_end - held >= self.language_hold_s:
            self._pending_end, self._held_end = held, None  # nobody went on: flush it in the best guess
        if self._pending_end is not None:
            end = min(self._pending_end + 0.1, self.audio_end)
            if end - self._speech_from < self.min_decode_s / 2:
                return None
            return DecodeRequest(self._next_id, self.window_start, end, "final", prompt)
        if not self.endpointer.in_speech:
            return None
        if self.awaiting_language:
            # A shorter window is no basis for detecting the language: wait for more speech.
            if self.audio_end - self.window_start < self.language_window_s:
                return None
            if self.audio_end - self._last_step_end < self.step_s:
                return None
            return DecodeRequest(self._next_id, self.window_start, self.audio_end, "step", prompt)
        span = self.audio_end - self._speech_from
        pause = self._pending_pause
        if pause is not None and pause - self._speech_from < self.min_pause_commit_s:
            self._pending_pause = pause = None
        if pause is not None:
            # Stop just after the pause edge: trailing silence is where Whisper hallucinates.
            end = min(pause + 0.1, self.audio_end)
            return DecodeRequest(self._next_id, self.window_start, end, "pause", prompt)
        if span >= self.min_decode_s and self.audio_end - self._last_step_end >= self.step_s:
            return DecodeRequest(self._next_id, self.window_start, self.audio_end, "step", prompt)
        return None

    # --- results ------------------------------------------------------------

    def on_decoded(self, request: DecodeRequest, words: Sequence[HeardWord]) -> list[Event]:
        """``words`` are (text, start, end[, probability]) relative to ``request.start``."""
        if request.kind == "revise":
            self._in_flight = [r for r in self._in_flight if r is not request]
            heard = spoken_words(self._words(request, words))
            revised = self.revisions.result(request.utterance, heard, request.end)
            return [revised] if revised is not None else []
        self.abandon(request)
        if request.id < self._applied_id or (request.overlapped and request.start != self.window_start):
            return []  # overtaken by a later decode, or the window moved on while this one ran
        self._applied_id = request.id
        self._decoded_end = max(self._decoded_end, request.end)
        hypothesis = spoken_words(self._words(request, words))
        hypothesis = [w for w in hypothesis if w.start < request.end]
        # Counted from the window's start: after a cut the window re-reads up to a second of committed
        # words, so its first decodes are not guesses on a scrap of audio (the five English samples,
        # virtual clock: word commit p90 1.362 -> 1.346 s, meeting 1.270 -> 1.190, every WER the same).
        early = request.end - self.window_start < self.min_agreement_s
        if request.kind == "step" and (early or self.awaiting_language):
            # The first words of a window are guesses until it has heard a little more (or the language).
            self.agreement.insert(hypothesis, heard_until=request.end, commit=False)
            return self._events([], request.end)
        committed = self.agreement.insert(hypothesis, heard_until=request.end)

        if request.kind == "final" or (self._pending_end is not None and request.end >= self._pending_end):
            # The utterance ended and this decode heard all of it: flush, no further decode.
            return self._close_utterance(committed, request.end)
        if self._covers_pending_pause(request):
            # Any decode that heard past the pause commits what precedes it: no extra decode.
            pause = self._pending_pause
            assert pause is not None
            committed += self.agreement.commit_before(pause)
            self._pending_pause = None
            if pause - self._speech_from >= self.min_cut_s:
                self._cut_window(pause)
        elif request.end - self.window_start > self.max_window_s:
            committed += self.agreement.commit_ending_by(request.end - 1.0)
            self._cut_window(self.agreement.committed_end)
        return self._events(committed, request.end)

    @staticmethod
    def _words(request: DecodeRequest, words: Sequence[HeardWord]) -> list[Word]:
        return [Word(w[0], request.start + w[1], request.start + w[2], *w[3:]) for w in words]

    def _cut_window(self, at: float) -> None:
        """Start the next windows near ``at``: at the first committed word within the overlap."""
        overlap = [w.start for w in self.agreement.committed if at - self.overlap_s <= w.start < at]
        self.window_start = max(self.window_start, overlap[0] if overlap else at)
        self._speech_from = max(self._speech_from, at)

    def _close_utterance(self, committed: list[Word], media_end: float) -> list[Event]:
        committed = committed + self.agreement.commit_all()
        self._out.note_floor(committed, self.window_start)  # before the window moves past the utterance
        pending = self._pending_end
        # Another utterance may have been spoken and ended while this decode ran (a slow engine): its
        # end stays due, and the next window starts where this decode stopped hearing.
        later = pending is not None and pending > media_end
        end = media_end if later or pending is None else pending
        self._pending_end = pending if later else None
        self._pending_pause = None
        self.window_start = self._speech_from = max(self.window_start, min(end + 0.1, self.audio_end))
        self._holding = False
        closing = bool(committed) or bool(self._out.words)
        return self._events(committed, media_end, utterance_end=closing)

    def _events(self, committed: list[Word], media_end: float, utterance_end: bool = False) -> list[Event]:
        return self._out.events(committed, self.agreement.hypothesis, media_end, window_start=self.window_start,
                                language=self.language, utterance_end=utterance_end)

    # --- helpers ------------------------------------------------------------

    def _covers_pending_pause(self, request: DecodeRequest) -> bool:
        pause = self._pending_pause
        return pause is not None and request.end >= pause + 0.05

    def _on_edge(self, edge: SpeechStart | SpeechPause | SpeechEnd) -> list[Event]:
        if isinstance(edge, SpeechStart):
            self._held_end = None  # a held utterance goes on in this one's window
            if not self.agreement.hypothesis and self._pending_end is None and not self._holding:
                # No earlier audio as context: Whisper tends to stop after re-reading a finished sentence.
                self.window_start = self._speech_from = max(self.window_start, edge.time)
        elif isinstance(edge, SpeechPause):
            if not self.awaiting_language:
                self._pending_pause = edge.time
        elif isinstance(edge, SpeechEnd):
            self._pending_pause = None
            if self.awaiting_language and not self._finishing:
                self._held_end = edge.time
                self._holding = True
                return []
            if not self._in_flight and self._decoded_end >= edge.time:
                # The latest hypothesis already heard the whole utterance: flush it now, no decode.
                has_words = bool(self.agreement.hypothesis) or bool(self._out.words)
                return self._close_utterance([], self._decoded_end) if has_words else []
            if self._has_uncommitted_speech(edge.time):
                self._pending_end = edge.time
            elif self._out.words:
                return self._close_utterance([], edge.time)
        return []

    def _has_uncommitted_speech(self, until: float) -> bool:
        return until - self._speech_from >= self.min_decode_s / 2 or bool(self.agreement.hypothesis)
