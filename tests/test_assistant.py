from __future__ import annotations

import asyncio
import copy
import json
from typing import Any, Callable

import jsonpatch
import pytest

from streamtwin.assistant.builder import build_assistant
from streamtwin.bus import EventBus
from streamtwin.config import Config
from streamtwin.events import (
    SpeakerNamed,
    AssistantDelta,
    AssistantDone,
    AssistantStarted,
    Error,
    Event,
    TranscriptFinal,
    TranscriptPartial,
    TranscriptRevised,
    TwinPatch,
    TwinState,
    VisionObservation,
)
from streamtwin.llm.backend import ChatRequest, LLMError
from streamtwin.twin.model import empty_state
from tests.fakes.scripted_backend import Reply, ScriptedBackend, is_twin_request, last_user_text

pytestmark = pytest.mark.asyncio

GOOD_TWIN = {
    **empty_state(),
    "summary": "Planning the website and the budget.",
    "people": [{"name": "Carol"}],
    "action_items": [{"id": "a1", "text": "Fix the search page", "owner": "Carol", "due": "Wednesday"}],
}
HALLUCINATED_TWIN = {
    **GOOD_TWIN,
    "action_items": GOOD_TWIN["action_items"] + [{"text": "Buy a sailing boat", "owner": "Dave", "due": "Monday"}],
}
UNCHANGED_TWIN = json.dumps(empty_state())


def is_fold_request(request: ChatRequest) -> bool:
    return "To save space" in last_user_text(request)


def is_answer_request(request: ChatRequest) -> bool:
    return not is_twin_request(request) and not is_fold_request(request)


def route(answer: Callable[[ChatRequest, int], Reply], twin: Callable[[ChatRequest, int], Reply] | None = None):
    """A responder that answers answer calls with ``answer`` and twin calls with ``twin``."""

    def responder(request: ChatRequest, index: int) -> Reply:
        if is_twin_request(request):
            return twin(request, index) if twin else Reply(UNCHANGED_TWIN)
        if is_fold_request(request):
            return Reply("Earlier: the team discussed the budget.")
        return answer(request, index)

    return responder


class Harness:
    def __init__(self, backend: ScriptedBackend, config: Config | None = None, **options) -> None:
        self.backend = backend
        self.bus = EventBus("test")
        self.events: list[Event] = []
        self.bus.subscribe(self.events.append)
        self.assistant = build_assistant(config or Config(), backend, self.bus.emit, **options)
        self.bus.subscribe(self.assistant.on_event)
        self.media_time = 0.0
        self.utterance = 0

    def final(self, text: str, speaker: str = "", speaker_name: str = "") -> None:
        """One whole utterance (as one final that ends it), with a voice's label and name if given."""
        self.utterance += 1
        self.bus.emit(
            TranscriptFinal(
                text=text,
                start=self.media_time,
                end=self.media_time + 1.0,
                utterance=self.utterance,
                utterance_end=True,
                speaker=speaker,
                speaker_name=speaker_name,
            )
        )
        self.media_time += 1.5

    def of(self, kind: type[Event]) -> list:
        return [event for event in self.events if isinstance(event, kind)]

    def model_patches(self) -> list[TwinPatch]:
        """The twin patches a model update made (the rules' own go out with each utterance)."""
        return [p for p in self.of(TwinPatch) if p.why.get("origins") != ["rules"]]

    def done(self, generation: int) -> AssistantDone | None:
        return next((e for e in self.of(AssistantDone) if e.generation == generation), None)

    def answer_requests(self) -> list[ChatRequest]:
        return [r for r in self.backend.requests if is_answer_request(r)]

    async def wait_for(self, predicate: Callable[[], bool], timeout: float = 5.0) -> None:
        async with asyncio.timeout(timeout):
            while not predicate():
                await asyncio.sleep(0.002)


async def without_model(config: Config | None = None) -> tuple[EventBus, Any]:
    """An assistant with no model (the rules' twin, answers from the twin or quotes), started on its own bus."""
    bus = EventBus("test")
    assistant = build_assistant(config or Config(llm="none"), None, bus.emit)
    bus.subscribe(assistant.on_event)
    await assistant.start()
    return bus, assistant


async def harness(backend: ScriptedBackend, config: Config | None = None, **options) -> Harness:
    h = Harness(backend, config, **options)
    await h.assistant.start()
    return h


async def test_every_final_reaches_a_prompt_and_every_start_has_one_done():
    backend = ScriptedBackend(route(lambda r, i: Reply("Noted: progress on the website.", delta_delay_s=0.003)))
    h = await harness(backend)
    lines = [f"Line number {i} about the budget." for i in range(25)]
    for line in lines:
        h.final(line)
        await asyncio.sleep(0.004 if len(h.events) % 3 else 0)
    assert await h.assistant.drain(5.0)
    await h.assistant.close()

    prompts = [r.messages[-1]["content"] for r in h.answer_requests()]
    for line in lines:
        assert any(line in prompt for prompt in prompts), line
    started = {e.generation for e in h.of(AssistantStarted)}
    done = {e.generation: e for e in h.of(AssistantDone)}
    assert started == set(done)  # every start is paired with exactly one done
    assert all(e.reason == "preempted" for e in done.values() if e.cancelled)
    last = max(done)
    assert not done[last].cancelled and done[last].tokens == 5
    assert backend.max_active == 1


async def test_preemption_cancels_the_running_generation_and_reports_it_cancelled():
    gate = asyncio.Event()
    backend = ScriptedBackend(route(lambda r, i: Reply("first answer", gate=gate) if i == 0 else Reply("second")))
    h = await harness(backend)
    h.final("We need to talk about the budget.")
    await h.wait_for(lambda: len(backend.requests) == 1)
    h.final("The search page is slow.")
    await h.wait_for(lambda: h.done(2) is not None)
    first, second = h.done(1), h.done(2)
    assert first.cancelled and first.reason == "preempted"
    assert not second.cancelled
    assert [e.text for e in h.of(AssistantDelta) if e.generation == 1] == []
    assert "".join(e.text for e in h.of(AssistantDelta) if e.generation == 2) == "second"
    assert "The search page is slow." in backend.requests[1].messages[-1]["content"]
    assert backend.cancelled == 1
    await h.assistant.close()


async def test_on_event_only_schedules_work():
    backend = ScriptedBackend(route(lambda r, i: Reply("ok")))
    h = await harness(backend)
    h.final("Hello.")
    assert backend.requests == [] and h.of(AssistantStarted) == []  # nothing ran inside emit()
    await h.wait_for(lambda: h.done(1) is not None)
    await h.assistant.close()


async def test_a_question_makes_a_running_twin_update_give_way():
    twin_gate = asyncio.Event()
    twin_calls: list[int] = []

    def twin(request: ChatRequest, index: int) -> Reply:
        twin_calls.append(index)
        return Reply(json.dumps(GOOD_TWIN), gate=twin_gate if len(twin_calls) == 1 else None)

    backend = ScriptedBackend(route(lambda r, i: Reply("Noted."), twin=twin))
    h = await harness(backend)
    h.final("Carol, please fix the search page by Wednesday.")
    await h.wait_for(lambda: len(twin_calls) == 1)  # the twin update holds the only slot
    h.final("Assistant, who fixes the search page?")
    await h.wait_for(lambda: h.done(2) is not None)
    assert h.of(AssistantStarted)[-1].trigger == "question" and not h.done(2).cancelled
    # And the twin ran again afterwards (a patch of the rules' draft may come first: wait for the model's call).
    await h.wait_for(lambda: len(twin_calls) >= 2 and h.of(TwinPatch))
    assert backend.cancelled == 1 and backend.max_active == 1
    await h.assistant.close()


async def test_a_question_to_the_assistant_is_the_task_and_a_question_between_people_is_context():
    backend = ScriptedBackend(route(lambda r, i: Reply("Carol fixes the search page.")))
    h = await harness(backend)
    h.final("Carol will fix the search page.")
    await h.wait_for(lambda: h.done(1) is not None)
    h.final("Are we still launching next month?")  # people asking each other
    await h.wait_for(lambda: h.done(2) is not None)
    h.final("Assistant, what are our action items?")
    await h.wait_for(lambda: h.done(3) is not None)
    assert [e.trigger for e in h.of(AssistantStarted)] == ["final", "final", "question"]
    assert h.of(AssistantStarted)[-1].question == "Assistant, what are our action items?"
    tasks = [r.messages[-1]["content"].split("## Task")[-1] for r in h.answer_requests()]
    assert "Are we still launching next month?" not in tasks[1]  # context only: it is in the transcript part
    assert "Are we still launching next month?" in h.answer_requests()[1].messages[-1]["content"]
    assert "Assistant, what are our action items?" in tasks[2]
    assert "Current twin state" in h.answer_requests()[2].messages[-1]["content"]
    await h.assistant.close()


async def test_a_repeated_answer_is_retried_once_then_a_list_question_is_answered_from_the_twin():
    def twin(request: ChatRequest, index: int) -> Reply:
        return Reply(json.dumps(GOOD_TWIN))

    backend = ScriptedBackend(route(lambda r, i: Reply("Yes, we are still launching the website next month."), twin))
    h = await harness(backend, twin_every_utterances=1)
    h.final("Carol, please fix the search page by Wednesday. Are we still launching the website next month?")
    await h.wait_for(lambda: h.of(TwinPatch))
    h.final("Assistant, are we still launching the website next month?")
    await h.wait_for(lambda: h.done(2) is not None or h.done(3) is not None)
    first = "".join(e.text for e in h.of(AssistantDelta) if e.generation == h.of(AssistantStarted)[-1].generation)
    assert first == "Yes, we are still launching the website next month."
    asked = len(h.answer_requests())
    h.final("Assistant, can you tell us the action items?")
    await h.wait_for(lambda: len(h.of(AssistantDone)) == len(h.of(AssistantStarted)) and len(h.answer_requests()) >= asked + 2)
    assert await h.assistant.drain(5.0)
    last = h.of(AssistantStarted)[-1].generation
    shown = "".join(e.text for e in h.of(AssistantDelta) if e.generation == last)
    assert shown == "Action items: Carol: Fix the search page (due Wednesday)."
    retry = h.answer_requests()[-1].messages
    assert retry[-2]["content"] == "Yes, we are still launching the website next month."
    assert "repeats an earlier answer" in retry[-1]["content"]
    await h.assistant.close()


async def test_a_list_answer_that_leaves_out_the_twin_is_replaced_by_the_twin_without_a_retry():
    twin_with_two = {
        **GOOD_TWIN,
        "people": [{"name": "Carol"}, {"name": "Bob"}],
        "action_items": GOOD_TWIN["action_items"] + [{"text": "Send the cost report", "owner": "Bob", "due": "Friday"}],
    }
    backend = ScriptedBackend(
        route(lambda r, i: Reply("Carol fixes the search page."), lambda r, i: Reply(json.dumps(twin_with_two)))
    )
    h = await harness(backend, twin_every_utterances=1)
    h.final("Carol, please fix the search page by Wednesday. Bob, can you send the cost report by Friday?")
    await h.wait_for(lambda: h.of(TwinPatch))
    h.final("Assistant, what are the action items?")
    asked_at = lambda: [e.generation for e in h.of(AssistantStarted) if e.trigger == "question"]  # noqa: E731
    await h.wait_for(lambda: asked_at() and h.done(asked_at()[0]) is not None)
    shown = "".join(e.text for e in h.of(AssistantDelta) if e.generation == asked_at()[0])
    assert shown == "Action items: Carol: Fix the search page (due Wednesday); Bob: Send the cost report (due Friday)."
    asked = [r for r in h.answer_requests() if "what are the action items" in r.messages[-1]["content"]]
    assert len(asked) == 1  # no retry: the twin lists what the answer left out
    await h.assistant.close()


async def test_rate_limit_becomes_an_error_event_then_the_assistant_recovers():
    def answer(request: ChatRequest, index: int) -> Reply:
        if index == 0:
            return Reply(error=LLMError("rate_limited", "429 Too Many Requests", retry_after=0.05))
        return Reply("Recovered answer.")

    backend = ScriptedBackend(route(answer))
    h = await harness(backend)
    h.final("First line.")
    await h.wait_for(lambda: h.of(Error))
    h.final("Second line during the backoff.")  # the transcript keeps flowing
    await h.wait_for(lambda: any(not e.cancelled for e in h.of(AssistantDone)))
    error = h.of(Error)[0]
    assert error.code == "llm_rate_limited" and "retry after 0.05 s" in error.message
    assert not error.fatal
    failed = h.done(1)
    assert failed.cancelled and failed.reason == "llm_rate_limited"
    retry_prompt = h.answer_requests()[-1].messages[-1]["content"]
    assert "First line." in retry_prompt and "Second line during the backoff." in retry_prompt
    await h.assistant.close()


async def test_a_stream_that_breaks_midway_is_reported_and_not_an_answer():
    def answer(request: ChatRequest, index: int) -> Reply:
        if index == 0:
            return Reply("one two three four", error=LLMError("stream_broken", "connection reset"), error_after=2)
        return Reply("fine")

    backend = ScriptedBackend(route(answer))
    h = await harness(backend, assistant_names=("assistant",))
    h.final("Hello there.")
    await h.wait_for(lambda: h.done(1) is not None)
    assert [e.code for e in h.of(Error)] == ["llm_stream_broken"]
    assert h.done(1).cancelled and h.done(1).reason == "llm_stream_broken"
    assert "".join(e.text for e in h.of(AssistantDelta) if e.generation == 1) == "one two"  # shown before the break
    await h.assistant.close()


async def test_an_unexpected_backend_exception_is_contained():
    backend = ScriptedBackend(route(lambda r, i: Reply(error=RuntimeError("boom")) if i == 0 else Reply("ok")))
    h = await harness(backend)
    h.final("Hello.")
    await h.wait_for(lambda: h.of(Error))
    assert h.of(Error)[0].code == "llm_internal" and "boom" in h.of(Error)[0].message
    await h.wait_for(lambda: any(not e.cancelled for e in h.of(AssistantDone)))
    await h.assistant.close()


async def test_a_model_that_never_stops_is_bounded_by_max_tokens_and_by_wall_time():
    backend = ScriptedBackend(route(lambda r, i: Reply("la", endless=True)))
    h = await harness(backend, Config(llm_max_tokens=40))
    h.final("Sing.")
    await h.wait_for(lambda: h.done(1) is not None)
    assert h.done(1).tokens == 40 and not h.done(1).cancelled

    endless = ScriptedBackend(route(lambda r, i: Reply("la", endless=True, honour_max_tokens=False)))
    h = await harness(endless, wall_time_cap_s=0.1)
    h.final("Sing forever.")
    await h.wait_for(lambda: h.done(1) is not None)
    assert h.done(1).reason == "wall_time_cap"
    assert [e.code for e in h.of(Error)] == ["llm_timeout"]
    assert endless.cancelled >= 1  # the stream was closed, freeing the model
    await h.assistant.close()


async def test_an_answer_cut_off_by_the_wall_time_cap_is_not_retried():
    backend = ScriptedBackend(route(lambda r, i: Reply("", first_delay_s=5.0)))
    h = await harness(backend, wall_time_cap_s=0.1)
    h.final("The server is in the basement.")
    h.final("Assistant, where is the server?")
    asked = lambda: [e.generation for e in h.of(AssistantStarted) if e.trigger == "question"]  # noqa: E731
    await h.wait_for(lambda: asked() and h.done(asked()[0]) is not None)
    shown = "".join(e.text for e in h.of(AssistantDelta) if e.generation == asked()[0])
    assert shown == 'From what was said: "The server is in the basement."'
    assert sum("where is the server" in str(r.messages) for r in h.answer_requests()) == 1  # a retry repeats them
    await h.assistant.close()


async def test_close_cancels_running_generations_and_reports_them():
    backend = ScriptedBackend(route(lambda r, i: Reply("never", gate=asyncio.Event())))
    h = await harness(backend)
    h.final("Something.")
    await h.wait_for(lambda: h.of(AssistantStarted))
    await h.assistant.close()
    done = h.done(1)
    assert done is not None and done.cancelled and done.reason == "closed"
    assert backend.active == 0
    h.final("After close.")  # ignored, no new work
    await asyncio.sleep(0.01)
    assert len(backend.requests) == 1


async def test_twin_state_first_then_validated_patches_with_why():
    backend = ScriptedBackend(route(lambda r, i: Reply("-"), twin=lambda r, i: Reply(json.dumps(GOOD_TWIN))))
    h = await harness(backend)
    h.final("Carol, please fix the search page by Wednesday.")
    await h.wait_for(lambda: any("sample" in p.why.get("origins", []) for p in h.of(TwinPatch)))
    assert isinstance(h.of(TwinState)[0], TwinState) and h.events.index(h.of(TwinState)[0]) == 0
    state, (rules, patch) = h.of(TwinState)[0], h.of(TwinPatch)
    assert state.version == 0 and (rules.version, patch.version) == (1, 2)
    assert rules.why["origins"] == ["rules"]  # what the rules found went out with the utterance
    assert jsonpatch.apply_patch(jsonpatch.apply_patch(state.state, rules.patch), patch.patch) == GOOD_TWIN
    assert patch.why["winner"] == 0 and patch.why["candidates"][0]["grounding"] == 1.0
    twin_request = next(r for r in backend.requests if is_twin_request(r))
    assert twin_request.response_format["type"] == "json_schema"
    assert "Current twin state" in twin_request.messages[-1]["content"]
    # "-" means nothing new: it is not added to the context as an assistant remark.
    assert "(assistant)" not in twin_request.messages[-1]["content"]
    await h.assistant.close()


async def test_garbage_twin_output_is_rejected_and_the_twin_keeps_its_state():
    backend = ScriptedBackend(route(lambda r, i: Reply("ok"), twin=lambda r, i: Reply("I am not JSON at all")))
    h = await harness(backend)
    h.final("Carol mentioned the search page.")  # nothing the rules read: the model's output alone is judged
    await h.wait_for(lambda: h.of(Error))
    assert h.of(Error)[0].code == "twin_invalid"
    assert h.of(TwinPatch) == []
    assert h.assistant.twin.state == empty_state() and h.assistant.twin.version == 0
    await h.assistant.close()


@pytest.mark.parametrize("max_in_flight", [3, 1])
async def test_samples_pick_the_grounded_candidate(max_in_flight):
    candidates = [json.dumps(HALLUCINATED_TWIN), json.dumps(GOOD_TWIN), "garbage"]
    twin_calls: list[int] = []

    def twin(request: ChatRequest, index: int) -> Reply:
        twin_calls.append(index)
        return Reply(candidates[(len(twin_calls) - 1) % 3], delta_delay_s=0.001)

    backend = ScriptedBackend(route(lambda r, i: Reply("-"), twin=twin), max_in_flight=max_in_flight)
    h = await harness(backend, Config(llm_samples=3, llm_max_in_flight=1))
    h.final("Carol, please fix the search page by Wednesday.")
    await h.wait_for(lambda: any("sample" in p.why.get("origins", []) for p in h.of(TwinPatch)))
    patch = h.of(TwinPatch)[-1]
    assert h.assistant.twin.state == GOOD_TWIN  # the sailing boat was in one sample of two valid ones
    assert patch.why["winner"] == 1 and patch.why["voters"] == 2
    scores = patch.why["candidates"]
    assert "action item: Buy a sailing boat" in scores[0]["ungrounded"]
    assert scores[2]["valid"] is False
    assert patch.why["origins"] == ["sample"] * 3
    twin_requests = [r for r in backend.requests if is_twin_request(r)]
    assert [r.temperature for r in twin_requests[:3]] == [0.0, 0.8, 0.8]
    assert backend.max_active == (3 if max_in_flight == 3 else 1)
    await h.assistant.close()


async def test_refine_revises_with_the_verifiers_critique():
    replies = iter([json.dumps(HALLUCINATED_TWIN), json.dumps(GOOD_TWIN)])
    backend = ScriptedBackend(route(lambda r, i: Reply("-"), twin=lambda r, i: Reply(next(replies, UNCHANGED_TWIN))))
    h = await harness(backend, Config(llm_refine=2))
    h.final("Carol, please fix the search page by Wednesday.")
    await h.wait_for(lambda: h.model_patches())
    patch = h.model_patches()[0]
    assert h.assistant.twin.state == GOOD_TWIN
    assert patch.why["origins"] == ["sample", "revision 1"] and patch.why["winner"] == 1
    twin_requests = [r for r in backend.requests if is_twin_request(r)]
    assert len(twin_requests) == 2  # the revision had nothing left to fix: no third round
    revision = twin_requests[1].messages
    assert revision[-2] == {"role": "assistant", "content": json.dumps(HALLUCINATED_TWIN)}
    assert "Buy a sailing boat" in revision[-1]["content"]
    await h.assistant.close()


async def test_a_fast_backend_gets_best_of_n_chosen_from_its_measured_speed_and_says_so():
    backend = ScriptedBackend(route(lambda r, i: Reply("word " * 40), twin=lambda r, i: Reply(json.dumps(GOOD_TWIN))))
    h = await harness(backend)
    h.final("Carol, please fix the search page by Wednesday.")
    await h.wait_for(lambda: h.model_patches())
    first = h.of(AssistantStarted)[0]
    assert (first.twin_samples, first.twin_refine, first.twin_budget_s) == (1, 0, 1.0)  # nothing measured yet
    patch = h.model_patches()[0]
    effort = patch.why["effort"]
    assert (effort["samples"], effort["refine"]) == (5, 3)  # an instant model: the most the policy allows
    assert len([r for r in backend.requests if is_twin_request(r)]) == patch.why["origins"].count("sample") == 5
    h.final("The search page comes first.")
    await h.wait_for(lambda: len(h.of(AssistantStarted)) == 2)
    second = h.of(AssistantStarted)[1]
    assert (second.twin_samples, second.twin_refine, second.twin_budget_s) == (5, 3, 1.0)
    await h.assistant.close()


async def test_a_slow_backend_keeps_one_sample_and_no_refinement():
    slow = Reply("word " * 40, delta_delay_s=0.005)  # at most 200 tokens/s: a 512-token twin call takes 2.5 s
    backend = ScriptedBackend(route(lambda r, i: slow, twin=lambda r, i: Reply(json.dumps(GOOD_TWIN))))
    h = await harness(backend)
    h.final("Carol, please fix the search page by Wednesday.")
    await h.wait_for(lambda: h.model_patches())
    assert (h.model_patches()[0].why["effort"]["samples"], h.model_patches()[0].why["effort"]["refine"]) == (1, 0)
    assert len([r for r in backend.requests if is_twin_request(r)]) == 1
    await h.assistant.close()


async def test_twin_errors_back_off_and_keep_the_last_valid_state():
    calls = {"twin": 0}

    def twin(request: ChatRequest, index: int) -> Reply:
        calls["twin"] += 1
        if calls["twin"] == 1:
            return Reply(json.dumps(GOOD_TWIN))
        if calls["twin"] == 2:
            return Reply(error=LLMError("server", "500 Internal Server Error", retry_after=0.02))
        return Reply(json.dumps({**GOOD_TWIN, "topics": ["search page"]}))

    backend = ScriptedBackend(route(lambda r, i: Reply("-"), twin=twin))
    h = await harness(backend)
    h.final("Carol, please fix the search page by Wednesday.")
    await h.wait_for(lambda: h.model_patches())
    h.final("The search page is the main topic.")
    await h.wait_for(lambda: len(h.model_patches()) == 2)
    assert [e.code for e in h.of(Error)] == ["llm_server"]
    assert h.assistant.twin.state["action_items"] == GOOD_TWIN["action_items"]
    assert h.model_patches()[1].patch == [{"op": "add", "path": "/topics/0", "value": "search page"}]
    await h.assistant.close()


@pytest.mark.parametrize("failure", ["error", "garbage"])
async def test_a_twin_update_the_model_fails_still_shows_what_the_rules_found(failure):
    def twin(request: ChatRequest, index: int) -> Reply:
        if failure == "error":
            return Reply(error=LLMError("timeout", "no reply within the wall-time cap", retry_after=30.0))
        return Reply("I am sorry, I cannot produce JSON.")

    backend = ScriptedBackend(route(lambda r, i: Reply("-"), twin=twin))
    h = await harness(backend, twin_every_utterances=1)
    h.final("Carol, please fix the search page by Wednesday.")
    await h.wait_for(lambda: h.of(Error))  # the rules' item went out before the model failed
    items = h.assistant.twin.state["action_items"]
    assert [(i["owner"], i["text"], i["due"]) for i in items] == [("Carol", "fix the search page", "Wednesday")]
    assert h.of(TwinPatch)[0].why["origins"] == ["rules"]
    await h.assistant.close()


async def test_evicted_blocks_are_folded_into_the_summary_in_the_background():
    backend = ScriptedBackend(route(lambda r, i: Reply("-")))
    h = await harness(backend, Config(llm_context_tokens=2048))
    for i in range(80):
        h.final(f"Sentence {i}: the budget review covers design spending and the website launch plan.")
        if i % 10 == 0:
            await asyncio.sleep(0)
    assert await h.assistant.drain(5.0)
    folds = [r for r in backend.requests if is_fold_request(r)]
    assert folds and "Sentence 0:" in last_user_text(folds[0]).split("## Task")[-1]
    last_prompt = h.answer_requests()[-1].messages[-1]["content"]
    assert "Earlier: the team discussed the budget." in last_prompt
    assert "Sentence 79:" in last_prompt and "Sentence 0:" not in last_prompt
    await h.assistant.close()


async def test_heartbeat_and_scene_triggers():
    backend = ScriptedBackend(route(lambda r, i: Reply("-")))
    h = await harness(backend, Config(llm_heartbeat_s=0.05))
    h.bus.emit(VisionObservation(kind="scene_change", score=0.9, note="a slide titled Budget", media_time=1.0))
    await h.wait_for(lambda: h.done(1) is not None)
    h.bus.emit(VisionObservation(kind="motion", score=0.2, media_time=2.0))
    await h.wait_for(lambda: h.done(2) is not None)
    assert [e.trigger for e in h.of(AssistantStarted)] == ["scene", "heartbeat"]
    prompt = h.answer_requests()[-1].messages[-1]["content"]
    assert "[1.0s] (seen) scene change (score 0.90): a slide titled Budget\n" in prompt
    assert "[2.0s] (seen) motion (score 0.20)\n" in prompt
    await asyncio.sleep(0.15)
    assert len(h.of(AssistantStarted)) == 2  # nothing changed since: no more heartbeats
    await h.assistant.close()


async def test_speculative_start_is_kept_when_the_final_matches():
    backend = ScriptedBackend(route(lambda r, i: Reply("We launch in June.", delta_delay_s=0.01)))
    h = await harness(backend, speculative=True)
    for _ in range(2):
        h.bus.emit(TranscriptPartial(text="Assistant, when do we launch?", start=0.0))
    await h.wait_for(lambda: h.of(AssistantStarted))
    assert "Assistant, when do we launch?" in backend.requests[0].messages[-1]["content"].split("## Task")[-1]
    h.final("Assistant, when do we launch?")
    await h.wait_for(lambda: h.done(1) is not None)
    assert not h.done(1).cancelled
    assert [e.trigger for e in h.of(AssistantStarted)] == ["question"]
    await h.assistant.close()


async def test_twin_update_waits_for_drain_and_reflects_all_finals():
    seen: list[str] = []

    def twin(request: ChatRequest, index: int) -> Reply:
        seen.append(request.messages[-1]["content"])
        return Reply(UNCHANGED_TWIN)

    backend = ScriptedBackend(route(lambda r, i: Reply("-", first_delay_s=0.01), twin=twin))
    h = await harness(backend, twin_every_utterances=100)
    for i in range(5):
        h.final(f"Point {i}.")
    assert await h.assistant.drain(5.0)
    assert seen and "Point 4." in seen[-1]
    await h.assistant.close()


async def test_the_scripted_backend_records_cancellation_of_an_abandoned_stream():
    backend = ScriptedBackend([Reply("a b c", delta_delay_s=0.01)])
    request = ChatRequest(messages=[{"role": "user", "content": "x"}])
    stream = backend.stream(request)
    assert (await anext(stream)).text == "a"
    await stream.aclose()
    assert backend.cancelled == 1 and backend.active == 0
    copy.deepcopy(backend.requests)


async def test_the_twin_scene_follows_what_the_camera_shows():
    twin_prompts: list[str] = []
    written = {"description": "", "updated_at": None}  # what the model writes into the scene, phase by phase

    def twin(request: ChatRequest, index: int) -> Reply:
        twin_prompts.append(last_user_text(request))
        return Reply(json.dumps({**empty_state(), "scene": {**written, "updated_at": 999}}))

    backend = ScriptedBackend(route(lambda r, i: Reply("-"), twin=twin))
    h = await harness(backend, twin_every_utterances=1)
    scene = lambda: h.assistant.twin.state["scene"]  # noqa: E731

    # A model that leaves the scene empty: the scene-setting observation fills it, with its media time.
    h.bus.emit(VisionObservation(kind="keyframe", score=1.0, note="colourful, medium light", media_time=0.0))
    h.bus.emit(VisionObservation(kind="scene_change", score=0.99, note="mostly blue, bright", media_time=10.0))
    h.bus.emit(VisionObservation(kind="motion", score=0.2, note="mostly blue, some motion", media_time=10.5))
    h.media_time = 11.0
    h.final("Here is the budget slide.")
    assert await h.assistant.drain(5.0)
    assert scene() == {"description": "mostly blue, bright", "updated_at": 10.0}
    assert "[10.0s] (seen) scene change (score 0.99): mostly blue, bright\n" in twin_prompts[-1]

    # A model that describes it: its words, stamped with how far its prompt reached (not its own number).
    written["description"] = "A slide titled Budget"
    h.final("It shows the costs.")  # 12.5 .. 13.5
    assert await h.assistant.drain(5.0)
    assert scene() == {"description": "A slide titled Budget", "updated_at": 13.5}

    # The picture changes but the model copies its old words: the new scene wins.
    h.bus.emit(VisionObservation(kind="scene_change", score=0.9, note="mostly magenta, bright", media_time=20.0))
    h.media_time = 21.0
    h.final("Next topic.")
    assert await h.assistant.drain(5.0)
    assert scene() == {"description": "mostly magenta, bright", "updated_at": 20.0}
    scene_paths = [op["path"] for p in h.of(TwinPatch) for op in p.patch if op["path"].startswith("/scene")]
    assert scene_paths and len(h.of(TwinPatch)) == 3
    await h.assistant.close()


async def test_without_a_camera_the_twin_scene_is_never_invented():
    invented = json.dumps({**empty_state(), "scene": {"description": "A bright office", "updated_at": 3.0}})
    backend = ScriptedBackend(route(lambda r, i: Reply("-"), twin=lambda r, i: Reply(invented)))
    h = await harness(backend, twin_every_utterances=1)
    h.final("Good morning, everyone.")
    assert await h.assistant.drain(5.0)
    assert h.assistant.twin.state["scene"] == empty_state()["scene"]
    await h.assistant.close()


async def test_an_owner_nobody_named_never_reaches_a_viewer():
    invented = {**GOOD_TWIN, "people": [{"name": "Carol"}, {"name": "John"}],
                "action_items": [{"text": "Fix the search page", "owner": "John", "due": "Wednesday"}]}
    backend = ScriptedBackend(route(lambda r, i: Reply("-"), twin=lambda r, i: Reply(json.dumps(invented))))
    h = await harness(backend, twin_every_utterances=1)
    h.final("Someone please fix the search page by Wednesday. Thanks, Carol.")
    assert await h.assistant.drain(5.0)
    state = h.of(TwinState)[0].state
    for patch in h.of(TwinPatch):  # every state a viewer ever held
        state = jsonpatch.apply_patch(state, patch.patch)
        assert "John" not in json.dumps(state)
    assert state["action_items"][0]["owner"] == "unassigned"
    assert state["people"] == [{"name": "Carol"}]
    assert "owner John of: Fix the search page" in h.model_patches()[0].why["candidates"][0]["ungrounded"]
    await h.assistant.close()


async def test_the_one_who_asked_for_a_task_is_never_shown_as_its_owner():
    # Measured (brainstorm, Qwen): "Ben, can you draw ..." heard without "Ben"; the model gave the sketches to Chris.
    asked = {**GOOD_TWIN, "people": [{"name": "Chris"}], "action_items": [
        {"text": "draw some screen sketches by next Wednesday", "owner": "Chris", "due": "next Wednesday"}]}
    backend = ScriptedBackend(route(lambda r, i: Reply("-"), twin=lambda r, i: Reply(json.dumps(asked))))
    h = await harness(backend, twin_every_utterances=3)
    h.final("Nice. Chris, please check the name by Friday.", "S1")
    h.final("Okay, I will check the name by Friday. Then, can you draw some screen sketches by next Wednesday?", "S3")
    h.final("Sure, I will draw the sketches by Wednesday.", "S2")
    assert await h.assistant.drain(5.0)
    state = h.of(TwinState)[0].state
    for patch in h.of(TwinPatch):
        state = jsonpatch.apply_patch(state, patch.patch)
    assert [(a["owner"], a["text"]) for a in state["action_items"]] == [
        ("Chris", "check the name"), ("unassigned", "draw the sketches")]
    await h.assistant.close()


async def test_a_heard_word_that_is_no_person_never_owns_an_item_a_viewer_sees():
    misread = {**GOOD_TWIN, "action_items": [{"text": "Hire the caterer", "owner": "Fine", "due": "Monday"}]}
    backend = ScriptedBackend(route(lambda r, i: Reply("-"), twin=lambda r, i: Reply(json.dumps(misread))))
    h = await harness(backend, twin_every_utterances=1)
    h.final("Carol, who hires the caterer? Fine, I will hire the caterer by Monday.")
    assert await h.assistant.drain(5.0)
    state = h.of(TwinState)[0].state
    for patch in h.of(TwinPatch):
        state = jsonpatch.apply_patch(state, patch.patch)
        assert all(item["owner"] != "Fine" for item in state["action_items"])
    assert [(i["text"], i["owner"]) for i in state["action_items"]] == [("Hire the caterer", "Carol")]
    await h.assistant.close()


async def test_without_a_model_the_twin_comes_from_the_rules_and_answers_from_the_twin():
    bus = EventBus("test")
    events: list[Event] = []
    bus.subscribe(events.append)
    assistant = build_assistant(Config(llm="none", twin_without_llm=True), None, bus.emit, twin_every_utterances=1)
    bus.subscribe(assistant.on_event)
    await assistant.start()
    lines = [
        "Carol, please fix the search page by Wednesday.",
        "The server is in the basement.",
        "Assistant, what are the action items?",
        "Assistant, where is the server?",
    ]
    for number, text in enumerate(lines, 1):
        bus.emit(TranscriptFinal(text=text, start=number * 2.0, end=number * 2.0 + 1, utterance=number, utterance_end=True))
    assert await assistant.drain(5.0)
    await assistant.close()
    assert assistant.twin.state["action_items"] == [
        {"id": "a1", "text": "fix the search page", "owner": "Carol", "due": "Wednesday"}
    ]
    started = [e for e in events if isinstance(e, AssistantStarted)]
    assert [e.trigger for e in started] == ["question", "question"] and started[0].backend == "none"
    answers = ["".join(e.text for e in events if isinstance(e, AssistantDelta) and e.generation == s.generation) for s in started]
    assert answers == [
        "Action items: Carol: fix the search page (due Wednesday).",
        'From what was said: "The server is in the basement."',
    ]


async def test_the_task_names_the_language_spoken():
    from streamtwin.assistant.prompts import QUESTION_INSTRUCTION, in_language

    task = in_language(QUESTION_INSTRUCTION.format(question="Assistent, was sind die Aufgaben?", shape=""), "de")
    assert task.endswith("The conversation is in German: reply in German.")
    assert in_language("Comment.", "") == "Comment."


async def test_labelled_finals_reach_the_prompt_as_speaker_lines_and_i_will_gets_its_owner():
    backend = ScriptedBackend(route(lambda r, i: Reply("-")))
    h = await harness(backend, Config(llm_debounce_s=0.0), twin_updates=False)
    for text, speaker, name in [
        ("Priya here, the payment screen is finished.", "S2", "Priya"),
        ("I will fix the failing tests by Wednesday.", "S3", ""),
        ("I will write the store listing tomorrow.", "S2", "Priya"),
    ]:
        h.final(text, speaker, name)
    assert await h.assistant.drain(5.0)
    await h.assistant.close()
    context = h.assistant.window.context_text()
    assert "Priya: Priya here, the payment screen is finished." in context
    assert "S3: I will fix the failing tests by Wednesday." in context
    owners = {i["text"]: i["owner"] for i in h.assistant.twin_updater.rules.extractor.draft()["action_items"]}
    assert owners == {"fix the failing tests": "unassigned", "write the store listing": "Priya"}
    assert not h.assistant.heard.mentions("S3")  # the label is not evidence of a person


async def test_a_voice_named_later_by_an_event_owns_what_it_said_before():
    backend = ScriptedBackend(route(lambda r, i: Reply("-")))
    h = await harness(backend, Config(llm_debounce_s=0.0), twin_updates=False)
    h.final("I will fix the failing tests by Wednesday.", "S3", "")
    h.assistant.on_event(SpeakerNamed(speaker="S3", name="Tom", how="addressed", utterance=2))
    assert await h.assistant.drain(5.0)
    await h.assistant.close()
    owners = {i["text"]: i["owner"] for i in h.assistant.twin_updater.rules.extractor.draft()["action_items"]}
    assert owners == {"fix the failing tests": "Tom"}


async def test_a_voice_that_answers_when_someone_is_given_the_floor_speaks_under_that_name_in_the_prompt():
    # Measured (Qwen 1.5B, stand-up): "who is blocked and why?" answered "Tom is blocked ..." from the line
    # "S3: I am blocked, ..." that followed "Thanks, Tom. Mike, how about you?".
    backend = ScriptedBackend(route(lambda r, i: Reply("-")))
    h = await harness(backend, Config(llm_debounce_s=0.0), twin_updates=False)
    for text, speaker in [("Thanks, Tom. Mike, how about you?", "S1"),
                          ("I am blocked, because I have no access to the test server.", "S3"),
                          ("I will ask the admin team for access.", "S1")]:
        h.final(text, speaker)
    assert await h.assistant.drain(5.0)
    await h.assistant.close()
    context = h.assistant.window.context_text()
    assert "Mike: I am blocked, because I have no access to the test server." in context
    assert "S1: Thanks, Tom. Mike, how about you?" in context and "S1: I will ask" in context


async def test_a_name_the_rules_gave_a_voice_is_not_evidence_of_a_person():
    # Measured (offtopic, Whisper base): "Greg, please fix ..." heard as "Reng please fix ..."; the voice that
    # said yes was written "Reng:" and so heard as a name, and "Reng" was shown as an owner.  Said to someone
    # ("Reng, please ...") it would be a name; the rules' guess at a voice's name is not.
    backend = ScriptedBackend(route(lambda r, i: Reply("-")))
    h = await harness(backend, Config(llm_debounce_s=0.0), twin_updates=False)
    for text, speaker in [("Reng please fix the payment bug by tomorrow.", "S1"),
                          ("Sure, I will fix the payment bug by tomorrow morning.", "S2")]:
        h.final(text, speaker)
    assert await h.assistant.drain(5.0)
    await h.assistant.close()
    assert "Reng: Sure, I will fix the payment bug" in h.assistant.window.context_text()
    assert not h.assistant.heard.mentions("Reng")
    assert [i["owner"] for i in h.assistant.twin_updater.freshest()["action_items"]] == ["unassigned"]


async def test_a_revised_utterance_replaces_its_line_in_the_window_and_grounding_hears_it():
    bus, assistant = await without_model()
    bus.emit(TranscriptFinal(text="Ask Greg", start=1.0, end=1.5, utterance=1, speaker="S1", speaker_name="Tom"))
    bus.emit(TranscriptFinal(text="for the keys.", start=1.5, end=2.5, utterance=1, utterance_end=True,
                             speaker="S1", speaker_name="Tom"))
    bus.emit(TranscriptRevised(text="Ask Priya for the keys.", start=1.0, end=2.5, utterance=1,
                               replaces="Ask Greg for the keys.", speaker="S1", speaker_name="Tom"))
    await assistant.close()
    assert "[1.0s] Tom: Ask Priya for the keys.\n" in assistant.window.context_text()
    assert "Greg" not in assistant.window.context_text()
    assert assistant.heard.mentions("Priya")


async def test_the_rules_read_a_revised_utterance_anew():
    bus, assistant = await without_model()
    bus.emit(TranscriptFinal(text="So, can you fix the login bug?", start=1.0, end=2.5, utterance=1, utterance_end=True))
    bus.emit(TranscriptFinal(text="Yes, I will fix the login bug.", start=3.0, end=4.5, utterance=2, utterance_end=True))
    owners = lambda: [i["owner"] for i in assistant.twin_updater.freshest()["action_items"]]  # noqa: E731
    assert owners() == ["unassigned"]
    bus.emit(TranscriptRevised(text="Tom, can you fix the login bug?", start=1.0, end=2.5, utterance=1,
                               replaces="So, can you fix the login bug?"))
    assert owners() == ["Tom"]
    await assistant.close()


async def test_an_item_a_revision_takes_back_leaves_the_published_twin():
    # Measured (interview, Whisper base): the finals' "I will report Sim Python, and SQL." stayed Rachel's
    # task after its revision read "I built reports in Python and SQL.": the twin only ever added.
    bus, assistant = await without_model()
    twin = assistant.twin_updater
    tasks = lambda: [i["text"] for i in twin.twin.state["action_items"]]  # noqa: E731
    bus.emit(TranscriptFinal(text="I will report Sim Python, and SQL.", start=1.0, end=2.5, utterance=1,
                             utterance_end=True, speaker="S1", speaker_name="Rachel"))
    bus.emit(TranscriptFinal(text="I will send you the coding test tomorrow.", start=3.0, end=4.5, utterance=2,
                             utterance_end=True, speaker="S1", speaker_name="Rachel"))
    await twin.update(0.0, lambda: 5.0)
    assert tasks() == ["report Sim Python, and SQL", "send you the coding test"]
    bus.emit(TranscriptRevised(text="I built reports in Python and SQL.", start=1.0, end=2.5, utterance=1,
                               replaces="I will report Sim Python, and SQL.", speaker="S1", speaker_name="Rachel"))
    await twin.update(0.0, lambda: 6.0)
    assert tasks() == ["send you the coding test"]
    await assistant.close()


async def test_a_revision_that_puts_a_promise_in_the_speakers_mouth_leaves_the_twin_and_window_alone():
    # Measured (samples/meeting.wav, Whisper base + Qwen): "The design work cost more money than we planned."
    # revised to "Then I'll work cost more money than we planned." made Bob the owner of "work cost more money".
    bus, assistant = await without_model()
    first = "The design work cost more money than we planned."
    bus.emit(TranscriptFinal(text=first, start=1.0, end=3.0, utterance=1, utterance_end=True,
                             speaker="S2", speaker_name="Bob"))
    bus.emit(TranscriptRevised(text="Then I'll work cost more money than we planned.", start=1.0, end=3.0,
                               utterance=1, replaces=first, speaker="S2", speaker_name="Bob"))
    # A revision that only changes a promise's tense is still read.
    bus.emit(TranscriptFinal(text="Okay, I log a ticket with the vendor today.", start=4.0, end=6.0, utterance=2,
                             utterance_end=True, speaker="S2", speaker_name="Bob"))
    bus.emit(TranscriptRevised(text="Okay, I'll log a ticket with the vendor today.", start=4.0, end=6.0,
                               utterance=2, replaces="Okay, I log a ticket with the vendor today.",
                               speaker="S2", speaker_name="Bob"))
    await assistant.close()
    items = assistant.twin_updater.freshest()["action_items"]
    assert [(i["owner"], i["text"]) for i in items] == [("Bob", "log a ticket with the vendor")]
    assert f"Bob: {first}" in assistant.window.context_text()
    assert "I'll work cost" not in assistant.window.context_text()


async def test_without_a_model_what_did_i_promise_lists_the_askers_own_tasks():
    bus, assistant = await without_model(Config(llm="none", llm_debounce_s=0.0))
    events: list = []
    bus.subscribe(events.append)
    for number, (text, name) in enumerate([("I'll send the cost report by Friday.", "Bob"),
                                           ("I'll fix the search page by Wednesday.", "Carol"),
                                           ("Assistant, what did I promise to do?", "Carol")], 1):
        bus.emit(TranscriptFinal(text=text, start=2.0 * number, end=2.0 * number + 1.5, utterance=number,
                                 utterance_end=True, speaker=f"S{number % 2 + 1}", speaker_name=name))
    assert await assistant.drain(5.0)
    await assistant.close()
    answer = "".join(e.text for e in events if isinstance(e, AssistantDelta))
    assert answer == "Action items: Carol: fix the search page (due Wednesday)."


async def test_a_model_answer_that_gives_the_asker_someone_elses_task_gives_way_to_the_twins():
    # Measured (dev one_on_one, local Qwen 1.5B): "what did I promise to do?" from Grace was answered with the
    # task she had given Oluwaseun; the twin held hers.
    h = await harness(ScriptedBackend(route(lambda r, i: Reply("You promised to send the cost report by Friday."))),
                      Config(llm_debounce_s=0.0), twin_updates=False)
    h.final("Carol, can you send the cost report by Friday?", "S1", "Alice")
    h.final("I'll fix the search page by Wednesday.", "S2", "Alice")
    h.final("Assistant, what did I promise to do?", "S2", "Alice")
    await h.wait_for(lambda: any(e.generation == h.of(AssistantStarted)[-1].generation for e in h.of(AssistantDelta))
                     and h.of(AssistantStarted)[-1].question != "")
    await h.assistant.close()
    shown = "".join(e.text for e in h.of(AssistantDelta) if e.generation == h.of(AssistantStarted)[-1].generation)
    assert shown == "Action items: Alice: fix the search page (due Wednesday)."


async def test_a_question_heard_better_while_it_is_answered_is_asked_again():
    gate = asyncio.Event()  # the first answer is still on its way when the revision comes

    def answer(request: ChatRequest, index: int) -> Reply:
        if "time working on" in last_user_text(request):
            return Reply("Time is money.", gate=gate)
        return Reply("Tom works on the login page.")

    h = await harness(ScriptedBackend(route(answer)), twin_updates=False)
    h.final("Assistant, what is time working on?")
    await h.wait_for(lambda: len(h.answer_requests()) == 1)
    h.bus.emit(TranscriptRevised(text="Assistant, what is Tom working on?", start=0.0, end=1.0,
                                 utterance=h.utterance, replaces="Assistant, what is time working on?"))
    await h.wait_for(lambda: h.done(2) is not None)
    assert h.done(1).cancelled and h.done(1).reason == "question_revised"
    assert [e.question for e in h.of(AssistantStarted)] == ["Assistant, what is time working on?",
                                                            "Assistant, what is Tom working on?"]
    assert "what is Tom working on?" in h.answer_requests()[1].messages[-1]["content"].split("## Task")[-1]
    # Answered: a later reading of the question does not ask it a third time.
    h.bus.emit(TranscriptRevised(text="Assistant, what is Tim working on?", start=0.0, end=1.0, utterance=h.utterance))
    await asyncio.sleep(0.05)
    assert len(h.of(AssistantStarted)) == 2
    await h.assistant.close()


async def test_a_question_the_finals_missed_is_asked_when_the_revision_hears_it():
    backend = ScriptedBackend(route(lambda r, i: Reply("The quiz is on Monday.")))
    h = await harness(backend, twin_updates=False)
    questions = lambda: [e.question for e in h.of(AssistantStarted) if e.question]  # noqa: E731
    h.final("The quiz is on Monday.")
    h.final("Is this true, when is the quiz?")  # the finals missed "Assistant,": no question to us
    h.bus.emit(TranscriptRevised(text="Assistant, when is the quiz?", start=0.0, end=1.0, utterance=h.utterance,
                                 replaces="Is this true, when is the quiz?"))
    await h.wait_for(lambda: questions() == ["Assistant, when is the quiz?"])
    task = [r for r in h.answer_requests() if "when is the quiz?" in r.messages[-1]["content"].split("## Task")[-1]]
    assert task
    # An utterance the finals already heard as a question is not asked again by its revision.
    h.final("Assistant, who runs it?")
    await h.wait_for(lambda: len(questions()) == 2)
    h.bus.emit(TranscriptRevised(text="Assistant, who runs it?", start=0.0, end=1.0, utterance=h.utterance))
    await asyncio.sleep(0.05)
    assert questions() == ["Assistant, when is the quiz?", "Assistant, who runs it?"]
    await h.assistant.close()


async def test_a_voice_label_the_model_lists_as_a_person_never_reaches_a_viewer():
    labelled = {**GOOD_TWIN, "people": [{"name": "S1"}, {"name": "Carol"}, {"name": "S2"}]}  # measured: Qwen 1.5B
    backend = ScriptedBackend(route(lambda r, i: Reply("-"), twin=lambda r, i: Reply(json.dumps(labelled))))
    h = await harness(backend)
    h.bus.emit(TranscriptFinal(text="Carol, please fix the search page by Wenesday.", start=0.0, end=2.0,
                               utterance=1, utterance_end=True, speaker="S1"))
    h.bus.emit(TranscriptRevised(text="Carol, please fix the search page by Wednesday.", start=0.0, end=2.0,
                                 utterance=1, speaker="S1"))  # the revised line, too, is heard without "S1"
    h.final("Thanks.")
    await h.wait_for(lambda: h.of(TwinPatch))
    shown = jsonpatch.apply_patch(h.of(TwinState)[0].state, h.of(TwinPatch)[0].patch)
    assert shown["people"] == [{"name": "Carol"}]
    await h.assistant.close()


async def test_a_participants_name_is_a_name_even_when_nobody_says_it():
    # Measured (tests/test_rooms.py): Priya's "I will write ..." lost its owner once a name had to be heard
    # inside a sentence or be a common given name; the room knows her name from her publisher.
    listing = {**GOOD_TWIN, "people": [], "action_items": [
        {"id": "a1", "text": "write the text for the store listing", "owner": "Priya", "due": ""}]}
    backend = ScriptedBackend(route(lambda r, i: Reply("-"), twin=lambda r, i: Reply(json.dumps(listing))))
    h = await harness(backend)
    h.bus.emit(TranscriptFinal(text="I will write the text for the store listing.", start=0.0, end=2.0,
                               utterance=1, utterance_end=True, speaker="Priya", speaker_name="Priya"))
    h.final("Good.")
    await h.wait_for(lambda: h.of(TwinPatch))
    shown = jsonpatch.apply_patch(h.of(TwinState)[0].state, h.of(TwinPatch)[0].patch)
    assert [a["owner"] for a in shown["action_items"]] == ["Priya"]
    await h.assistant.close()


async def test_a_question_asked_of_the_assistant_is_not_listed_as_open_in_the_twin():
    listed = {**GOOD_TWIN, "open_questions": ["who is blocked and why", "whether we ship the app this month"]}
    backend = ScriptedBackend(route(lambda r, i: Reply("Nobody is blocked."), twin=lambda r, i: Reply(json.dumps(listed))))
    h = await harness(backend)
    h.final("Carol, please fix the search page by Wednesday. We do not know whether we ship the app this month.")
    h.final("Assistant, who is blocked and why?")  # measured: Qwen 1.5B listed this as open
    await h.wait_for(lambda: h.model_patches())
    shown = h.of(TwinState)[0].state
    for patch in h.of(TwinPatch):
        shown = jsonpatch.apply_patch(shown, patch.patch)
    assert shown["open_questions"] == ["whether we ship the app this month"]
    await h.assistant.close()


async def test_participants_given_up_front_are_people_and_own_their_tasks_from_the_first_word():
    """--participants "Xin,Oluwaseun": named once in passing, without a comma or a title, they are still people."""
    bus = EventBus("test")
    assistant = build_assistant(Config(llm="none", twin_without_llm=True, participants=["Xin", "Oluwaseun"]), None,
                                bus.emit, twin_every_utterances=1)
    bus.subscribe(assistant.on_event)
    await assistant.start()
    bus.emit(TranscriptFinal(text="Oluwaseun will check the scaffolding by Friday.", start=1.0, end=3.0,
                             utterance=1, utterance_end=True))
    assert await assistant.drain(5.0)
    await assistant.close()
    assert assistant.heard.mentions("Xin") and assistant.heard.mentions("Oluwaseun")
    items = assistant.twin.state["action_items"]
    assert [(a["owner"], a["text"], a["due"]) for a in items] == [("Oluwaseun", "check the scaffolding", "Friday")]
    assert "The participants are: Xin, Oluwaseun." in assistant.window.render("task").messages[0]["content"]


async def test_an_item_said_explicitly_reaches_viewers_with_its_utterance_not_after_the_models_update():
    """On a CPU a twin update takes tens of seconds: what the rules found is published at once (issue 34:
    meeting.wav's items reached viewers once, after the source had ended)."""
    backend = ScriptedBackend(route(lambda r, i: Reply("-"), twin=lambda r, i: Reply(UNCHANGED_TWIN, first_delay_s=30)))
    h = await harness(backend, Config(llm_debounce_s=0.0), twin_every_utterances=1)
    h.final("Ravi, please book the venue by Friday.")
    await h.wait_for(lambda: any(p.patch for p in h.of(TwinPatch)))
    items = [op["value"] for p in h.of(TwinPatch) for op in p.patch if op["path"].startswith("/action_items")]
    assert items and items[0]["owner"] == "Ravi" and items[0]["due"] == "Friday"
    assert h.of(TwinPatch)[-1].why["origins"] == ["rules"]
    patches = len(h.of(TwinPatch))
    h.final("The weather is nice today.")  # nothing new for the rules: no patch
    await asyncio.sleep(0.05)
    assert len(h.of(TwinPatch)) == patches
    await h.assistant.close()


async def test_what_the_assistant_emits_reaches_later_subscribers_in_seq_order():
    """The rules' patch is published after the final that found it has reached every subscriber: emitted
    from inside that final's delivery, it reached the fan-out and the API before the final (seq 42 before 41)."""
    bus = EventBus("test")
    assistant = build_assistant(Config(llm="none", twin_without_llm=True), None, bus.emit, twin_every_utterances=1)
    bus.subscribe(assistant.on_event)
    seen: list[Event] = []
    bus.subscribe(seen.append)  # as the session's fan-out and stream() subscribe: after the assistant
    await assistant.start()
    bus.emit(TranscriptFinal(text="Ravi, please book the venue by Friday.", start=0.0, end=2.0, utterance=1,
                             utterance_end=True))
    assert await assistant.drain(5.0)
    await assistant.close()
    assert any(isinstance(e, TwinPatch) for e in seen)
    assert [e.seq for e in seen] == sorted(e.seq for e in seen)


async def picked_between_two(h: Harness) -> None:
    """The rules catch "Big van, then." as a pick between the options weighed, which says little alone."""
    h.final("Right, the van. Do we hire the big van for the festival or take two cars?", "S1", "Mona")
    h.final("Two cars is a nightmare to park.", "S2", "Raj")
    h.final("Okay. Big van, then.", "S1", "Mona")
    assert await h.assistant.drain(5.0)


async def test_a_decision_that_leans_on_context_is_restated_by_the_model_in_words_that_were_said():
    def answer(request: ChatRequest, index: int) -> Reply:
        if 'A note of this meeting says the group decided: "Big van, then"' in last_user_text(request):
            return Reply("The group decided to hire the big van for the festival.")
        return Reply("-")

    backend = ScriptedBackend(route(answer))
    h = await harness(backend, twin_every_utterances=3)
    await picked_between_two(h)
    state = h.of(TwinState)[0].state
    for patch in h.of(TwinPatch):
        state = jsonpatch.apply_patch(state, patch.patch)
    assert state["decisions"] == ["Hire the big van for the festival"]
    assert h.of(TwinPatch)[-1].why["origins"] == ["restated"]
    assert h.of(TwinPatch)[-1].why["restated"] == [["Big van, then", "Hire the big van for the festival"]]
    h.final("Fine, big van.", "S2", "Raj")  # the rules read the pick again: still one decision, the restated one
    assert await h.assistant.drain(5.0)
    assert h.assistant.twin.state["decisions"] == ["Hire the big van for the festival"]
    await h.assistant.close()


async def test_a_restatement_that_brings_in_what_nobody_said_leaves_the_decision_as_the_rules_heard_it():
    def answer(request: ChatRequest, index: int) -> Reply:
        if "A note of this meeting says" in last_user_text(request):
            return Reply("The group decided to hire the minibus from the school.")
        return Reply("-")

    backend = ScriptedBackend(route(answer))
    h = await harness(backend, twin_every_utterances=3)
    await picked_between_two(h)
    assert h.assistant.twin.state["decisions"] == ["Big van, then"]
    assert sum("A note of this meeting says" in last_user_text(r) for r in backend.requests) == 1  # tried once
    await h.assistant.close()
