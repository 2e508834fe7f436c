"""Speaker turns on a shared microphone: labels the speech stage's finals with who spoke.

The session hands this stage the same audio as the speech stage (:meth:`SpeakerStage.push`)
and routes the speech stage's events through :meth:`SpeakerStage.relay` on their way to the
bus.  An utterance's voice is embedded with CAM++ in numpy (:mod:`streamtwin.speakers.encoder`), its 1.6 s
partials as soon as the audio heard holds them (those its end leaves out are dropped), in the process's bounded
CPU pool (the speech engine's: the loop never blocks), and its speaker is decided by the pure
:class:`~streamtwin.speakers.clusters.SpeakerClusters` when it ends.

How labels attach (docs/protocol.md):

* a final in the middle of an utterance carries the best match of the partial that ends about where its
  words do (not of the words before it: the voice may change as it comes), without changing any profile,
  or the label a new voice would open when it matches no voice heard; before its words fill a partial, the
  match of its *head*: the first 1-1.6 s of the speech the partials (``transcript.partial``) announced,
  embedded while the words were still tentative, so even an utterance's first final mostly carries a label;
* the final that ends an utterance (``utterance_end: true``) waits until the whole utterance is
  embedded and carries its speaker for good: that label holds for every final of the utterance.
  Speech events behind it wait with it, so the order on the bus is the speech stage's;
* ``speaker_name`` is the name the speaker gave themselves ("I'm Tom"), from the utterance in
  which they said it on.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any, Awaitable, Callable

import numpy as np

from streamtwin.media.audio import SAMPLE_RATE
from streamtwin.config import Config
from streamtwin.events import Event, SpeakerNamed, SpeakerTurns, TranscriptFinal, TranscriptPartial, TranscriptRevised
from streamtwin.speakers.clusters import Outcome, SpeakerClusters
from streamtwin.speakers.encoder import (
    HOP,
    EncoderUnavailable,
    VoiceEncoder,
    average,
    complete_partials,
    partial_starts,
    shared_encoder,
    weights_path,
)
from streamtwin.speakers.heads import Heads
from streamtwin.speakers.names import NameChange, Naming
from streamtwin.speakers.profiles import load_profiles
from streamtwin.speakers.recent_audio import RecentAudio
from streamtwin.speakers.turns import PARTIAL_S, change_points, segments

log = logging.getLogger(__name__)

# Partials are embedded as soon as the audio heard holds them whole, however few: the utterance's last final
# mostly waits only for the one its end cuts short. A partial alone costs what its share of a batch of three does
# (16.5 ms, numpy's BLAS on one thread); waiting to batch three held that final for up to four.
EDGE_S = 0.5  # a turn event reaches this far past its utterance's first and last word (revised words move a little)
KEEP_LABELS = 16  # utterances whose label a late revision can still take

RunCpu = Callable[..., Awaitable[Any]]  # run(fn, *args) in the bounded CPU pool


def speakers_enabled(config: Config) -> bool:
    """``--speakers voice`` (the encoder must be installed), ``off``, or ``auto``: voice when installed."""
    mode = (config.speakers or "auto").strip().lower()
    if mode == "off":
        return False
    if mode not in ("auto", "voice"):
        raise ValueError(f"--speakers must be auto, voice or off, not {config.speakers!r}")
    try:
        weights_path()
    except EncoderUnavailable as exc:
        if mode == "voice":
            raise
        log.info("speaker labels off: %s", exc)
        return False
    return True


@dataclass
class _Utterance:
    id: int
    start: float  # media seconds: the first word's start
    end: float  # the last committed word's end so far
    text: list[str] = field(default_factory=list)
    partials: dict[int, np.ndarray] = field(default_factory=dict)  # first 10 ms frame -> embedding
    head: np.ndarray | None = None  # the embedding of its first 1-1.6 s, for its finals before a partial is whole
    newcomers: list[np.ndarray] = field(default_factory=list)  # new voices its finals showed so far, in order
    final: TranscriptFinal | None = None  # the utterance_end final, held until labelled
    held_at: float = 0.0  # perf_counter() when the utterance_end final arrived

    @property
    def duration(self) -> float:
        return max(0.0, self.end - self.start)


class SpeakerStage:
    def __init__(
        self,
        config: Config,
        emit: Callable[[Event], object],
        run_cpu: RunCpu,
        encoder: Callable[[], VoiceEncoder] = shared_encoder,
    ) -> None:
        self._emit = emit
        self._run_cpu = run_cpu
        self._encoder = encoder
        self.clusters = SpeakerClusters(
            threshold=config.speaker_threshold, min_new_s=config.speaker_min_new_s, max_speakers=config.max_speakers
        )
        self.naming = Naming(config.participants)
        self._unannounced: set[str] = set()  # known voices (profiles) whose name no event has said yet
        for profile in load_profiles(config.voices) if config.voices else []:
            label = self.clusters.know(profile.embedding, profile.seconds)
            self.naming.give(label, profile.name, "profile")
            self._unannounced.add(label)
        self.split_threshold = config.speaker_split_threshold
        self._spans: dict[int, tuple[float, float]] = {}  # utterance -> (first word start, last word end)
        self._audio = RecentAudio()
        self._open: _Utterance | None = None
        self._heads = Heads()  # the first second or so of speech, embedded before a final opens its utterance
        self._closing: deque[_Utterance] = deque()  # ended, waiting for their last partials
        self._held: deque[Event] = deque()  # speech events behind an unlabelled utterance end
        self._labels: dict[int, tuple[str, str]] = {}  # recent utterances' labels, for their revisions
        self._job: asyncio.Future[Any] | None = None
        self._idle = asyncio.Event()
        self._idle.set()
        self.embed_seconds = 0.0  # CPU time the pool's thread spent embedding
        self.embedded_audio_s = 0.0  # audio covered by the utterances labelled
        self.holds: list[float] = []  # seconds each utterance's last final waited for its label
        self.closed = False

    # --- input ------------------------------------------------------------------------------------

    def push(self, samples: np.ndarray) -> None:
        """The same 16 kHz mono float32 audio the speech stage gets, pushed first."""
        self._audio.push(samples, [u.start for u in (*self._closing, self._open) if u is not None])
        if self._heads.waiting or self._open is not None:  # a head, or the open utterance's next partial
            self._kick()

    def relay(self, event: Event) -> None:
        """A speech-stage event on its way to the bus: finals get their speaker, order is kept."""
        if self.closed:
            self._emit(event)
            return
        if isinstance(event, TranscriptFinal):
            self._on_final(event)
        else:
            if isinstance(event, TranscriptPartial) and self._open is None and event.text.strip():
                self._heads.announced(event.start)
            self._relay_other(event)
        self._kick()

    def _relay_other(self, event: Event) -> None:
        if self._held:
            self._held.append(event)
        else:
            self._out(event)

    def rename(self, label: str, name: str) -> None:
        """A viewer names a voice: ValueError for a label nobody has; nothing is sent when it already has that name."""
        if self.clusters.speaker(label) is None:
            known = ", ".join(s.label for s in self.clusters.speakers) or "none yet"
            raise ValueError(f"no voice is labelled {label} (labels: {known})")
        if self.naming.holder(name) not in ("", label):
            raise ValueError(f"{name} already names {self.naming.holder(name)}: rename that voice first")
        change = self.naming.give(label, name, "viewer")
        if change is not None:
            self._emit(self._named(change))

    async def drain(self) -> None:
        """Wait until every utterance is labelled and every held event emitted."""
        while not self.closed and (self._held or self._closing or self._job is not None):
            self._idle.clear()
            self._kick()
            await self._idle.wait()

    def close(self) -> None:
        """Stop labelling: whatever is held goes out as it is."""
        self.closed = True
        while self._held:
            self._emit(self._held.popleft())

    # --- finals -----------------------------------------------------------------------------------

    def _on_final(self, final: TranscriptFinal) -> None:
        utterance = self._open
        if utterance is None or utterance.id != final.utterance or final.utterance == 0:
            if utterance is not None:  # ended without its utterance_end final: label nothing more of it
                log.debug("utterance %d ended without utterance_end", utterance.id)
            start = final.words[0][1] if final.words else final.start
            utterance = self._open = _Utterance(final.utterance, float(start), float(final.end))
            utterance.head = self._heads.opened(utterance.start)
        utterance.end = max(utterance.end, float(final.end))
        if final.text.strip():
            utterance.text.append(final.text.strip())
        if final.utterance_end or final.utterance == 0:
            utterance.final = final
            utterance.held_at = time.perf_counter()
            self._closing.append(utterance)
            self._open = None
            self._held.append(final)
            return
        heard = [k for k in sorted(utterance.partials)  # partials embedded ahead of the words may hold a later voice
                 if utterance.start + k * HOP / SAMPLE_RATE + PARTIAL_S / 2 <= final.end]
        if heard:  # the partial that ends about where its words do: two reached back to the words before them
            self._show(final, utterance, utterance.partials[heard[-1]])
        elif utterance.head is not None:
            self._show(final, utterance, utterance.head)
        if self._held:
            self._held.append(final)
        else:
            self._emit(final)

    def _show(self, final: TranscriptFinal, utterance: _Utterance, voice: np.ndarray) -> None:
        """A final before its utterance ends: the label its voice matches now; a second new voice in one
        utterance shows the label after the first's, as the clustering will open them."""
        label = self.clusters.match(voice, utterance.newcomers)
        if label == self.clusters.next_label(len(utterance.newcomers)):
            utterance.newcomers.append(voice)
        final.speaker, final.speaker_name = label, self.naming.name_of(label)

    # --- embedding jobs ----------------------------------------------------------------------------

    def _kick(self) -> None:
        """Start the next embedding job unless one runs: the oldest ended utterance first."""
        if self._job is not None or self.closed:
            return
        job = self._next_job()
        if job is None:
            head = None if self._open is not None else self._heads.due(self._audio.end_s)
            if head is None:
                self._release()
                self._idle.set()
                return
            start, seconds = head
            wav = self._audio.slice(start, start + seconds)
            self._job = asyncio.ensure_future(self._run_cpu(self._embed, wav, [0]))
            self._job.add_done_callback(lambda future: self._head_done(future, start, seconds))
            return
        utterance, wav, starts, last = job
        self._job = asyncio.ensure_future(self._run_cpu(self._embed, wav, starts))
        self._job.add_done_callback(lambda future: self._done(future, utterance, starts, last))

    def _next_job(self) -> tuple[_Utterance, np.ndarray, list[int], bool] | None:
        if self._closing:
            utterance = self._closing[0]
            wav = self._audio.slice(utterance.start, utterance.end)
            inside = set(complete_partials(len(wav)))  # partials embedded ahead that its end leaves out: dropped
            utterance.partials = {s: e for s, e in utterance.partials.items() if s in inside}
            starts = [s for s in partial_starts(len(wav)) if s not in utterance.partials]
            return utterance, wav, starts, True
        utterance = self._open
        if utterance is not None:  # ahead of its words: the audio heard so far (what its end leaves out is dropped)
            samples_heard = round(self._audio.end_s * SAMPLE_RATE) - round(utterance.start * SAMPLE_RATE)  # as slice
            starts = [s for s in complete_partials(samples_heard) if s not in utterance.partials]
            if starts:
                return utterance, self._audio.slice(utterance.start, self._audio.end_s), starts, False
        return None

    def _head_done(self, future: asyncio.Future[Any], start: float, seconds: float) -> None:
        self._job = None
        if self.closed:
            self._idle.set()
            return
        try:
            embeddings, cpu = future.result()
            self.embed_seconds += cpu
            self._heads.embedded(start, seconds, embeddings[0])
            head = None if self._open is None else self._heads.of(self._open.start)
            if head is not None:
                self._open.head = head
        except (Exception, asyncio.CancelledError) as exc:  # no head: its finals wait for a partial
            log.error("speaker embedding failed: %r", exc, exc_info=not isinstance(exc, asyncio.CancelledError))
        self._release()
        self._kick()

    def _embed(self, wav: np.ndarray, starts: list[int]) -> tuple[np.ndarray, float]:
        """In the pool: the partials at ``starts``, and the CPU time this thread spent on them."""
        began = time.thread_time()
        embeddings = self._encoder().embed_partials(wav, starts)
        return embeddings, time.thread_time() - began

    def _done(self, future: asyncio.Future[Any], utterance: _Utterance, starts: list[int], last: bool) -> None:
        self._job = None
        if self.closed:  # what was held went out unlabelled; nothing may change it now
            self._idle.set()
            return
        try:
            embeddings, seconds = future.result()
            self.embed_seconds += seconds
            utterance.partials.update(zip(starts, embeddings))
        except (Exception, asyncio.CancelledError) as exc:  # the utterance stays unlabelled; labelling goes on
            log.error("speaker embedding failed: %r", exc, exc_info=not isinstance(exc, asyncio.CancelledError))
        if last:
            self._closing.popleft()
            self._label(utterance)
        self._release()
        self._kick()

    def _label(self, utterance: _Utterance) -> None:
        final = utterance.final
        assert final is not None
        if not utterance.partials:
            return
        spans = self._segments(utterance)
        outcome = self.clusters.add(utterance.id, spans)
        self._spans[utterance.id] = (utterance.start, utterance.end)
        while len(self._spans) > 4 * KEEP_LABELS:
            del self._spans[next(iter(self._spans))]
        changes = self.naming.merged(outcome.merged)
        changes += self.naming.moved([(r.utterance, r.label, r.was) for r in outcome.relabels])
        changes += self.naming.heard(utterance.id, " ".join(utterance.text), outcome.labels[0], outcome.labels[-1])
        after: list[Event] = []
        if len(spans) > 1:  # one utterance, several voices: who said which part, right after its last final
            after.append(SpeakerTurns(turns=[self._turn(utterance.id, a, b, label)
                                             for (a, b, _), label in zip(spans, outcome.labels)], reason="split"))
        if outcome.relabels:
            after.append(self._relabelled(outcome))
        after.extend(self._named(change) for change in changes)
        for label in sorted(self._unannounced & set(outcome.labels)):  # a known voice's first words
            self._unannounced.discard(label)
            after.append(self._named(NameChange(label, self.naming.name_of(label), "profile", utterance.id)))
        final.speaker = outcome.labels[-1]
        final.speaker_name = self.naming.name_of(final.speaker)
        self._remember(final.utterance, final.speaker)
        position = next(i for i, e in enumerate(self._held) if e is final)
        for k, event in enumerate(after):
            event.media_time = final.media_time  # decided with that final: the media heard then
            self._held.insert(position + 1 + k, event)
        self.embedded_audio_s += utterance.duration
        self.holds.append(time.perf_counter() - utterance.held_at)
        log.debug("utterance %d (%.1f s) -> %s %s%s", utterance.id, utterance.duration, outcome.labels,
                  final.speaker_name, f", new {outcome.new}" if outcome.new else "")

    def _segments(self, utterance: _Utterance) -> list[tuple[float, float, np.ndarray]]:
        """The utterance's stretches of one voice each, with their embeddings (the mean of their partials)."""
        starts = sorted(utterance.partials)
        partials = np.stack([utterance.partials[s] for s in starts])
        times = [utterance.start + s * HOP / SAMPLE_RATE for s in starts]
        points = change_points(partials, times, self.split_threshold) if self.split_threshold > 0 else []
        out = []
        for a, b in segments(utterance.start, utterance.end, points):
            inside = [p for p, t in zip(partials, times) if a <= t + PARTIAL_S / 2 < b] or list(partials)
            out.append((a, b, average(np.stack(inside))))
        return out

    def _turn(self, utterance: int, start: float, end: float, label: str) -> dict[str, Any]:
        first, last = self._spans.get(utterance, (start, end))
        start = start - EDGE_S if start <= first else start
        end = end + EDGE_S if end >= last else end
        return {"utterance": utterance, "start": round(start, 3), "end": round(end, 3), "speaker": label,
                "speaker_name": self.naming.name_of(label)}

    def _named(self, change: NameChange) -> SpeakerNamed:
        log.info("%s is %s (%s, utterance %d)", change.label, change.name, change.how, change.utterance)
        for utterance, (label, _) in list(self._labels.items()):
            if label == change.label:
                self._remember(utterance, label)
        return SpeakerNamed(speaker=change.label, name=change.name, how=change.how, utterance=change.utterance,
                            previous=change.previous)

    def _relabelled(self, outcome: Outcome) -> SpeakerTurns:
        """Earlier speech that moved voice: one event, so a viewer redraws once."""
        for relabel in outcome.relabels:
            if relabel.end >= self._spans.get(relabel.utterance, (0.0, 0.0))[1]:
                self._remember(relabel.utterance, relabel.label)  # its revision, if still to come, takes it
        turns = [self._turn(r.utterance, r.start, r.end, r.label) for r in outcome.relabels]
        log.info("%d stretches of earlier speech relabelled%s", len(turns),
                 f"; merged {outcome.merged}" if outcome.merged else "")
        return SpeakerTurns(turns=turns, reason="merged" if outcome.merged else "recluster", merged=outcome.merged)

    def _remember(self, utterance: int, label: str) -> None:
        self._labels[utterance] = (label, self.naming.name_of(label))
        while len(self._labels) > KEEP_LABELS:
            del self._labels[next(iter(self._labels))]

    def _release(self) -> None:
        """Emit held events up to the next utterance end still waiting for its label."""
        waiting = {id(u.final) for u in self._closing}
        while self._held and id(self._held[0]) not in waiting:
            self._out(self._held.popleft())

    def _out(self, event: Event) -> None:
        """Emit; a revision (it follows its utterance's last final) takes that final's label."""
        if isinstance(event, TranscriptRevised) and event.utterance in self._labels:
            event.speaker, event.speaker_name = self._labels[event.utterance]
        self._emit(event)
