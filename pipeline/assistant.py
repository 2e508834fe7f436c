"""The thin asyncio adapter that feeds the rolling context to an LLM backend.

The thinking lives in the policies (``pipeline.policy``): utterance grouping, the
context window and its prompt layout, the driver (what runs when), the twin
model and verifier, the answer checks.  This module routes events and runs the
driver's generations; the other kinds of work have their own modules:

* commentary and answers, one task per generation, started and cancelled by the
  driver (here) and carried out by :mod:`pipeline.generation`.  The unit is the
  utterance: finals are grouped first.  A question addressed to the assistant is
  the prompt's task, verbatim, with the current twin; its answer is checked before
  anyone sees it (one retry, then for list questions an answer composed from the twin);
* twin updates (:mod:`pipeline.twin_updates`), grounded against everything heard
  this session (:class:`~pipeline.policy.heard.HeardIndex`), after answers and
  every few utterances, never more than one running and one wanted;
* folding evicted context blocks into the running summary (:mod:`pipeline.summary`).

All of them reach the backend through one :class:`~pipeline.llm_calls.Caller`, and
every call renders the same byte-stable prompt front, so llama.cpp's KV cache and
providers' prompt caches are reused by all three kinds.

What the camera shows enters the context as compact text (``(seen)`` lines) for
every backend.  A backend that takes images also gets keyframe JPEGs, rationed by
:class:`~pipeline.policy.images.ImageBudget`, in the volatile end of answer
prompts; they come from a ``latest_keyframe`` hook (the session passes the video
stage's), so the assistant never depends on the stage itself.
"""

from __future__ import annotations

import asyncio
import logging
import math
import time
from typing import TYPE_CHECKING, Any, Callable

from .config import Config
from .events import (
    Error,
    Event,
    TranscriptFinal,
    TranscriptPartial,
    TwinState,
    VisionObservation,
)
from .generation import Generator
from .llm.base import Backend, LLMError
from .llm_calls import Caller, StreamStats
from .policy.context import SAID, SEEN, ContextWindow, PromptImage
from .policy.driver import QUESTION, Cancel, Command, DriverPolicy, Start
from .policy.extract import is_voice_label
from .policy.effort import EffortPolicy
from .policy.frames import COVERED_NOTE, observation_text
from .policy.heard import HeardIndex
from .policy.images import SCENE_CHANGE, ImageBudget, Sighting
from .policy.utterances import Utterance, UtteranceGrouper
from .prompts import NOTHING_NEW, SYSTEM_PROMPT
from .summary import SummaryFolder
from .twin_updates import TwinUpdater

if TYPE_CHECKING:
    from .vision import Keyframe

log = logging.getLogger(__name__)


class Assistant:
    """Feeds transcript and vision events to the backend; emits assistant, twin and error events."""

    def __init__(
        self,
        config: Config,
        backend: Backend | None,
        emit: Callable[[Event], Any],
        clock: Callable[[], float] = time.monotonic,
        *,
        speculative: bool = False,
        twin_updates: bool = True,
        twin_every_utterances: int = 3,
        wall_time_cap_s: float = 120.0,
        assistant_names: tuple[str, ...] = ("assistant", "assistance", "streamtwin"),  # as Whisper hears them
        latest_keyframe: Callable[[], Keyframe | None] | None = None,
    ) -> None:
        self.config = config
        self.backend = backend
        self._emit = emit
        self._clock = clock
        self.twin_updates = twin_updates
        self.twin_every_utterances = twin_every_utterances
        twin_max_tokens = max(512, 2 * config.llm_max_tokens)

        # backend.context_tokens already leaves room for a reply of llm_max_tokens; keep a
        # quarter for the volatile part (twin JSON, instruction) and the twin's longer reply.
        context_tokens = config.llm_context_tokens or (backend.context_tokens if backend else 4096)
        budget = context_tokens - context_tokens // 4 - (twin_max_tokens - config.llm_max_tokens)
        self.window = ContextWindow(
            budget,
            block_tokens=min(2048, max(64, budget // 10)),
            system_prompt=SYSTEM_PROMPT,
            low_water=0.75,
            volatile_tokens=context_tokens // 4,
        )
        in_flight = backend.max_in_flight if backend else 1
        backend_name = backend.name if backend else "none"
        self.policy = DriverPolicy(
            # More than the backend sustains would only queue in front of its slots.
            max_in_flight=min(config.llm_max_in_flight or in_flight, in_flight),
            preempt=config.llm_preempt,
            heartbeat_s=config.llm_heartbeat_s,
            # Restarting a hosted model costs milliseconds; a CPU model's prompt pass costs seconds.
            debounce_s=config.llm_debounce_s if config.llm_debounce_s >= 0 else (0.4 if backend_name == "local" else 0.0),
            speculative=speculative,
            assistant_names=assistant_names,
        )
        self.utterances = UtteranceGrouper()
        self.heard = HeardIndex()  # the whole session: the window forgets, grounding must not
        # Without a model (--llm none with twin_without_llm) the twin comes from the rules alone
        # and questions are answered from the twin or by quoting what was said.
        effort = EffortPolicy(
            config.twin_budget_s,
            parallel=in_flight,
            samples=config.llm_samples or None,
            refine=config.llm_refine if config.llm_refine >= 0 else None,
            reply_tokens=twin_max_tokens,
        )
        self.caller = Caller(backend, emit, clock, wall_time_cap_s, effort) if backend else None
        self._slots = self.caller.slots if self.caller else asyncio.Semaphore(1)
        self.twin_updater = TwinUpdater(
            self.caller, self.window, self.heard, emit, clock, self._report_backend_error,
            max_tokens=twin_max_tokens, effort=effort,
        )
        self.folder = (
            SummaryFolder(self.caller, self.window, clock, self.policy.backoff_until, self._report_backend_error)
            if self.caller
            else None
        )
        self._latest_keyframe = latest_keyframe
        self.images: ImageBudget[PromptImage] | None = None  # None: this backend gets text only
        sees = backend is not None and backend.supports_images
        if latest_keyframe is not None and sees and config.vision_images_per_min > 0:
            self.images = ImageBudget(config.vision_images_per_min)
        self._sighting: Sighting | None = None
        self.generator = Generator(
            config, backend, self.caller, self._slots, self.window, self.twin_updater, self.heard, emit, clock,
            is_addressed=self.policy.is_addressed,
            images=self.images,
            report_error=self._report_backend_error,
            media_time=lambda: self._media_time,
        )

        self._generations: dict[int, asyncio.Task[None]] = {}
        self._cancel_reasons: dict[int, str] = {}
        self._twin_task: asyncio.Task[None] | None = None
        self._twin_wanted = False
        self._utterances_since_twin = 0
        self._timer: asyncio.TimerHandle | None = None
        self._timer_deadline: float | None = None
        self._media_time = 0.0
        self._question = ""
        self._closed = False
        self._speaker_names: dict[str, str] = {}  # voice label -> the name it gave

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
        last update).  False on timeout."""
        for utterance in self.utterances.flush():
            self._on_utterance(utterance)
        if self._utterances_since_twin:
            self._want_twin()
        self._arm_timer()
        deadline = None if timeout_s is None else time.monotonic() + timeout_s
        while self._busy():
            if deadline is not None and time.monotonic() >= deadline:
                return False
            await asyncio.sleep(0.02)
        return True

    async def close(self) -> None:
        """Cancel everything still running; started generations report ``cancelled``.

        The backend belongs to the caller, who closes it.
        """
        self._closed = True
        if self.folder is not None:
            self.folder.closed = True
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        tasks: list[asyncio.Task[None]] = []
        for gen_id, task in self._generations.items():
            self._cancel_reasons[gen_id] = "closed"
            tasks.append(task)
        tasks += [task for task in (self._twin_task, self.folder and self.folder.task) if task is not None]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    # --- input --------------------------------------------------------------------

    def on_event(self, event: Event) -> None:
        """EventBus subscriber: updates the window and the driver, starts tasks, returns at once."""
        if self._closed:
            return
        now = self._clock()
        if isinstance(event, TranscriptFinal):
            self._media_time = max(self._media_time, event.end)
            self.generator.language = event.language or self.generator.language
            if event.speaker_name and self._speaker_names.get(event.speaker) != event.speaker_name:
                self._speaker_names[event.speaker] = event.speaker_name
                self.twin_updater.rename(event.speaker, event.speaker_name)
            done = self.utterances.add(
                event.text, event.start, event.end, event.utterance, event.utterance_end,
                event.speaker_name or event.speaker,
            )
            for utterance in done:
                self._on_utterance(utterance)
            if not done:
                return
        elif isinstance(event, TranscriptPartial):
            for utterance in self.utterances.on_speech(event.start):
                self._on_utterance(utterance)
            self._run(self.policy.on_partial(now, event.text))
        elif isinstance(event, VisionObservation):
            at = event.media_time if event.media_time is not None else self._media_time
            self._media_time = max(self._media_time, at)
            text = observation_text(event.kind, event.score, event.note)
            self.window.add(at, text, SEEN)
            self.heard.add(text)
            self._see(event, at, text)
            if event.kind == SCENE_CHANGE:
                self._run(self.policy.on_scene(now))
            else:
                self.policy.note_context(now)
        else:
            return
        self._fold()
        self._arm_timer()

    def _fold(self) -> None:
        if self.folder is not None:
            self.folder.take_evicted()
        else:
            self.window.take_evicted()  # no model to summarise with: the marked notes stay

    def _on_utterance(self, utterance: Utterance) -> None:
        """A whole utterance: into the window, the session index and the rules, then to the driver."""
        # "Tom: I will ..." (or "S2: ..." before the voice gave a name): the prompt says who "I" is.
        line = f"{utterance.speaker}: {utterance.text}" if utterance.speaker else utterance.text
        self.window.add(utterance.start, line)
        # Grounding hears a voice's name, never its label: an owner "S2" is pruned as nobody.
        self.heard.add(utterance.text if is_voice_label(utterance.speaker) else line)
        addressed = self.policy.addressed_part(utterance.text)
        said = utterance.text if addressed is None else utterance.text[: len(utterance.text) - len(addressed)]
        if said.strip():
            # What people said to each other; never the questions to us.
            self.twin_updater.add(said, speaker=utterance.speaker)
        if addressed is not None:
            self._question = addressed
        self._run(self.policy.on_final(self._clock(), utterance.text))
        self._utterances_since_twin += 1
        if self._utterances_since_twin >= self.twin_every_utterances:
            self._want_twin()
        self._fold()
        self._arm_timer()

    def _see(self, observation: VisionObservation, at: float, text: str) -> None:
        """Remember what set the scene, and offer the observation's keyframe (captioned ``text``) as an image."""
        if observation.kind == SCENE_CHANGE or self._sighting is None:
            self._sighting = Sighting(at, observation.note or text)
        if self.images is None or self._latest_keyframe is None or observation.note == COVERED_NOTE:
            return  # a covered lens is said in words; its picture shows nothing
        keyframe = self._latest_keyframe()
        if keyframe is None or keyframe.media_time != observation.media_time:
            return  # this frame got no JPEG: the text is all there is
        size = len(keyframe.jpeg)
        if not self.images.offer(PromptImage(f"[{at:.1f}s] {text}", keyframe.data_url()), at, observation.kind, size):
            log.debug("keyframe at %.1fs (%d bytes) refused by the image budget: text only", at, size)

    # --- commands -----------------------------------------------------------------

    def _run(self, commands: list[Command]) -> None:
        for command in commands:
            if isinstance(command, Cancel):
                task = self._generations.get(command.gen_id)
                if task is not None:
                    self._cancel_reasons[command.gen_id] = command.reason
                    task.cancel()
            elif not self._closed:
                question = None
                if command.trigger == QUESTION:
                    question = command.speculative_text or self._question
                    self._yield_to_question()
                task = asyncio.create_task(
                    self._generate(command, question), name=f"assistant-generation-{command.gen_id}"
                )
                self._generations[command.gen_id] = task
                # A task cancelled before its first step never runs its own finally.
                task.add_done_callback(lambda _, gen_id=command.gen_id: self._forget_generation(gen_id))

    def _forget_generation(self, gen_id: int) -> None:
        self._generations.pop(gen_id, None)
        self._cancel_reasons.pop(gen_id, None)

    def _yield_to_question(self) -> None:
        """A question must not wait behind a twin update for the backend's slot."""
        if self._twin_task is not None and self._slots.locked():
            self._twin_task.cancel()

    async def _generate(self, start: Start, question: str | None) -> None:
        gen_id = start.gen_id
        await self.generator.run(
            start,
            question,
            cancel_reason=lambda: self._cancel_reasons.get(gen_id, "cancelled"),
            forget=lambda: self._forget_generation(gen_id),
            finished=lambda stats, cancelled: self._after_generation(gen_id, stats, cancelled),
        )

    def _after_generation(self, gen_id: int, stats: StreamStats, cancelled: bool) -> None:
        if self._closed:
            return
        if not cancelled:
            answer = stats.text.strip()
            if answer and answer != NOTHING_NEW:
                self.window.add(self._media_time, answer, SAID)
                self._fold()
            if self._utterances_since_twin:
                self._want_twin()
        self._run(self.policy.on_generation_done(self._clock(), gen_id, cancelled))
        self._arm_timer()

    def _report_backend_error(self, exc: BaseException, gen_id: int | None = None) -> str:
        """Emit an ``error`` event and start the backoff; returns the error code."""
        name = self.backend.name if self.backend else "none"
        if not isinstance(exc, LLMError):
            log.error("backend %s failed unexpectedly", name, exc_info=exc)
            exc = LLMError("internal", f"{type(exc).__name__}: {exc}")
        code = f"llm_{exc.code}"
        retry = f" (retry after {exc.retry_after:g} s)" if exc.retry_after else ""
        self._emit(Error(code=code, message=f"{name}: {exc.message}{retry}"))
        self.policy.on_backend_error(self._clock(), exc.retry_after, gen_id)
        self._arm_timer()
        return code

    # --- the twin ---------------------------------------------------------------------

    def _want_twin(self) -> None:
        """Run a twin update now, or once the running one ends: never more than one waiting."""
        if self._closed or not self.twin_updates:
            return
        self._twin_wanted = True
        if self._twin_task is not None or self._clock() < self.policy.backoff_until():
            return
        self._twin_wanted = False
        self._utterances_since_twin = 0
        self._twin_task = asyncio.create_task(self._twin_job(), name="assistant-twin")
        self._twin_task.add_done_callback(self._twin_finished)

    async def _twin_job(self) -> None:
        try:
            await self.twin_updater.update(self._sighting, self._media_time, lambda: self._media_time)
            self.policy.on_backend_ok()
        except Exception as exc:  # noqa: BLE001 - the twin keeps its last valid state
            self._twin_wanted = True
            self._report_backend_error(exc)

    def _twin_finished(self, task: asyncio.Task[None]) -> None:
        if task is self._twin_task:
            self._twin_task = None
        if task.cancelled():
            self._twin_wanted = True  # e.g. it made way for a question: run again later
        # Restarted from the timer, so work scheduled meanwhile (a question) goes first.
        self._arm_timer()

    # --- time ---------------------------------------------------------------------------

    def _arm_timer(self) -> None:
        """Wake up when the driver (debounce, backoff, heartbeat) or a waiting twin update is due."""
        if self._closed:
            return
        deadlines = [self.policy.next_deadline()]
        if self._twin_wanted and self._twin_task is None:
            deadlines.append(self.policy.backoff_until())
        due = min((d for d in deadlines if d is not None), default=None)
        if due == self._timer_deadline and self._timer is not None:
            return
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self._timer_deadline = due
        if due is not None:
            delay = 0.0 if due == -math.inf else max(0.0, due - self._clock())
            self._timer = asyncio.get_running_loop().call_later(delay, self._on_timer)

    def _on_timer(self) -> None:
        self._timer = None
        self._timer_deadline = None
        now = self._clock()
        self._run(self.policy.tick(now))
        if self._twin_wanted and self._twin_task is None and now >= self.policy.backoff_until():
            self._want_twin()
        self._arm_timer()

    def _busy(self) -> bool:
        return bool(
            self.policy.busy
            or self._generations
            or self._twin_task is not None
            or self._twin_wanted
            or (self.folder is not None and self.folder.busy)
        )
