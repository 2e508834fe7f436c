"""A task that points back ("I'll ring them first thing.") restated by the model through a live assistant: the
twin shows what "them" stood for, and the task stays with whoever took it on."""

from __future__ import annotations

from streamtwin.llm.backend import ChatRequest
from tests.fakes.scripted_backend import Reply, ScriptedBackend, last_user_text
from tests.test_assistant import harness, route

ASKED = 'someone is to do this: "ring them first thing"'


async def test_a_task_that_points_back_is_restated_and_keeps_its_owner():
    def answer(request: ChatRequest, index: int) -> Reply:
        if ASKED in last_user_text(request):
            return Reply("Raj will ring the council about the parking suspension.")
        return Reply("-")

    backend = ScriptedBackend(route(answer))
    h = await harness(backend, twin_every_utterances=4)
    h.final("The council has to hear about the parking suspension.", "S1", "Ana")
    h.final("Typical, the week we move.", "S2", "Bo")
    h.final("Somebody should tell them today.", "S1", "Ana")
    h.final("I'll ring them first thing.", "S3", "Raj")
    assert await h.assistant.drain(5.0)
    items = h.assistant.twin.state["action_items"]
    assert [(a["text"], a["owner"]) for a in items] == [("ring the council about the parking suspension", "Raj")]
    assert sum(ASKED in last_user_text(r) for r in backend.requests) == 1  # tried once
    await h.assistant.close()


async def test_a_restatement_that_makes_the_doer_the_one_done_to_leaves_the_task_as_said():
    def answer(request: ChatRequest, index: int) -> Reply:
        if ASKED in last_user_text(request):
            return Reply("Ring Raj about the parking suspension.")
        return Reply("-")

    h = await harness(ScriptedBackend(route(answer)), twin_every_utterances=4)
    h.final("The council has to hear about the parking suspension.", "S1", "Ana")
    h.final("Typical, the week we move.", "S2", "Bo")
    h.final("Somebody should tell them today.", "S1", "Ana")
    h.final("I'll ring them first thing.", "S3", "Raj")
    assert await h.assistant.drain(5.0)
    assert [(a["text"], a["owner"]) for a in h.assistant.twin.state["action_items"]] == [("ring them first thing", "Raj")]
    await h.assistant.close()
