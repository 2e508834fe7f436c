"""``streamtwin mcp`` through the official SDK's own client: over stdio (the server a subprocess, as an agent
starts it), its live-session resources fed from a real redis-server, and streamable HTTP behind serve's door.
The model is a loopback server speaking Groq's wire format (tests/fakes/openai_server.py)."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import httpx2
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.subscriptions import ResourcesListChanged, ResourceUpdated

from streamtwin.events import SessionStarted, TranscriptFinal, encode
from streamtwin.mcp_server.http_gate import verdict
from tests.cli import assert_one_line_error, run_main
from tests.fakes.openai_server import FakeLLMServer, Reply
from tests.fakes.webhook_receiver import free_port
from tests.recorded_meetings import LAUNCH, ROOT, recordings  # noqa: F401  (the fixture)
from tests.redis_server import RedisServer, redis_server  # noqa: F401  (the fixture)

TIMEOUT_S = 60.0
SUBPROCESS = pytest.mark.network  # the MCP server runs as a process of its own, as an agent starts it


def stdio(*argv: str, llm_url: str = "") -> StdioServerParameters:
    env = {**os.environ, "GROQ_API_KEY": "fake", "GROQ_BASE_URL": llm_url} if llm_url else dict(os.environ)
    return StdioServerParameters(command=sys.executable, args=["-m", "streamtwin", "mcp", *argv], env=env,
                                 cwd=str(ROOT))


@SUBPROCESS
async def test_the_tools_over_stdio(recordings: Path) -> None:
    async with FakeLLMServer(Reply(f'It is [M5 00:09 Sam] "{LAUNCH}"')) as llm:
        async with Client(stdio(str(recordings), "--llm", "groq", llm_url=llm.url)) as client:
            tools = {tool.name for tool in (await client.list_tools()).tools}
            listed = await client.call_tool("list_sessions", {})
            transcript = await client.call_tool("get_transcript", {"session": "05_falcon_week03"})
            twin = await client.call_tool("get_twin", {"session": "05_falcon_week03"})
            asked = await client.call_tool("ask", {"question": "When is the Falcon launch?"})
            one = await client.call_tool("ask", {"question": "When?", "session": "05_falcon_week03"})
            empty = await client.call_tool("ask", {"question": "  "})
            unknown = await client.call_tool("get_twin", {"session": "no-such-meeting"})
            notes = await client.read_resource("streamtwin://sessions/05_falcon_week03")
    assert tools == {"list_sessions", "get_transcript", "get_twin", "ask"}
    sessions = listed.structured_content["sessions"]
    assert len(sessions) == 50 and sessions[4] == {"id": "05_falcon_week03", "kind": "recording", "state": "ended",
                                                    "started": sessions[4]["started"]}
    assert f"[00:09] Sam: {LAUNCH}" in transcript.content[0].text
    assert twin.structured_content["twin"]["decisions"] == ["To launch Falcon on the fourteenth of October"]
    answer = asked.structured_content
    assert answer["mode"] == "whole" and len(answer["meetings"]) == 50
    assert answer["sources"][0]["meeting"] == "05_falcon_week03" and answer["sources"][0]["speaker"] == "Sam"
    assert one.structured_content["meetings"] == ["05_falcon_week03"]
    assert "=== M1: 05_falcon_week03" in llm.requests[1].body["messages"][1]["content"]
    assert empty.is_error and "the question is empty" in empty.content[0].text
    assert unknown.is_error and "no meeting 'no-such-meeting'" in unknown.content[0].text
    assert notes.contents[0].text.startswith("# Meeting notes") and LAUNCH in notes.contents[0].text


def line(session: str, seq: int, event) -> bytes:  # type: ignore[no-untyped-def]
    event.session, event.seq, event.wall = session, seq, 1000.0 + seq
    return encode(event.to_dict())


@SUBPROCESS
async def test_a_live_session_is_a_resource_that_updates(redis_server: RedisServer) -> None:
    from streamtwin.eventlog.redis_store import RedisStore

    store = RedisStore(redis_server.url)
    session = "live-one"
    async with Client(stdio("--redis", redis_server.url, "--llm", "none")) as client:
        async with client.listen(resources_list_changed=True,
                                 resource_subscriptions=[f"streamtwin://sessions/{session}"]) as events:
            await store.register(session, "node-a", 1000.0)
            await store.append(session, 1, line(session, 1, SessionStarted(source="mic")))
            await store.append(session, 2, line(session, 2, TranscriptFinal(
                text="First words.", start=0.5, end=1.5, utterance=1, utterance_end=True)))
            seen = await asyncio.wait_for(_next(events, ResourcesListChanged), TIMEOUT_S)
            assert seen is not None
            listed = await client.list_resources()
            assert [r.uri for r in listed.resources] == [f"streamtwin://sessions/{session}"]
            before = await client.read_resource(f"streamtwin://sessions/{session}")
            await store.append(session, 3, line(session, 3, TranscriptFinal(
                text="Then the launch date.", start=2.0, end=3.5, utterance=2, utterance_end=True)))
            await asyncio.wait_for(_next(events, ResourceUpdated), TIMEOUT_S)
            after = await client.read_resource(f"streamtwin://sessions/{session}")
    await store.close()
    assert "First words." in before.contents[0].text and "Then the launch date." not in before.contents[0].text
    assert "Then the launch date." in after.contents[0].text


async def _next(events, kind):  # type: ignore[no-untyped-def]
    async for event in events:
        if isinstance(event, kind):
            return event
    return None


@pytest.mark.parametrize("host, authorization, query, refused", [
    ("127.0.0.1:8765", "Bearer s3cret", "", None),
    ("localhost:8765", "", "token=s3cret", None),
    ("127.0.0.1:8765", "", "", 401),
    ("127.0.0.1:8765", "Bearer wrong", "", 401),
    ("evil.example:8765", "Bearer s3cret", "", 403),
    (None, "Bearer s3cret", "", 403),
])
def test_the_http_door(host: str | None, authorization: str, query: str, refused: int | None) -> None:
    got = verdict(host, authorization, query, "s3cret", [])
    assert (got[0] if got else None) == refused
    assert verdict("mcp.example", "", "", "", ["mcp.example"]) is None  # no token set, an allowed name
    locked = verdict(host, authorization, query, "s3cret", [], locked_out=True)
    assert (locked[0] if locked else None) == (403 if refused == 403 else 429)  # the right token too


@asynccontextmanager
async def mcp_http(recordings: Path, token: str) -> AsyncIterator[int]:
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "streamtwin", "mcp", str(recordings), "--llm", "none", "--http", "--port", str(port),
         "--token", token], cwd=ROOT, stderr=subprocess.PIPE, text=True,
    )
    try:
        assert process.stderr is not None
        started = await asyncio.wait_for(asyncio.to_thread(process.stderr.readline), TIMEOUT_S)
        assert f"http://127.0.0.1:{port}/mcp" in started, started
        yield port
    finally:
        process.terminate()
        process.wait(10)


@SUBPROCESS
async def test_streamable_http_wants_the_token(recordings: Path) -> None:
    async with mcp_http(recordings, "s3cret") as port:
        url = f"http://127.0.0.1:{port}/mcp"
        async with httpx2.AsyncClient(headers={"Authorization": "Bearer s3cret"}) as http:
            async with Client(streamable_http_client(url, http_client=http)) as client:
                listed = await client.call_tool("list_sessions", {})
        async with httpx2.AsyncClient() as http:
            refused = await http.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "ping"})
    assert len(listed.structured_content["sessions"]) == 50
    assert refused.status_code == 401 and "token" in refused.text


@SUBPROCESS
async def test_guessing_the_token_locks_the_address_out(recordings: Path) -> None:
    """serve's lockout (tests/test_lockout.py) in front of MCP too: ten wrong or missing tokens in a minute from
    one address, and its requests are refused without their token being looked at, even the right one."""
    async with mcp_http(recordings, "s3cret") as port:
        url = f"http://127.0.0.1:{port}/mcp"
        ping = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
        async with httpx2.AsyncClient() as http:
            guesses = [(await http.post(url, json=ping, headers={"Authorization": f"Bearer guess{n}"})).status_code
                       for n in range(9)]
            guesses.append((await http.post(url, json=ping)).status_code)  # no token at all counts too
            locked = await http.post(url, json=ping, headers={"Authorization": "Bearer s3cret"})
    assert guesses == [401] * 10
    assert locked.status_code == 429 and locked.headers["retry-after"] == "60" and "too many" in locked.text


def test_bad_input_is_one_line(capfd: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    not_one = tmp_path / "x.jsonl"
    not_one.write_text(json.dumps({"hello": 1}) + "\n")
    assert_one_line_error(run_main(capfd, "mcp", "--llm", "none"), "nothing to serve")
    assert_one_line_error(run_main(capfd, "mcp", str(not_one), "--llm", "none"), "not a recording")
    assert_one_line_error(run_main(capfd, "mcp", "--redis", "redis://127.0.0.1:1/0", "--llm", "none"), "127.0.0.1:1")
    unsafe = run_main(capfd, "mcp", str(not_one), "--http", "--host", "0.0.0.0", "--llm", "none")
    assert unsafe.returncode == 2 and "without an access token" in unsafe.stderr


async def test_in_process_over_the_memory_store_and_a_store_that_is_down() -> None:
    """The event log of one process (serve without --redis embeds the same store), and a Redis nobody answers:
    the tools say so, the connection stays."""
    from streamtwin.eventlog.memory_store import MemoryStore
    from streamtwin.eventlog.redis_store import RedisStore
    from streamtwin.mcp_server.tools import build_mcp
    from streamtwin.meetings.catalog import Catalog

    store = MemoryStore()
    await store.register("s1", "node-a", 1000.0)
    await store.append("s1", 1, line("s1", 1, SessionStarted(source="mic")))
    await store.append("s1", 2, line("s1", 2, TranscriptFinal(text=LAUNCH, start=1.0, end=3.0, utterance=1,
                                                               utterance_end=True, speaker_name="Sam")))
    await store.end("s1")
    async with Client(build_mcp(Catalog([], store), None)) as client:
        listed = await client.call_tool("list_sessions", {})
        transcript = await client.call_tool("get_transcript", {"session": "s1"})
        no_model = await client.call_tool("ask", {"question": "When?", "session": "s1"})
    assert listed.structured_content["sessions"] == [
        {"id": "s1", "kind": "session", "state": "ended", "started": 1000.0}]
    assert transcript.content[0].text == f"[00:01] Sam: {LAUNCH}"
    assert no_model.is_error and "no language model" in no_model.content[0].text

    down = RedisStore(f"redis://127.0.0.1:{free_port()}/0")
    async with Client(build_mcp(Catalog([], down), None)) as client:
        listed = await client.call_tool("list_sessions", {})
        twin = await client.call_tool("get_twin", {"session": "s1"})
    await down.close()
    assert listed.is_error and "unreachable" in listed.content[0].text
    assert twin.is_error and "unreachable" in twin.content[0].text
