"""Typed questions in a live session (issue 36): ``{"type": "ask", "text": ...}`` from a viewer or a publisher,
answered like a spoken question and seen by every viewer; the real Groq SDK against a loopback server that
speaks its wire format.  Refusals go to the asker alone and never drop the socket."""

from __future__ import annotations

import pytest

from streamtwin.api import PushSession
from streamtwin.assistant.typed import MAX_QUESTION_CHARS, AskRefused
from streamtwin.events import AssistantDelta, AssistantDone, AssistantStarted
from streamtwin.llm.groq_backend import GroqBackend
from streamtwin.service.server import make_session_factory
from tests.fakes.openai_server import FakeLLMServer, Reply
from tests.live import hello, open_ws, recv_json, recv_until, send_json, view


async def answer_of(ws) -> tuple[dict, dict, dict]:
    started, _ = await recv_until(ws, "assistant.started")
    delta, _ = await recv_until(ws, "assistant.delta")
    done, _ = await recv_until(ws, "assistant.done")
    assert delta["generation"] == done["generation"] == started["generation"]
    return started, delta, done


async def test_a_viewer_and_a_participant_ask_and_everyone_sees_the_answer(make_server):
    async with FakeLLMServer(reply=Reply("Nothing has been said yet.")) as llm:
        server = await make_server(session_factory=make_session_factory(GroqBackend("gsk-test", base_url=llm.url)))
        publisher = await open_ws(server)
        welcome = await hello(publisher, "publisher", options={"name": "Ann"})
        viewer, other = await open_ws(server), await open_ws(server)
        for ws in (viewer, other):
            assert (await view(ws, welcome))["type"] == "welcome"

        await send_json(viewer, {"type": "ask", "text": "  What was decided\nso far? "})
        for ws in (viewer, other, publisher):  # every viewer sees it, the asker too
            started, delta, done = await answer_of(ws)
            assert (started["trigger"], started["question"], started["asker"]) == (
                "question", "What was decided so far?", "viewer")
            assert delta["text"].strip() and not done["cancelled"]
        prompt = llm.requests[0].body["messages"][-1]["content"]
        assert "What was decided so far?" in prompt  # the question is the prompt's task

        await send_json(publisher, {"type": "ask", "text": "Who is here?"})
        started, _, _ = await answer_of(other)
        assert (started["question"], started["asker"]) == ("Who is here?", "Ann")


async def test_bad_questions_get_an_error_and_the_connection_goes_on(make_server):
    async with FakeLLMServer(reply=Reply("An answer.", delay_s=1.0)) as llm:
        server = await make_server(session_factory=make_session_factory(GroqBackend("gsk-test", base_url=llm.url)))
        stranger = await open_ws(server)
        await send_json(stranger, {"type": "ask", "text": "Who owns it?"})
        refused = await recv_json(stranger)
        assert (refused["code"], refused["fatal"]) == ("hello_required", False)

        welcome = await hello(await open_ws(server), "publisher")
        viewer = await open_ws(server)
        assert (await view(viewer, welcome))["type"] == "welcome"
        for bad in ("", "   ", 42, None, "x" * (MAX_QUESTION_CHARS + 1)):
            await send_json(viewer, {"type": "ask", "text": bad})
            error, _ = await recv_until(viewer, "error")
            assert (error["code"], error["fatal"]) == ("bad_question", False), bad
        await send_json(viewer, {"type": "ask", "text": "Who owns it?"})
        await send_json(viewer, {"type": "ask", "text": "And when?"})  # while the first is answered
        error, before = await recv_until(viewer, "error")
        assert error["code"] == "ask_in_flight" and not error["fatal"]
        started, _, done = await answer_of(viewer)
        assert started["question"] == "Who owns it?" and not done["cancelled"]
        assert [r.body["messages"][-1]["content"].count("And when?") for r in llm.requests] == [0] * len(llm.requests)

        # A session without a model answers nothing: a clear error, the socket stays.
        quiet = await make_server()
        welcome = await hello(await open_ws(quiet), "publisher")
        viewer = await open_ws(quiet)
        assert (await view(viewer, welcome))["type"] == "welcome"
        await send_json(viewer, {"type": "ask", "text": "Who owns it?"})
        error, _ = await recv_until(viewer, "error")
        assert error["code"] == "no_assistant" and not error["fatal"]
        await send_json(viewer, {"type": "ask", "text": "Still there?"})
        assert (await recv_until(viewer, "error"))[0]["code"] == "no_assistant"


async def test_the_python_api_asks_and_returns_the_answers_events(monkeypatch):
    async with FakeLLMServer(reply=Reply("Nobody has spoken yet.")) as llm:
        monkeypatch.setenv("GROQ_API_KEY", "gsk-test")
        monkeypatch.setenv("GROQ_BASE_URL", llm.url)
        async with PushSession(llm="groq", vision=False) as session:
            answer = await session.ask("What is this meeting about?")
            assert [type(e) for e in answer] == [AssistantStarted, AssistantDelta, AssistantDone]
            assert answer[0].asker == "viewer" and answer[0].question == "What is this meeting about?"
            with pytest.raises(AskRefused) as refused:
                await session.ask(" ")
            assert refused.value.code == "bad_question"
    async with PushSession(llm="none", vision=False) as session:
        with pytest.raises(AskRefused) as refused:
            await session.ask("Anyone?")
        assert refused.value.code == "no_assistant"


async def test_the_stream_command_asks_each_line_on_stdin(make_server, loopback_ice, capsys, monkeypatch, tmp_path):
    """`streamtwin stream SOURCE --to URL --ask`: each line of standard input (here a pipe) is typed to the
    assistant once media flows, the next after the previous one's answer; the answers print like any event."""
    import os
    import wave
    from dataclasses import replace

    from streamtwin.cli.stream import stream
    from streamtwin.events import from_json

    clip = tmp_path / "first_turns.wav"
    with wave.open("samples/meeting.wav") as source, wave.open(str(clip), "wb") as out:
        out.setparams(source.getparams())
        out.writeframes(source.readframes(4 * source.getframerate()))
    read_end, write_end = os.pipe()
    os.write(write_end, b"What is this meeting about?\n\n   \nWho spoke first?\n")
    os.close(write_end)
    monkeypatch.setattr("sys.stdin", os.fdopen(read_end, "r"))
    async with FakeLLMServer(reply=Reply("The weekly planning.")) as llm:
        server = await make_server(session_factory=make_session_factory(GroqBackend("gsk-test", base_url=llm.url)),
                                   vision=False)
        config = replace(server.config, format="jsonl")
        assert await stream(config, str(clip), f"ws://127.0.0.1:{server.port}", ask=True) == 0
    printed = [from_json(line) for line in capsys.readouterr().out.splitlines()]
    asked = [(e.question, e.asker) for e in printed if e.type == "assistant.started" and e.trigger == "question"]
    assert asked[:2] == [("What is this meeting about?", "publisher"), ("Who spoke first?", "publisher")]
    done = {e.generation for e in printed if e.type == "assistant.done" and not e.cancelled}
    assert {e.generation for e in printed if e.type == "assistant.started" and e.trigger == "question"} <= done
    assert printed[-1].type == "session.ended"
    assert await stream(config, "-", f"ws://127.0.0.1:{server.port}", ask=True) == 1
    assert "cannot be -" in capsys.readouterr().err
