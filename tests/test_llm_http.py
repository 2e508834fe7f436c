"""What both HTTP backends must do alike, each against the loopback fake in its own dialect.

Every test here runs twice through the ``http`` fixture: once for Groq (the real ``groq``
SDK on ``/openai/v1/chat/completions``, usage in ``x_groq``) and once for the plain
OpenAI-compatible client (``/v1/chat/completions``, usage in a ``stream_options`` chunk).
What only one of them does lives in test_llm_groq.py and test_llm_openai.py.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import json
import socket
from dataclasses import dataclass, field
from typing import Any

import pytest

from streamtwin.config import DEFAULT_GROQ_MODEL
from streamtwin.llm.backend import Backend, ChatRequest, Delta, LLMError
from streamtwin.llm.groq_backend import GroqBackend
from streamtwin.llm.openai_backend import OpenAIBackend
from tests.fakes import MESSAGES, abandon_after_first_delta, collect, expect_llm_error
from tests.fakes.openai_server import (
    FAILURE_CASES,
    GROQ_PATH,
    OPENAI_PATH,
    FakeLLMServer,
    Reply,
    prompt_words,
    split_words,
)

# backend name: (path its requests reach on the fake, API key it is given, model it sends)
SETTINGS = {
    "groq": (GROQ_PATH, "gsk-test", DEFAULT_GROQ_MODEL),  # Groq's model is its default
    "openai": (OPENAI_PATH, "sk-test", "fake-model"),
}


@dataclass
class HTTPBackend:
    """One HTTP backend as the shared tests drive it: a client on its own fake server."""

    name: str
    path: str
    api_key: str
    model: str
    server: FakeLLMServer
    backend: Backend = field(init=False)

    def make(self, base_url: str, **options: Any) -> Backend:
        """A new client for a bare ``http://host:port``, configured the way its users do."""
        if self.name == "groq":
            return GroqBackend(self.api_key, base_url=base_url, **options)
        return OpenAIBackend(base_url + "/v1", self.model, api_key=self.api_key, **options)


@pytest.fixture(params=sorted(SETTINGS))
async def http(request):
    async with FakeLLMServer() as server:
        adapter = HTTPBackend(request.param, *SETTINGS[request.param], server=server)
        adapter.backend = adapter.make(server.url, timeout_s=2.0)
        yield adapter
        await adapter.backend.aclose()


def closed_port_url() -> str:
    """A loopback URL nothing listens on."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}"


async def test_streams_deltas_and_usage(http):
    text = "The launch is on Friday, says Alice."
    http.server.script(Reply(text))
    request = ChatRequest(MESSAGES, max_tokens=64, temperature=0.3, stop=["\n\n"])

    deltas, finished = await collect(http.backend.stream(request))

    assert "".join(deltas) == text
    assert len(deltas) == len(split_words(text))
    assert finished.finish_reason == "stop"
    assert finished.completion_tokens == len(deltas)
    assert finished.prompt_tokens == prompt_words({"messages": MESSAGES})
    assert finished.ttft_s is not None and 0 <= finished.ttft_s <= finished.total_s


@pytest.mark.parametrize("stop", [[], ["END"]], ids=["no_stop", "stop"])
async def test_request_carries_prompt_and_options(http, stop):
    schema = {"type": "json_schema", "json_schema": {"name": "t", "schema": {"type": "object"}}}
    request = ChatRequest(MESSAGES, max_tokens=12, response_format=schema, stop=stop)
    await collect(http.backend.stream(request))

    (recorded,) = http.server.requests
    assert recorded.path == http.path
    assert recorded.headers["authorization"] == f"Bearer {http.api_key}"
    assert recorded.body["model"] == http.model
    assert recorded.body["messages"] == MESSAGES
    assert recorded.body["max_tokens"] == 12
    assert recorded.body["stream"] is True
    assert recorded.body["response_format"] == schema
    if stop:
        assert recorded.body["stop"] == stop
    else:
        assert "stop" not in recorded.body


@pytest.mark.parametrize("case", sorted(FAILURE_CASES))
async def test_failures_map_to_codes(http, case):
    reply, code = FAILURE_CASES[case]
    http.server.script(reply)
    seen: list[str] = []
    with pytest.raises(LLMError) as caught:
        async for item in http.backend.stream(ChatRequest(MESSAGES)):
            if isinstance(item, Delta):
                seen.append(item.text)
    assert caught.value.code == code
    if code == "rate_limited":
        assert caught.value.retry_after == 7.0
    if case == "error_mid_stream":
        assert "scripted failure" in caught.value.message
        assert seen, "deltas before the error still reach the caller"
    # No retries by default (none by Groq's SDK either): the driver decides when to try again.
    assert len(http.server.requests) == 1


async def test_stalled_stream_times_out(http):
    http.server.script(Reply(stall=True))
    error = await expect_llm_error(http.make(http.server.url, timeout_s=0.3), ChatRequest(MESSAGES))
    assert error.code == "timeout"


async def test_unreachable_server(http):
    error = await expect_llm_error(http.make(closed_port_url()), ChatRequest(MESSAGES))
    assert error.code == "unreachable"


@pytest.mark.parametrize("how", ["cancel", "close"])
async def test_abandoning_the_stream_closes_it(http, request, how):
    http.server.script(Reply("tick ", endless=True, drip_s=0.01))
    gc.disable()  # the backend must close the stream itself, not leave it to the garbage collector
    request.addfinalizer(gc.enable)
    await abandon_after_first_delta(http.backend.stream(ChatRequest(MESSAGES)), how)
    await asyncio.wait_for(http.server.wait_aborted(1), 10)
    assert http.server.aborted_streams == 1


async def test_json_reply_for_structured_requests(http):
    fake = FakeLLMServer(reply=Reply("plain"), json_reply=Reply('{"ok": true}'))
    async with fake, contextlib.aclosing(http.make(fake.url)) as client:
        plain, _ = await collect(client.stream(ChatRequest(MESSAGES)))
        structured, _ = await collect(
            client.stream(ChatRequest(MESSAGES, response_format={"type": "json_object"}))
        )
    assert "".join(plain) == "plain"
    assert json.loads("".join(structured)) == {"ok": True}
