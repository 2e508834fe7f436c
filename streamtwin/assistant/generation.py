"""One commentary or answer, from its prompt to its ``assistant.done``.

The :class:`~streamtwin.assistant.adapter.Assistant` decides when a generation runs (its
driver policy); a :class:`Generator` runs each as a task of its own, cancels it
when the driver says so, and carries it out: it waits for a backend
slot, renders the prompt (the question verbatim as the task, or the commentary
instruction), streams the commentary as deltas, or checks an answer before
showing it whole (one retry, then an answer composed from the twin or quoted
from what was said), and reports ``assistant.started`` (which backend answers, and what a twin update
affords now: samples, refine rounds, budget) / ``.delta`` / ``.done``, and ``assistant.switched`` when
another backend of a failover takes the generation over mid-answer.  Keyframes the camera offers wait in
an image budget for the next answer's prompt.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from typing import TYPE_CHECKING, Any, Callable

from streamtwin.config import Config
from streamtwin.events import AssistantDelta, AssistantDone, AssistantStarted, AssistantSwitched, Event, VisionObservation
from streamtwin.llm.backend import Answering, Backend, ChatRequest
from streamtwin.llm.failover import FailoverBackend
from streamtwin.assistant.llm_calls import Caller, StreamStats
from streamtwin.assistant.answers import (
    NO_ANSWER, AnswerChecker, answer_shape, quote_answer, twin_answer, worth_retrying,
)
from streamtwin.assistant.context import ContextWindow
from streamtwin.assistant.prompt_layout import PromptImage
from streamtwin.assistant.driver import Start
from streamtwin.vision.frames import COVERED_NOTE
from streamtwin.twin.heard import HeardIndex
from streamtwin.vision.images import ImageBudget
from streamtwin.assistant.prompts import COMMENT_INSTRUCTION, QUESTION_INSTRUCTION, RETRY_INSTRUCTION, in_language
from streamtwin.assistant.twin_updates import TwinUpdater

if TYPE_CHECKING:
    from streamtwin.vision.vision_stage import Keyframe

log = logging.getLogger(__name__)

# At temperature 0 a small model asked again mostly writes the rejected answer again, word for word.
RETRY_TEMPERATURE = 0.7


class Generator:
    """Runs the generations the driver starts, one task each; the assistant decides what follows them."""

    def __init__(
        self,
        config: Config,
        backend: Backend | None,
        caller: Caller | None,
        slots: asyncio.Semaphore,
        window: ContextWindow,
        twin_updater: TwinUpdater,
        heard: HeardIndex,
        emit: Callable[[Event], Any],
        clock: Callable[[], float],
        *,
        is_addressed: Callable[[str], bool],
        latest_keyframe: Callable[[], Keyframe | None] | None,
        report_error: Callable[[BaseException, int], str],
        finished: Callable[[int, StreamStats, bool], None],
        media_time: Callable[[], float],
    ) -> None:
        self.backend = backend
        self.caller = caller
        self.max_tokens = config.llm_max_tokens
        self.window = window
        self.twin_updater = twin_updater
        self.heard = heard
        self.answers = AnswerChecker()
        self.images: ImageBudget[PromptImage] | None = None  # None: this backend gets text only
        sees = backend is not None and backend.supports_images
        if latest_keyframe is not None and sees and config.vision_images_per_min > 0:
            self.images = ImageBudget(config.vision_images_per_min)
        self.language = ""  # what the speech stage transcribed in; the model is told to answer in it
        self._latest_keyframe = latest_keyframe
        self._slots = slots
        self._emit = emit
        self._clock = clock
        self._is_addressed = is_addressed
        self._report_error = report_error
        self._finished = finished
        self._media_time = media_time
        self._answered: list[str] = []
        self._tasks: dict[int, asyncio.Task[None]] = {}
        self._cancel_reasons: dict[int, str] = {}

    @property
    def running(self) -> bool:
        return bool(self._tasks)

    def start(self, start: Start, question: str | None) -> None:
        task = asyncio.create_task(self._generate(start, question), name=f"assistant-generation-{start.gen_id}")
        self._tasks[start.gen_id] = task
        # A task cancelled before its first step never runs its own finally.
        task.add_done_callback(lambda _, gen_id=start.gen_id: self._forget(gen_id))

    def cancel(self, gen_id: int, reason: str) -> None:
        """Cancel a running generation; its ``assistant.done`` gives ``reason``."""
        task = self._tasks.get(gen_id)
        if task is not None:
            self._cancel_reasons[gen_id] = reason
            task.cancel()

    def stop(self) -> list[asyncio.Task[None]]:
        """Cancel every generation (reason ``closed``); returns their tasks, to await."""
        for gen_id in self._tasks:
            self.cancel(gen_id, "closed")
        return list(self._tasks.values())

    def _forget(self, gen_id: int) -> None:
        self._tasks.pop(gen_id, None)
        self._cancel_reasons.pop(gen_id, None)

    def offer_keyframe(self, observation: VisionObservation, at: float, caption: str) -> None:
        """Offer the observation's keyframe to the image budget, for the next answer's prompt."""
        if self.images is None or self._latest_keyframe is None or observation.note == COVERED_NOTE:
            return  # a covered lens is said in words; its picture shows nothing
        keyframe = self._latest_keyframe()
        if keyframe is None or keyframe.media_time != observation.media_time:
            return  # this frame got no JPEG: the text is all there is
        size = len(keyframe.jpeg)
        image = PromptImage(f"[{at:.1f}s] {caption}", keyframe.data_url())
        if not self.images.offer(image, at, observation.kind, size):
            log.debug("keyframe at %.1fs (%d bytes) refused by the image budget: text only", at, size)

    async def _generate(self, start: Start, question: str | None) -> None:
        """One generation.  It is forgotten before its ``assistant.done`` (a subscriber reacting to it
        must not find the generation still running); ``finished(gen_id, stats, cancelled)`` runs after it,
        unless the backend failed (the failure was reported and the driver backs off instead)."""
        gen_id = start.gen_id
        stats = StreamStats()
        failed = cancelled = False
        reason = ""
        images: list[PromptImage] = []
        announcer: _Announcer | None = None
        try:
            async with self._slots:
                if self.caller is None and not question:
                    return  # no model: nothing to comment with
                if self.images is not None:
                    images = self.images.take(self._clock())
                request = self._request(start, question, images)
                effort = self.twin_updater.effort.plan(self._clock())
                started = functools.partial(
                    AssistantStarted,
                    generation=gen_id,
                    trigger=start.trigger,
                    question=question or "",
                    asker=start.asker,
                    twin_budget_s=effort.budget_s,
                    twin_samples=effort.samples,
                    twin_refine=effort.refine,
                )
                announcer = _Announcer(gen_id, started, self._emit, self._media_time, streams=not question)
                if not isinstance(self.backend, FailoverBackend):  # else: once it says which member answers
                    announcer.announce(self.backend.name if self.backend else "none", self._model())
                emit_delta = lambda text: self._emit(AssistantDelta(generation=gen_id, text=text))  # noqa: E731
                if question:
                    asker = self.twin_updater.voice_name(start.asker) or start.asker  # "S2" by the name it gave
                    if self.caller is None:
                        stats.text = self.fallback(question, asker)
                    else:
                        stats.text = await self._answer(request, question, asker, stats,
                                                        announcer.on_answering)
                    emit_delta(stats.text)  # checked first, then shown whole
                else:
                    await self.caller.stream(request, stats, emit_delta, announcer.on_answering)
        except asyncio.CancelledError:
            cancelled, reason = True, self._cancel_reasons.get(gen_id, "cancelled")
            raise
        except Exception as exc:  # noqa: BLE001 - any backend failure becomes an error event, never a dead task
            # A broken generation is not an answer either: reported like a cancelled one.
            failed = cancelled = True
            reason = self._report_error(exc, gen_id)
        finally:
            self._forget(gen_id)
            if images and self.images is not None:
                self.images.settle(images, answered=not cancelled)
            if stats.timed_out and not cancelled:
                reason = "wall_time_cap"
            if announcer is not None:
                if not announcer.started:  # cancelled or failed before any backend answered
                    announcer.announce(self.backend.name if self.backend else "none", self._model())
                self._emit(
                    AssistantDone(
                        generation=gen_id,
                        ttft_ms=stats.ttft_ms(),
                        tokens=stats.tokens(),
                        tokens_per_s=stats.tokens_per_s(),
                        cancelled=cancelled,
                        reason=reason,
                        media_time=self._media_time(),
                    )
                )
            if not failed:
                self._finished(gen_id, stats, cancelled)

    def _model(self) -> str:
        return self.backend.model if self.backend else ""

    def _request(self, start: Start, question: str | None, images: list[PromptImage]) -> ChatRequest:
        if question:
            prompt = self.window.render(
                in_language(QUESTION_INSTRUCTION.format(question=question, shape=answer_shape(question)).rstrip(),
                            self.language),
                twin_state=self.twin_updater.twin.state,
                images=images,
            )
        else:
            prompt = self.window.render(
                in_language(COMMENT_INSTRUCTION, self.language), speaking_now=start.speculative_text, images=images
            )
        return ChatRequest(prompt.messages, max_tokens=self.max_tokens)

    async def _answer(
        self, request: ChatRequest, question: str, asker: str, stats: StreamStats,
        on_answering: Callable[[Answering], Any],
    ) -> str:
        """The model's answer if it passes the check (one retry), else :meth:`fallback`."""
        assert self.caller is not None
        problem = ""
        for attempt in range(2):
            if attempt:
                retry = RETRY_INSTRUCTION.format(problem=problem)
                request = ChatRequest(
                    request.messages + [{"role": "assistant", "content": text}, {"role": "user", "content": retry}],
                    max_tokens=self.max_tokens,
                    temperature=RETRY_TEMPERATURE,
                )
            text = (await self.caller.stream(request, stats, on_answering=on_answering)).strip()
            state = self.twin_updater.freshest()
            problem = self.answers.problem(text, question, self.heard, state, self._answered, asker)
            if not problem:
                self._answered.append(text)
                return text
            log.info("answer to %r rejected (%s): %r", question, problem, text[:200])
            if stats.timed_out or not worth_retrying(problem):
                break  # a model that hit the wall-time cap would only hit it again
        return self.fallback(question, asker)

    def fallback(self, question: str, asker: str = "") -> str:
        """An answer without the model: list questions, questions about a task and the ``asker``'s own tasks
        from the twin, others by quoting what was said."""
        return (
            twin_answer(question, self.twin_updater.freshest(), asker)
            or quote_answer(question, self.heard, self._is_addressed)
            or NO_ANSWER
        )


class _Announcer:
    """``assistant.started`` once the backend that answers is known (at once for a single backend; at the
    first token of a failover or race), ``assistant.switched`` when another one takes over after that."""

    def __init__(
        self,
        gen_id: int,
        started: Callable[..., AssistantStarted],
        emit: Callable[[Event], Any],
        media_time: Callable[[], float],
        *,
        streams: bool,
    ) -> None:
        self.gen_id = gen_id
        self._started = started
        self._emit = emit
        self._media_time = media_time
        self._streams = streams  # its deltas are shown as they come (an answer is shown whole, once checked)
        self.started = False
        self.backend = ""

    def announce(self, backend: str, model: str, route: str = "", reason: str = "") -> None:
        self.started, self.backend = True, backend
        self._emit(self._started(backend=backend, model=model, route=route, reason=reason,
                                 media_time=self._media_time()))

    def on_answering(self, item: Answering) -> None:
        if not self.started:
            self.announce(item.backend, item.model, item.route, item.reason)
        elif item.backend != self.backend or item.restart:
            self.backend = item.backend
            self._emit(
                AssistantSwitched(
                    generation=self.gen_id, backend=item.backend, model=item.model, previous=item.previous,
                    reason=item.reason, restart=item.restart and self._streams, media_time=self._media_time(),
                )
            )
