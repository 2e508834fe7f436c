"""The Groq backend (real ``groq`` SDK) against the loopback fake speaking Groq's wire format."""

from __future__ import annotations

import asyncio
import gc
import socket

import pytest

from pipeline.config import DEFAULT_GROQ_MODEL
from pipeline.llm.base import ChatRequest, LLMError
from pipeline.llm.groq_backend import GroqBackend, normalize_groq_base_url
from tests.fakes import abandon_after_first_delta, collect
from tests.fakes.openai_server import FAILURE_CASES, FakeLLMServer, Reply, prompt_words, split_words

MESSAGES = [
    {"role": "system", "content": "You follow a live meeting."},
    {"role": "user", "content": "Bob: budget approved, two more hires."},
]


@pytest.fixture
async def server():
    async with FakeLLMServer() as fake:
        yield fake


@pytest.fixture
async def backend(server):
    client = GroqBackend("gsk-test", base_url=server.url, timeout_s=2.0)
    yield client
    await client.aclose()


async def test_streams_deltas_and_x_groq_usage(server, backend):
    text = "Budget approved; two hires planned."
    server.script(Reply(text))

    deltas, finished = await collect(backend.stream(ChatRequest(MESSAGES, max_tokens=40)))

    assert "".join(deltas) == text
    assert finished.completion_tokens == len(split_words(text))
    assert finished.prompt_tokens == prompt_words({"messages": MESSAGES})
    assert finished.finish_reason == "stop"
    assert finished.ttft_s is not None and 0 <= finished.ttft_s <= finished.total_s


async def test_request_reaches_groq_path_with_prompt(server, backend):
    schema = {"type": "json_schema", "json_schema": {"name": "twin", "schema": {"type": "object"}}}
    await collect(backend.stream(ChatRequest(MESSAGES, max_tokens=9, response_format=schema)))

    (recorded,) = server.requests
    assert recorded.path == "/openai/v1/chat/completions"
    assert recorded.headers["authorization"] == "Bearer gsk-test"
    assert recorded.body["model"] == DEFAULT_GROQ_MODEL
    assert recorded.body["messages"] == MESSAGES
    assert recorded.body["max_tokens"] == 9
    assert recorded.body["stream"] is True
    assert recorded.body["response_format"] == schema
    assert "stop" not in recorded.body


@pytest.mark.parametrize("case", sorted(FAILURE_CASES))
async def test_failures_map_to_codes(server, backend, case):
    reply, code = FAILURE_CASES[case]
    server.script(reply)
    with pytest.raises(LLMError) as caught:
        await collect(backend.stream(ChatRequest(MESSAGES)))
    assert caught.value.code == code
    if code == "rate_limited":
        assert caught.value.retry_after == 7.0
    # No SDK retries by default: the driver decides when to try again.
    assert len(server.requests) == 1


async def test_rate_limit_surfaces_even_with_sdk_retries_left(server):
    server.script(
        Reply(status=429, headers={"retry-after": "0.2"}), Reply(status=429, headers={"retry-after": "0.2"})
    )
    client = GroqBackend("k", base_url=server.url, max_retries=1)
    try:
        with pytest.raises(LLMError) as caught:
            await collect(client.stream(ChatRequest(MESSAGES)))
    finally:
        await client.aclose()
    assert caught.value.code == "rate_limited"
    assert caught.value.retry_after == 0.2
    assert len(server.requests) == 2


async def test_stalled_stream_times_out(server):
    server.script(Reply(stall=True))
    client = GroqBackend("k", base_url=server.url, timeout_s=0.3)
    try:
        with pytest.raises(LLMError) as caught:
            await collect(client.stream(ChatRequest(MESSAGES)))
    finally:
        await client.aclose()
    assert caught.value.code == "timeout"


async def test_unreachable_server():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    client = GroqBackend("k", base_url=f"http://127.0.0.1:{port}")
    try:
        with pytest.raises(LLMError) as caught:
            await collect(client.stream(ChatRequest(MESSAGES)))
    finally:
        await client.aclose()
    assert caught.value.code == "unreachable"


@pytest.mark.parametrize("how", ["cancel", "close"])
async def test_abandoning_the_stream_closes_it(server, backend, request, how):
    server.script(Reply("tick ", endless=True, drip_s=0.01))
    gc.disable()  # the backend must close the stream itself, not leave it to the garbage collector
    request.addfinalizer(gc.enable)
    await abandon_after_first_delta(backend.stream(ChatRequest(MESSAGES)), how)
    await asyncio.wait_for(server.wait_aborted(1), 10)
    assert server.aborted_streams == 1


def test_missing_key_is_an_auth_error():
    with pytest.raises(LLMError) as caught:
        GroqBackend("")
    assert caught.value.code == "auth"
    assert "GROQ_API_KEY" in caught.value.message


@pytest.mark.parametrize(
    "model, images",
    [
        ("meta-llama/llama-4-scout-17b-16e-instruct", True),
        ("meta-llama/llama-4-maverick-17b-128e-instruct", True),
        ("llama-3.2-90b-vision-preview", True),
        (DEFAULT_GROQ_MODEL, False),
    ],
)
def test_image_support_follows_model(model, images):
    assert GroqBackend("k", model).supports_images is images


@pytest.mark.parametrize(
    "given, expected",
    [
        (None, None),
        ("", None),
        ("http://127.0.0.1:9", "http://127.0.0.1:9"),
        ("https://api.groq.com/openai/v1", "https://api.groq.com"),
        ("https://api.groq.com/openai/v1/", "https://api.groq.com"),
    ],
)
def test_base_url_normalisation(given, expected):
    assert normalize_groq_base_url(given) == expected
