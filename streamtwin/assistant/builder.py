"""The assistant's wiring: one place that builds the driver policy, the context window, the effort policy,
the caller that reaches the backend, the twin updater and its jobs, the summary folder and the generator,
and hands them to the :class:`~streamtwin.assistant.adapter.Assistant` that routes events to them.

The workers call back into the assistant (a backend error starts its backoff, a generation that ends
frees its slot, the alarm is re-armed when something new is due); they are wired to it here.
"""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING, Any, Callable

from streamtwin.assistant.adapter import Assistant
from streamtwin.assistant.context import ContextWindow
from streamtwin.assistant.driver import DriverPolicy
from streamtwin.assistant.effort import EffortPolicy
from streamtwin.assistant.generation import Generator
from streamtwin.assistant.llm_calls import Caller
from streamtwin.assistant.prompts import SYSTEM_PROMPT, with_participants
from streamtwin.assistant.summary import SummaryFolder
from streamtwin.assistant.twin_updates import TwinJobs, TwinUpdater
from streamtwin.config import Config
from streamtwin.events import Event
from streamtwin.llm.backend import Backend
from streamtwin.twin.heard import HeardIndex

if TYPE_CHECKING:
    from streamtwin.vision.vision_stage import Keyframe

# How Whisper hears the words that address the assistant.
ASSISTANT_NAMES = ("assistant", "assistance", "streamtwin")


def build_assistant(
    config: Config,
    backend: Backend | None,
    emit: Callable[[Event], Any],
    clock: Callable[[], float] = time.monotonic,
    *,
    speculative: bool = False,
    twin_updates: bool = True,
    twin_every_utterances: int = 3,
    wall_time_cap_s: float = 120.0,
    assistant_names: tuple[str, ...] = ASSISTANT_NAMES,
    latest_keyframe: Callable[[], Keyframe | None] | None = None,
) -> Assistant:
    """An assistant that feeds ``backend`` (None: the rules' twin and quoted answers only) and emits through
    ``emit``; ``latest_keyframe`` is the video stage's hook, so the assistant never depends on the stage."""
    twin_max_tokens = max(512, 2 * config.llm_max_tokens)
    context_tokens = config.llm_context_tokens or (backend.context_tokens if backend else 4096)
    window = ContextWindow.for_model(
        context_tokens, with_participants(SYSTEM_PROMPT, config.participants), twin_max_tokens - config.llm_max_tokens
    )
    in_flight = backend.max_in_flight if backend else 1
    backend_name = backend.name if backend else "none"
    policy = DriverPolicy(
        # More than the backend sustains would only queue in front of its slots.
        max_in_flight=min(config.llm_max_in_flight or in_flight, in_flight),
        preempt=config.llm_preempt,
        heartbeat_s=config.llm_heartbeat_s,
        # Restarting a hosted model costs milliseconds; a CPU model's prompt pass costs seconds.
        debounce_s=config.llm_debounce_s if config.llm_debounce_s >= 0 else (0.4 if backend_name == "local" else 0.0),
        speculative=speculative,
        assistant_names=assistant_names,
    )
    heard = HeardIndex()
    # Without a model (--llm none with twin_without_llm) the twin comes from the rules alone
    # and questions are answered from the twin or by quoting what was said.
    effort = EffortPolicy(
        config.twin_budget_s,
        parallel=in_flight,
        samples=config.llm_samples or None,
        refine=config.llm_refine if config.llm_refine >= 0 else None,
        reply_tokens=twin_max_tokens,
    )
    caller = Caller(backend, emit, clock, wall_time_cap_s, effort) if backend else None
    slots = caller.slots if caller else asyncio.Semaphore(1)

    # The workers call back into the assistant made at the end (late binding: by then it exists).
    def report_error(exc: BaseException, gen_id: int | None = None) -> str:
        return assistant.report_backend_error(exc, gen_id)

    def media_time() -> float:
        return assistant.media_time

    twin_updater = TwinUpdater(
        caller, window, heard, emit, clock, report_error, max_tokens=twin_max_tokens, effort=effort,
    )
    for name in config.participants:  # people from the first word, whether or not their names are heard
        heard.know(name)
        twin_updater.rules.extractor.know(name)
    twin_jobs = TwinJobs(
        twin_updater, policy, slots, clock, media_time, report_error, lambda: assistant.arm_timer(),
        enabled=twin_updates, every_utterances=twin_every_utterances,
    )
    folder = SummaryFolder(caller, window, clock, policy.backoff_until, report_error)
    generator = Generator(
        config, backend, caller, slots, window, twin_updater, heard, emit, clock,
        is_addressed=policy.is_addressed,
        latest_keyframe=latest_keyframe,
        report_error=report_error,
        finished=lambda gen_id, stats, cancelled: assistant.after_generation(gen_id, stats, cancelled),
        media_time=media_time,
    )
    assistant = Assistant(
        config, backend, emit, clock, policy=policy, window=window, heard=heard, caller=caller,
        twin_updater=twin_updater, twin_jobs=twin_jobs, folder=folder, generator=generator,
    )
    return assistant
