"""The thin asyncio adapter that feeds the rolling context to an LLM backend.

The thinking lives in the policies (the pure classes of each stage): utterance grouping, the
context window and its prompt layout, the driver (what runs when), the twin
model and verifier, the answer checks.  This module routes events to them, and
the driver's commands to the workers, each in a module of its own:

* commentary and answers (:mod:`streamtwin.assistant.generation`), one task per generation.
  The unit is the utterance: finals are grouped first; a question addressed to the
  assistant is the prompt's task, and what people ask each other is context;
* twin updates (:mod:`streamtwin.assistant.twin_updates`), grounded against everything heard
  this session (:class:`~streamtwin.twin.heard.HeardIndex`), every few utterances
  and after answers;
* folding evicted context blocks into the running summary (:mod:`streamtwin.assistant.summary`);
* one :class:`~streamtwin.alarm.Alarm` for whatever is due next.

:func:`streamtwin.assistant.builder.build_assistant` builds the workers and wires them to this class.

All of them reach the backend through one :class:`~streamtwin.assistant.llm_calls.Caller`, and
every call renders the same byte-stable prompt front, so llama.cpp's KV cache and
providers' prompt caches are reused by all three kinds.

What the camera shows enters the context as compact text (``(seen)`` lines) for every
backend; one that takes images also gets keyframe JPEGs from a ``latest_keyframe`` hook
(the session passes the video stage's), so the assistant never depends on the stage.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import TYPE_CHECKING, Any, Callable

from streamtwin.alarm import Alarm
from streamtwin.config import Config
from streamtwin.events import (
    Error,
    Event,
    SpeakerNamed,
    SpeakerTurns,
    TranscriptFinal,
    TranscriptPartial,
    TranscriptRevised,
    TwinState,
    VisionObservation,
)
from streamtwin.assistant.generation import Generator
from streamtwin.llm.backend import Backend, LLMError
from streamtwin.assistant.llm_calls import Caller, StreamStats
from streamtwin.assistant.context import SAID, SEEN, ContextWindow
from streamtwin.assistant.driver import QUESTION, Cancel, Command, DriverPolicy, Start
from streamtwin.twin.extract import is_voice_label
from streamtwin.vision.frames import observation_text
from streamtwin.twin.heard import HeardIndex
from streamtwin.twin.revisable import puts_words_in_mouth
from streamtwin.vision.images import SCENE_CHANGE
from streamtwin.utterances import Utterance, UtteranceGrouper
from streamtwin.assistant.voice_parts import Parts, VoiceParts
from streamtwin.assistant.prompts import NOTHING_NEW
from streamtwin.assistant.summary import SummaryFolder
from streamtwin.assistant.twin_updates import TwinJobs, TwinUpdater

if TYPE_CHECKING:
    pass

log = logging.getLogger(__name__)

KEEP_LINES = 16  # recent utterances whose revision may still come


class Assistant:
    """Feeds transcript and vision events to the backend; emits assistant, twin and error events."""

    def __init__(
        self,
        config: Config,
        backend: Backend | None,
        emit: Callable[[Event], Any],
        clock: Callable[[], float],
        *,
        policy: DriverPolicy,
        window: ContextWindow,
        heard: HeardIndex,
        caller: Caller | None,
        twin_updater: TwinUpdater,
        twin_jobs: TwinJobs,
        folder: SummaryFolder,
        generator: Generator,
    ) -> None:
        """Made by :func:`streamtwin.assistant.builder.build_assistant`, which wires the workers to it."""
        self.config = config
        self.backend = backend
        self._emit = emit
        self._clock = clock
        self.policy = policy
        self.window = window
        self.heard = heard  # the whole session: the window forgets, grounding must not
        self.caller = caller
        self.twin_updater = twin_updater
        self.twin_jobs = twin_jobs
        self.folder = folder
        self.generator = generator
        self.utterances = UtteranceGrouper()
        self._lines: dict[int, tuple[float, str, str]] = {}  # utterance number -> (at, line, text) in the window
        self._voice_parts = VoiceParts(KEEP_LINES)  # who said what in an utterance that held several voices
        self._alarm = Alarm(clock, self.on_timer)
        self.media_time = 0.0  # the latest media time seen: where the assistant's own lines go in the window
        self._closed = False
        self._rules_due = False  # a publication of the rules' draft is scheduled

    @property
    def twin(self):  # noqa: ANN201 - the TwinModel, read by the session's snapshot
        return self.twin_updater.twin

    # --- lifecycle --------------------------------------------------------------

    async def start(self) -> None:
        """Announce the (empty) twin so viewers have a base for the patches that follow."""
        self._emit(TwinState(version=self.twin.version, state=self.twin.state))

    async def drain(self, timeout_s: float | None = None) -> bool:
        """Wait until no generation, twin update or summary fold runs or is pending
        (the open utterance counts as complete; utterances not yet in the twin get one
        last update).  False on timeout, or at once when the backend keeps failing (:attr:`gave_up`)."""
        for utterance in self.utterances.flush():
            self._on_utterance(utterance)
        self.twin_jobs.catch_up()
        self.arm_timer()
        deadline = None if timeout_s is None else time.monotonic() + timeout_s
        while self._busy():
            if deadline is not None and time.monotonic() >= deadline:
                return False
            if self.gave_up:
                return False
            await asyncio.sleep(0.02)
        return True

    @property
    def gave_up(self) -> bool:
        """The backend failed again and again and is backed off now: nothing more is waited for."""
        return self.policy.given_up(self._clock())

    async def close(self) -> None:
        """Cancel everything still running; started generations report ``cancelled``.

        The backend belongs to the caller, who closes it.
        """
        self._closed = self.twin_jobs.closed = self.folder.closed = True
        self._alarm.cancel()
        jobs = [task for task in (self.twin_jobs.task, self.folder.task) if task is not None]
        for task in jobs:
            task.cancel()
        await asyncio.gather(*self.generator.stop(), *jobs, return_exceptions=True)

    # --- input --------------------------------------------------------------------

    def on_event(self, event: Event) -> None:
        """EventBus subscriber: updates the window and the driver, starts tasks, returns at once."""
        if self._closed:
            return
        now = self._clock()
        if isinstance(event, TranscriptFinal):
            self.media_time = max(self.media_time, event.end)
            self.generator.language = event.language or self.generator.language
            if event.speaker_name:
                self.twin_updater.name_voice(event.speaker, event.speaker_name)
            done = self.utterances.add(
                event.text, event.start, event.end, event.utterance, event.utterance_end,
                event.speaker_name or event.speaker, event.words,
            )
            for utterance in done:
                line = self._on_utterance(utterance)
                self._voice_parts.heard(utterance.number, utterance.words)
                if event.utterance_end and utterance is done[-1]:
                    self._lines[event.utterance] = (utterance.start, line, utterance.text)
                    while len(self._lines) > KEEP_LINES:
                        del self._lines[next(iter(self._lines))]
            if not done:
                return
        elif isinstance(event, TranscriptRevised):
            self._on_revision(event)
            return
        elif isinstance(event, SpeakerNamed):  # a voice named late: the lines it said are that person's
            if event.name:
                self.twin_updater.name_voice(event.speaker, event.name)
            return
        elif isinstance(event, SpeakerTurns):  # earlier speech moved to another voice: its tasks go with it
            again = self._voice_parts.on_turns(event.turns, split=event.reason == "split")
            for utterance, parts in again.items():
                self._read_parts(utterance, parts)
            for turn in event.turns:
                if event.reason != "split" and turn["utterance"] not in again:
                    self.twin_updater.respeak(turn["utterance"], turn["speaker_name"] or turn["speaker"])
            self._show_rules_soon()
            return
        elif isinstance(event, TranscriptPartial):
            for utterance in self.utterances.on_speech(event.start):
                self._on_utterance(utterance)
            self._run(self.policy.on_partial(now, event.text))
        elif isinstance(event, VisionObservation):
            at = event.media_time if event.media_time is not None else self.media_time
            self.media_time = max(self.media_time, at)
            text = observation_text(event.kind, event.score, event.note)
            self.window.add(at, text, SEEN)
            self.heard.add(text)
            self.twin_updater.see(at, event.note or text, scene_change=event.kind == SCENE_CHANGE)
            self.generator.offer_keyframe(event, at, text)
            if event.kind == SCENE_CHANGE:
                self._run(self.policy.on_scene(now))
            else:
                self.policy.note_context(now)
        else:
            return
        self.folder.take_evicted()
        self.arm_timer()

    def ask(self, text: str, asker: str) -> int | None:
        """A question typed to the assistant: answered like one said aloud (the question is the prompt's task,
        with the twin and the whole context).  Returns the answering generation's number, or None when it
        cannot start now (another answer runs, or the backend backs off: see ``DriverPolicy.on_typed_question``)."""
        if self._closed:
            return None
        commands = self.policy.on_typed_question(self._clock(), text, asker)
        if commands is None:
            return None
        # In the window, so later answers know it was asked; never in what was heard (it was not said).
        self.window.add(self.media_time, f"{asker} (typed): {text}")
        self.twin_updater.asked(text)
        self._run(commands)
        self.arm_timer()
        return next(c.gen_id for c in commands if isinstance(c, Start))

    def _on_revision(self, revision: TranscriptRevised) -> None:
        """An utterance decoded again once it ended: the rules read it anew, its line in the window (while
        still in the tail) and what grounding has heard take the revised words; nothing is asked of the
        model for it."""
        self._on_revised_question(revision)  # first: it compares the revision with the first reading's line
        if puts_words_in_mouth(revision.text, revision.replaces):
            log.info("utterance %d: the revision has its speaker promise what the first reading did not; the "
                     "twin and the window keep the first reading", revision.utterance)
            return
        parts = self._voice_parts.on_revision(revision.utterance, revision.words)
        if parts:
            self._read_parts(revision.utterance, parts)
        else:
            self.twin_updater.revise(revision.utterance, self._said_to_people(revision.text))
        said = self._lines.pop(revision.utterance, None)
        if said is None or parts:
            return
        at, line, text = said
        revised = line[: len(line) - len(text)] + revision.text
        self.window.revise(at, line, revised)
        self._hear(revised, revision.text, revision.speaker_name or revision.speaker)
        self._show_rules_soon()

    def _read_parts(self, utterance: int, parts: Parts) -> None:
        """Utterance ``utterance`` held several voices: the rules read each part as its speaker's, its line in the
        window (while still in the tail) names each, and what each said is theirs for grounding."""
        if not parts:
            return
        *earlier, (last, last_speaker) = parts
        self.twin_updater.split(utterance, [*earlier, (self._said_to_people(last), last_speaker)])
        said = self._lines.get(utterance)
        lines = [(f"{self._named(speaker)}: {text}", text, speaker) for text, speaker in parts]
        if said is not None:
            at, line, _ = said
            joined = " | ".join(line for line, _, _ in lines)
            if self.window.revise(at, line, joined):
                self._lines[utterance] = (at, joined, joined)
        for line, text, speaker in lines:
            self._hear(line, text, speaker)

    def _named(self, speaker: str) -> str:
        """How a line names its speaker: a voice's label by the name it gave, once it gave one."""
        return (self.twin_updater.voice_name(speaker) or speaker) if is_voice_label(speaker) else speaker

    def _on_revised_question(self, revision: TranscriptRevised) -> None:
        """A revised utterance that asks the assistant something: the twin knows it was asked, and the driver
        decides whether it is asked again (streamtwin/assistant/driver.py)."""
        asked = self.policy.addressed_part(revision.text)
        if asked is None:
            return
        self.twin_updater.asked(asked)
        said = self._lines.get(revision.utterance)
        first_reading = said[2] if said is not None else None
        self._run(self.policy.on_revision(self._clock(), revision.utterance, revision.text, first_reading))

    def _on_utterance(self, utterance: Utterance) -> str:
        """A whole utterance: into the window, the session index and the rules, then to the driver;
        returns the line the window got."""
        addressed = self.policy.addressed_part(utterance.text)
        said = self._said_to_people(utterance.text)
        if said.strip():
            self.twin_updater.add(said, speaker=utterance.speaker, utterance=utterance.number)
        # "Tom: I will ..." (or "S2: ..." while nobody knows the voice's name): the prompt says who "I" is.
        # The rules read the utterance first: a voice that answers "Mike, how about you?" is Mike's.
        speaker = self._named(utterance.speaker)
        line = f"{speaker}: {utterance.text}" if speaker else utterance.text
        self.window.add(utterance.start, line)
        # Heard as said: the rules' guess at a voice's name is no evidence that the name is a person's
        # (a misheard "Reng, please fix ..." named the voice that answered).
        self._hear(line, utterance.text, utterance.speaker)
        self._show_rules_soon()  # what the rules found, at once (heard: now grounded)
        if addressed is not None:
            self.twin_updater.asked(addressed)
        self._run(self.policy.on_final(self._clock(), utterance.text, utterance.number, speaker))
        self.twin_jobs.on_utterance()
        self.folder.take_evicted()
        self.arm_timer()
        return line

    def _show_rules_soon(self) -> None:
        """Publish what the rules found once the event being delivered has reached every subscriber: a patch
        emitted from inside another event's delivery would reach the later subscribers (the fan-out, the
        log) before that event, out of seq order."""
        if not self._rules_due:
            self._rules_due = True
            asyncio.get_running_loop().call_soon(self._show_rules)

    def _show_rules(self) -> None:
        self._rules_due = False
        if not self._closed:
            self.twin_updater.show_rules(self.media_time)

    def _hear(self, line: str, text: str, speaker: str) -> None:
        """Into the session's index of what was said: the line with its speaker's name, never a voice's
        label (an owner or a person "S2" is pruned as nobody)."""
        if is_voice_label(speaker):
            self.heard.add(text, voice=speaker)
        else:
            self.heard.add(line, speaker)  # a participant's or a voice's name is a name, said or not

    def _said_to_people(self, text: str) -> str:
        """What people said to each other in ``text``; never the question to us (the rules read only that)."""
        addressed = self.policy.addressed_part(text)
        return text if addressed is None else text[: len(text) - len(addressed)]

    # --- commands -----------------------------------------------------------------

    def _run(self, commands: list[Command]) -> None:
        for command in commands:
            if isinstance(command, Cancel):
                self.generator.cancel(command.gen_id, command.reason)
            elif not self._closed:
                if command.trigger == QUESTION:
                    self.twin_jobs.make_way()
                self.generator.start(command, command.question)

    def after_generation(self, gen_id: int, stats: StreamStats, cancelled: bool) -> None:
        if self._closed:
            return
        if not cancelled:
            answer = stats.text.strip()
            if answer and answer != NOTHING_NEW:
                self.window.add(self.media_time, answer, SAID)
                self.folder.take_evicted()
            self.twin_jobs.catch_up()
        self._run(self.policy.on_generation_done(self._clock(), gen_id, cancelled))
        self.arm_timer()

    def report_backend_error(self, exc: BaseException, gen_id: int | None = None) -> str:
        """Emit an ``error`` event and start the backoff; returns the error code."""
        name = self.backend.name if self.backend else "none"
        if not isinstance(exc, LLMError):
            log.error("backend %s failed unexpectedly", name, exc_info=exc)
            exc = LLMError("internal", f"{type(exc).__name__}: {exc}")
        code = f"llm_{exc.code}"
        retry = f" (retry after {exc.retry_after:g} s)" if exc.retry_after else ""
        self._emit(Error(code=code, message=f"{name}: {exc.message}{retry}"))
        self.policy.on_backend_error(self._clock(), exc.retry_after, gen_id)
        self.arm_timer()
        return code

    # --- time ---------------------------------------------------------------------------

    def arm_timer(self) -> None:
        """Wake up when the driver (debounce, backoff, heartbeat) or a waiting twin update is due."""
        if self._closed:
            return
        due = [d for d in (self.policy.next_deadline(), self.twin_jobs.due()) if d is not None]
        self._alarm.set(min(due, default=None))

    def on_timer(self) -> None:
        now = self._clock()
        self._run(self.policy.tick(now))
        self.twin_jobs.tick(now)
        self.arm_timer()

    def _busy(self) -> bool:
        return bool(
            self.policy.busy
            or self.generator.running
            or self.twin_jobs.busy
            or self.folder.busy
        )
