"""Failover and racing over real SDK clients and loopback servers speaking the real wire formats.

The primary is Groq's SDK on a Groq-format fake, the other an OpenAI-compatible fake behind the
official ``openai`` SDK; one of them is made slow, stalled or failing per test.  The decisions
themselves are unit-tested in test_failover_policy.py.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator

import pytest

from streamtwin.assistant.builder import build_assistant
from streamtwin.bus import EventBus
from streamtwin.config import Config
from streamtwin.events import AssistantDelta, AssistantDone, AssistantStarted, AssistantSwitched, Event, TranscriptFinal
from streamtwin.llm.backend import Answering, ChatRequest, Delta, Finished, LLMError, StreamItem
from streamtwin.llm.factory import make_backend, member_specs
from streamtwin.llm.failover import FailoverBackend
from streamtwin.llm.groq_backend import GroqBackend
from streamtwin.llm.openai_backend import OpenAIBackend
from streamtwin.llm.routing import FALLBACK, PRIMARY, RACE
from tests.fakes import MESSAGES
from tests.fakes.openai_server import FakeLLMServer, Reply

# Generous enough that a loaded CI machine's loopback answer is never mistaken for a stall (0.4 s was not);
# SLOW_S is how late the slow racer starts, far beyond any loaded first token and cancelled long before.
FIRST_TOKEN_S = 2.0
STALL_S = 1.0
SLOW_S = 5.0


@pytest.fixture
async def servers() -> AsyncIterator[tuple[FakeLLMServer, FakeLLMServer]]:
    async with FakeLLMServer(Reply("Groq speaking.")) as groq, FakeLLMServer(Reply("OpenAI speaking.")) as openai:
        yield groq, openai


def backend_over(groq: FakeLLMServer, openai: FakeLLMServer, race: int = 1) -> FailoverBackend:
    members = [GroqBackend("gsk-test", base_url=groq.url), OpenAIBackend(openai.url, "fake-model", "sk-test")]
    return FailoverBackend(members, race=race, first_token_s=FIRST_TOKEN_S, stall_s=STALL_S)


async def drain(stream: AsyncIterator[StreamItem]) -> tuple[list[Answering], str, Finished, float | None]:
    """Announcements, the text (restarted where one says so), Finished, and the first token's delay."""
    began = time.monotonic()
    announced: list[Answering] = []
    text, first = "", None
    finished: Finished | None = None
    async for item in stream:
        assert finished is None, "nothing may follow Finished"
        if isinstance(item, Answering):
            announced.append(item)
            text = "" if item.restart else text
        elif isinstance(item, Delta):
            assert announced, "the backend that answers is announced before its first token"
            first = time.monotonic() - began if first is None else first
            text += item.text
        else:
            finished = item
    assert finished is not None
    return announced, text, finished, first


async def test_the_primary_answers_and_says_so(servers):
    groq, openai = servers
    async with contextlib.aclosing(backend_over(groq, openai)) as backend:
        announced, text, _, _ = await drain(backend.stream(ChatRequest(MESSAGES)))
    assert [(a.backend, a.route) for a in announced] == [("groq", PRIMARY)]
    assert text == "Groq speaking." and not openai.requests


async def test_a_failing_primary_hands_over_before_its_first_token(servers):
    groq, openai = servers
    groq.script(Reply(status=500))
    async with contextlib.aclosing(backend_over(groq, openai)) as backend:
        announced, text, finished, _ = await drain(backend.stream(ChatRequest(MESSAGES)))
        assert backend.health.resting(0, time.monotonic())
        # The next call does not try the primary while it rests.
        again, _, _, _ = await drain(backend.stream(ChatRequest(MESSAGES)))
    (answer,) = announced
    assert (answer.backend, answer.route, answer.restart) == ("openai", FALLBACK, False)
    assert answer.reason.startswith("groq: server")
    assert text == "OpenAI speaking." and finished.finish_reason == "stop"
    assert [(a.backend, a.reason) for a in again] == [("openai", "groq: resting after a failure")]
    assert len(groq.requests) == 1 and len(openai.requests) == 2


async def test_a_primary_with_no_first_token_in_time_is_cut_off(servers):
    groq, openai = servers
    groq.script(Reply(stall=True))
    async with contextlib.aclosing(backend_over(groq, openai)) as backend:
        announced, text, _, first = await drain(backend.stream(ChatRequest(MESSAGES)))
    assert [(a.backend, a.reason) for a in announced] == [("openai", f"groq: no first token in {FIRST_TOKEN_S:g} s")]
    assert text == "OpenAI speaking."
    assert first is not None and first >= FIRST_TOKEN_S
    await asyncio.wait_for(groq.wait_aborted(1), 5)  # the stalled stream was closed, not left hanging


@pytest.mark.parametrize("failure", ["stall", "error"])
async def test_a_failure_mid_stream_restarts_the_answer_on_the_fallback(servers, failure):
    groq, openai = servers
    text = "Groq starts an answer and then goes quiet."
    groq.script(Reply(text, stall_after=3) if failure == "stall" else Reply(text, error_after=3))
    async with contextlib.aclosing(backend_over(groq, openai)) as backend:
        announced, shown, _, _ = await drain(backend.stream(ChatRequest(MESSAGES)))
    assert [(a.backend, a.route, a.restart, a.previous) for a in announced] == [
        ("groq", PRIMARY, False, ""),
        ("openai", FALLBACK, True, "groq"),
    ]
    expected = f"stalled, no token for {STALL_S:g} s" if failure == "stall" else "stream_broken"
    assert announced[1].reason.startswith(f"groq: {expected}")
    assert shown == "OpenAI speaking.", "the primary's half answer was withdrawn"


async def test_the_first_racer_to_produce_a_token_answers_and_the_slow_one_is_cancelled(servers):
    groq, openai = servers
    groq.script(Reply("Slow Groq.", delay_s=SLOW_S))
    async with contextlib.aclosing(backend_over(groq, openai, race=2)) as backend:
        assert backend.name == "groq|openai"
        announced, text, _, first = await drain(backend.stream(ChatRequest(MESSAGES)))
    assert [(a.backend, a.route) for a in announced] == [("openai", RACE)]
    assert text == "OpenAI speaking." and first is not None and first < SLOW_S
    assert len(groq.requests) == len(openai.requests) == 1
    assert groq.aborted_streams <= 1  # closed during its delay, or as it began to stream


async def test_when_every_backend_fails_the_call_fails_with_all_the_reasons(servers):
    groq, openai = servers
    groq.script(Reply(status=429, headers={"retry-after": "9"}))
    openai.script(Reply(status=503))
    async with contextlib.aclosing(backend_over(groq, openai)) as backend:
        with pytest.raises(LLMError) as caught:
            await drain(backend.stream(ChatRequest(MESSAGES)))
    assert caught.value.code == "server"
    assert "groq: rate_limited" in caught.value.message and "openai: server" in caught.value.message
    assert backend.health.resting(0, time.monotonic() + 8.5), "Groq's retry-after is honoured"


async def test_cancelling_the_consumer_closes_every_racer(servers):
    groq, openai = servers
    groq.script(Reply("tick ", endless=True, drip_s=0.01))
    openai.script(Reply("tock ", endless=True, drip_s=0.01))
    backend = backend_over(groq, openai, race=2)
    first = asyncio.Event()

    async def consume() -> None:
        async for item in backend.stream(ChatRequest(MESSAGES)):
            if isinstance(item, Delta):
                first.set()

    task = asyncio.create_task(consume())
    await asyncio.wait_for(first.wait(), 5)
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)
    await asyncio.wait_for(groq.wait_aborted(1), 5)
    await asyncio.wait_for(openai.wait_aborted(1), 5)
    await backend.aclose()


async def test_viewers_see_who_answered_and_the_switch(servers):
    """Through the real Assistant: assistant.started names the backend that answered,
    assistant.switched says when another took over mid-answer, and only its text is kept."""
    groq, openai = servers
    groq.script(Reply("Groq begins and breaks.", error_after=2))
    events = await run_assistant(backend_over(groq, openai))

    started = [e for e in events if isinstance(e, AssistantStarted)]
    switched = [e for e in events if isinstance(e, AssistantSwitched)]
    (done,) = [e for e in events if isinstance(e, AssistantDone)]
    assert [(e.backend, e.route) for e in started] == [("groq", PRIMARY)]
    assert [(e.backend, e.previous, e.restart) for e in switched] == [("openai", "groq", True)]
    assert switched[0].reason.startswith("groq: stream_broken")
    assert not done.cancelled
    kinds = [e.type for e in events if e.type.startswith("assistant.")]
    assert kinds.index("assistant.switched") < len(kinds) - 1 and kinds[-1] == "assistant.done"
    after = "".join(e.text for e in events[events.index(switched[0]):] if isinstance(e, AssistantDelta))
    assert after == "OpenAI speaking."


async def run_assistant(backend: FailoverBackend) -> list[Event]:
    bus = EventBus("failover")
    events: list[Event] = []
    bus.subscribe(events.append)
    assistant = build_assistant(Config(llm_heartbeat_s=1e9), backend, bus.emit, twin_updates=False)
    bus.subscribe(assistant.on_event)
    await assistant.start()
    bus.emit(TranscriptFinal(text="We ship on Friday.", start=0.0, end=1.5, utterance=1, utterance_end=True))
    assert await assistant.drain(10)
    await assistant.close()
    await backend.aclose()
    return events


async def test_viewers_see_the_race_winner_and_a_call_nobody_answered(servers):
    groq, openai = servers
    groq.script(Reply("Slow.", delay_s=SLOW_S))
    events = await run_assistant(backend_over(groq, openai, race=2))
    (started,) = [e for e in events if isinstance(e, AssistantStarted)]
    assert (started.backend, started.model, started.route) == ("openai", "fake-model", RACE)

    groq.script(Reply(status=500))
    openai.script(Reply(status=500))
    events = await run_assistant(backend_over(groq, openai))
    # The first generation: nobody answered.  (The driver tries again after its back-off; that one is answered.)
    started = next(e for e in events if isinstance(e, AssistantStarted))
    done = next(e for e in events if isinstance(e, AssistantDone))
    (error,) = [e for e in events if e.type == "error"]
    assert started.backend == "groq>openai" and done.cancelled and done.reason == "llm_server"
    assert error.code == "llm_server" and "groq: server" in error.message and "openai: server" in error.message


# --- building it from the configuration ----------------------------------------------


def test_members_from_flags():
    assert member_specs(Config(groq_api_key="k")) == [], "no race, no fallback: --llm alone"
    assert member_specs(Config(groq_api_key="k", llm_fallback=["openai:qwen2.5:1.5b", "local:smollm2"])) == [
        ("groq", ""), ("openai", "qwen2.5:1.5b"), ("local", "smollm2")
    ]
    assert member_specs(Config(llm_race=["groq", "OpenAI"], llm_fallback=["local"])) == [
        ("groq", ""), ("openai", ""), ("local", "")
    ]


@pytest.mark.parametrize(
    "settings, message",
    [
        ({"llm_fallback": ["gpt"]}, "unknown backend 'gpt' in --llm-fallback"),
        ({"llm_race": ["groq", "none"]}, "unknown backend 'none' in --llm-race"),
        ({"llm": "none", "llm_fallback": ["local"]}, "not --llm none"),
        ({"llm": "local", "llm_race": ["groq", "openai"]}, "leave --llm at auto"),
        ({"llm_race": ["groq", "groq"]}, "named twice"),
    ],
)
def test_members_that_make_no_sense_are_refused(settings, message):
    with pytest.raises(ValueError, match=message):
        member_specs(Config(**settings))


async def test_make_backend_builds_a_race_with_a_model_per_member():
    config = Config(
        groq_api_key="k", llm_base_url="http://127.0.0.1:9/v1", llm_model="shared-model",
        llm_race=["groq", "openai:llama3.1:8b"], llm_first_token_timeout_s=2.0, llm_stall_timeout_s=1.0,
    )
    backend = make_backend(config)
    assert isinstance(backend, FailoverBackend)
    try:
        assert [(m.name, m.model) for m in backend.members] == [("groq", "shared-model"), ("openai", "llama3.1:8b")]
        assert (backend.race, backend.first_token_s, backend.stall_s) == (2, 2.0, 1.0)
        assert backend.max_in_flight == 1  # what every member sustains
    finally:
        await backend.aclose()


async def test_a_race_of_one_is_that_backend_alone():
    backend = make_backend(Config(groq_api_key="k", llm_race=["groq:llama-3.3-70b-versatile"]))
    try:
        assert isinstance(backend.backend, GroqBackend) and backend.model == "llama-3.3-70b-versatile"
    finally:
        await backend.aclose()
