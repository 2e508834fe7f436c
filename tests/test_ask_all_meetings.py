"""serve's "Ask all meetings" (issue 36): a question over every session of the event log in a real redis-server,
over the /ws conversation, answered by a loopback model speaking Groq's wire format (the real Groq SDK), streamed
to the asker alone with its quotes checked and sourced; the access token, the lockout and the typed-question
limits as for the rest of serve; every refusal an ``error`` on a connection that stays.
"""

from __future__ import annotations

from pathlib import Path

import httpx

from streamtwin.assistant.typed import ASKS_PER_MINUTE, MAX_QUESTION_CHARS
from streamtwin.llm.groq_backend import GroqBackend
from tests.fakes.openai_server import FakeLLMServer, Reply
from tests.live import hello, open_ws, recv_json, recv_until, send_json
from tests.recorded_meetings import LAUNCH, record_sessions, recordings  # noqa: F401  (the fixture)
from tests.redis_server import RedisServer, redis_server  # noqa: F401  (the fixture)

TOKEN = "s3cret"


async def record(redis_url: str, recordings: Path) -> list[str]:
    """Three weeks of the project as sessions of the event log, the last one still live."""
    return await record_sessions(redis_url, sorted(recordings.glob("*.jsonl"))[0:5:2])


async def end(publisher) -> None:  # type: ignore[no-untyped-def]
    await send_json(publisher, {"type": "end"})
    await recv_until(publisher, "session.ended")
    await publisher.close()


async def meetings_ws(server, token: str = TOKEN):  # type: ignore[no-untyped-def]
    ws = await open_ws(server)
    welcome = await hello(ws, "meetings", token=token)
    assert welcome == {"type": "welcome", "role": "meetings", "max_question_chars": MAX_QUESTION_CHARS}, welcome
    return ws


async def test_a_question_over_every_session_streams_to_the_asker_with_checked_quotes(
    make_server, redis_server: RedisServer, recordings: Path,
) -> None:
    sessions = await record(redis_server.url, recordings)
    reply = f'It was set in week three: [M3 00:09 Sam] "{LAUNCH}" and [M1] "we cancel the whole launch today"'
    async with FakeLLMServer(Reply(reply)) as llm:
        backend = GroqBackend("gsk-test", base_url=llm.url)
        server = await make_server(redis=redis_server.url, token=TOKEN, backend=backend)
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{server.port}", trust_env=False) as http:
            offered = await http.get("/meetings")
        asker, other = await meetings_ws(server), await meetings_ws(server)
        await send_json(asker, {"type": "ask", "text": "  When is the\nFalcon launch? "})
        started, before = await recv_until(asker, "meetings.started")
        done, deltas = await recv_until(asker, "meetings.done")
        # The other connection hears nothing of it: the first thing it gets is the start of its own question.
        await send_json(other, {"type": "ask", "text": "Who owns Acme?"})
        own = await recv_json(other)
        await recv_until(other, "meetings.done")
        for ws in (asker, other):
            await ws.close()
    assert offered.status_code == 200 and offered.json() == {"ask": True, "max_question_chars": MAX_QUESTION_CHARS}
    assert before == [] and started == {"type": "meetings.started", "id": started["id"],
                                        "question": "When is the Falcon launch?", "meetings": 3}
    assert deltas and all(d["type"] == "meetings.delta" and d["id"] == started["id"] for d in deltas)
    assert "".join(d["text"] for d in deltas) == reply  # the draft as the model wrote it
    assert done["id"] == started["id"] and done["meetings"] == sessions and done["mode"] == "whole"
    assert done["answer"] == f'It was set in week three: "{LAUNCH.rstrip(".")}" [1] and'
    assert [(s["meeting"], s["start"], s["speaker"]) for s in done["sources"]] == [(sessions[2], 9.42, "Sam")]
    assert done["rejected_quotes"] == ["we cancel the whole launch today"]
    assert own["type"] == "meetings.started" and own["question"] == "Who owns Acme?"
    prompt = llm.requests[0].body["messages"][1]["content"]
    assert all(f"=== M{n}: {session}" in prompt for n, session in enumerate(sessions, start=1))


async def test_a_session_opened_a_moment_ago_is_left_out_not_an_error(
    make_server, redis_server: RedisServer, recordings: Path,
) -> None:
    """A session is in the directory before its first events are written: asked in between, the question is
    answered over the others (it was ``store_unavailable`` for every meeting)."""
    from streamtwin.eventlog.redis_store import RedisStore

    sessions = await record(redis_server.url, recordings)
    store = RedisStore(redis_server.url)
    await store.register("opening", "node-b", 2000.0)
    await store.close()
    async with FakeLLMServer(Reply("Nothing was said about that.")) as llm:
        backend = GroqBackend("gsk-test", base_url=llm.url)
        ws = await meetings_ws(await make_server(redis=redis_server.url, token=TOKEN, backend=backend))
        await send_json(ws, {"type": "ask", "text": "When is the Falcon launch?"})
        started = await recv_json(ws)
        assert (started["type"], started.get("meetings")) == ("meetings.started", 3), started
        done, _ = await recv_until(ws, "meetings.done")
        await ws.close()
    assert done["meetings"] == sessions


async def test_refusals_are_errors_on_a_connection_that_stays(
    make_server, redis_server: RedisServer, recordings: Path,
) -> None:
    await record(redis_server.url, recordings)
    async with FakeLLMServer(Reply("Nothing was said about that.", delay_s=0.5)) as llm:
        backend = GroqBackend("gsk-test", base_url=llm.url)
        server = await make_server(redis=redis_server.url, token=TOKEN, backend=backend)
        ws = await meetings_ws(server)
        refusals = []
        for bad in ("   ", "x" * (MAX_QUESTION_CHARS + 1), 42):
            await send_json(ws, {"type": "ask", "text": bad})
            refusals.append(await recv_json(ws))
        await send_json(ws, {"type": "end"})
        refusals.append(await recv_json(ws))
        await send_json(ws, {"type": "ask", "text": "First?"})
        await send_json(ws, {"type": "ask", "text": "Second, before the first is answered?"})
        in_flight, _ = await recv_until(ws, "error")
        await recv_until(ws, "meetings.done")
        for number in range(ASKS_PER_MINUTE - 1):  # the rate: six a minute, the first one counted
            await send_json(ws, {"type": "ask", "text": f"Question {number}?"})
            await recv_until(ws, "meetings.done")
        await send_json(ws, {"type": "ask", "text": "One too many?"})
        too_many = await recv_json(ws)
        await send_json(ws, {"type": "hello", "role": "meetings", "token": TOKEN})
        again = await recv_json(ws)
        await ws.close()
    assert [(r["code"], r["fatal"]) for r in refusals] == [("bad_question", False)] * 3 + [("meetings_only", False)]
    assert "empty" in refusals[0]["message"] and f"at most {MAX_QUESTION_CHARS}" in refusals[1]["message"]
    assert (in_flight["code"], in_flight["fatal"]) == ("ask_in_flight", False)
    assert (too_many["code"], too_many["fatal"]) == ("too_many_questions", False)
    assert (again["code"], again["fatal"]) == ("already_joined", False)
    assert len(llm.requests) == ASKS_PER_MINUTE


async def test_the_access_token_and_its_lockout_guard_it(make_server, redis_server: RedisServer) -> None:
    async with FakeLLMServer(Reply("x")) as llm:
        backend = GroqBackend("gsk-test", base_url=llm.url)
        server = await make_server(redis=redis_server.url, token=TOKEN, backend=backend, max_sessions=2)
        live = server.open_session("test")  # a session's viewer token opens one session, never all meetings
        tries = []
        for token in ["", live.viewer_token, *[f"guess{n}" for n in range(8)]]:
            ws = await open_ws(server)
            tries.append(await hello(ws, "meetings", token=token))
        locked = await hello(await open_ws(server), "meetings", token=TOKEN)
    assert [(t["code"], t["fatal"]) for t in tries] == [("unauthorized", True)] * 10
    assert (locked["code"], locked["fatal"]) == ("rate_limited", True)


async def test_without_an_event_store_or_a_model_there_is_nothing_to_ask(make_server, redis_server) -> None:
    async with FakeLLMServer(Reply("x")) as llm:
        in_memory = await make_server(token=TOKEN, backend=GroqBackend("gsk-test", base_url=llm.url))
        no_model = await make_server(redis=redis_server.url, token=TOKEN)
        for server in (in_memory, no_model):
            async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{server.port}", trust_env=False) as http:
                offered = await http.get("/meetings")
            assert offered.status_code == 404 and "--redis" in offered.text
            for _ in range(12):  # refused before the token is looked at: nothing counts towards the lockout
                refused = await hello(await open_ws(server), "meetings", token="wrong")
                assert (refused["code"], refused["fatal"]) == ("no_meetings", True)
        publisher = await open_ws(in_memory)
        assert (await hello(publisher, "publisher", token=TOKEN))["type"] == "welcome"
        await end(publisher)
