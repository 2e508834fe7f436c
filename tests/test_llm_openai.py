"""The plain OpenAI-compatible client against the loopback fake, plus the shared wire parsing."""

from __future__ import annotations

import asyncio
import gc
import json
import socket
from datetime import UTC, datetime
from email.utils import format_datetime

import pytest

from pipeline.llm.base import ChatRequest, Delta, LLMError
from pipeline.llm.openai_backend import OpenAIBackend, chat_completions_url
from pipeline.llm.openai_wire import (
    ChunkAccumulator,
    ChunkDecoder,
    SSEParser,
    error_for_status,
    looks_multimodal,
    parse_retry_after,
)
from tests.fakes import abandon_after_first_delta, collect
from tests.fakes.openai_server import FAILURE_CASES, FakeLLMServer, Reply, prompt_words, split_words

MESSAGES = [
    {"role": "system", "content": "You follow a live meeting."},
    {"role": "user", "content": "Alice: the launch moves to Friday."},
]


@pytest.fixture
async def server():
    async with FakeLLMServer() as fake:
        yield fake


@pytest.fixture
async def backend(server):
    client = OpenAIBackend(server.url + "/v1", "fake-model", api_key="sk-test", timeout_s=2.0)
    yield client
    await client.aclose()


# --- against the fake server ---------------------------------------------------


async def test_streams_reply_and_usage(server, backend):
    server.script(Reply("The launch is on Friday, says Alice."))
    request = ChatRequest(MESSAGES, max_tokens=64, temperature=0.3, stop=["\n\n"])

    deltas, finished = await collect(backend.stream(request))

    assert "".join(deltas) == "The launch is on Friday, says Alice."
    assert len(deltas) == len(split_words("The launch is on Friday, says Alice."))
    assert finished.finish_reason == "stop"
    assert finished.completion_tokens == len(deltas)
    assert finished.prompt_tokens == prompt_words({"messages": MESSAGES})
    assert finished.ttft_s is not None and 0 <= finished.ttft_s <= finished.total_s


async def test_request_carries_prompt_and_options(server, backend):
    schema = {"type": "json_schema", "json_schema": {"name": "t", "schema": {"type": "object"}}}
    await collect(backend.stream(ChatRequest(MESSAGES, max_tokens=12, response_format=schema, stop=["END"])))

    (recorded,) = server.requests
    assert recorded.path == "/v1/chat/completions"
    assert recorded.headers["authorization"] == "Bearer sk-test"
    assert recorded.body["messages"] == MESSAGES
    assert recorded.body["model"] == "fake-model"
    assert recorded.body["max_tokens"] == 12
    assert recorded.body["stream"] is True
    assert recorded.body["response_format"] == schema
    assert recorded.body["stop"] == ["END"]
    assert recorded.body["stream_options"] == {"include_usage": True}


async def test_no_api_key_sends_no_authorization(server):
    client = OpenAIBackend(server.url, "m")
    try:
        await collect(client.stream(ChatRequest(MESSAGES)))
    finally:
        await client.aclose()
    assert "authorization" not in server.requests[0].headers
    assert "response_format" not in server.requests[0].body


@pytest.mark.parametrize("case", sorted(FAILURE_CASES))
async def test_failures_map_to_codes(server, backend, case):
    reply, code = FAILURE_CASES[case]
    server.script(reply)
    seen: list[str] = []
    with pytest.raises(LLMError) as caught:
        async for item in backend.stream(ChatRequest(MESSAGES)):
            if isinstance(item, Delta):
                seen.append(item.text)
    assert caught.value.code == code
    if code == "rate_limited":
        assert caught.value.retry_after == 7.0
    if case == "error_mid_stream":
        assert "scripted failure" in caught.value.message
        assert seen, "deltas before the error still reach the caller"


async def test_stalled_stream_times_out(server):
    server.script(Reply(stall=True))
    client = OpenAIBackend(server.url, "m", timeout_s=0.3)
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
    client = OpenAIBackend(f"http://127.0.0.1:{port}/v1", "m")
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


async def test_json_reply_for_structured_requests():
    fake = FakeLLMServer(reply=Reply("plain"), json_reply=Reply('{"ok": true}'))
    async with fake:
        client = OpenAIBackend(fake.url, "m")
        try:
            plain, _ = await collect(client.stream(ChatRequest(MESSAGES)))
            structured, _ = await collect(
                client.stream(ChatRequest(MESSAGES, response_format={"type": "json_object"}))
            )
        finally:
            await client.aclose()
    assert "".join(plain) == "plain"
    assert json.loads("".join(structured)) == {"ok": True}


# --- pure pieces -----------------------------------------------------------------


@pytest.mark.parametrize(
    "given, expected",
    [
        ("http://h:8000", "http://h:8000/v1/chat/completions"),
        ("http://h:8000/", "http://h:8000/v1/chat/completions"),
        ("http://h:8000/v1", "http://h:8000/v1/chat/completions"),
        ("https://api.example.com/v1/", "https://api.example.com/v1/chat/completions"),
        ("http://h/v1/chat/completions", "http://h/v1/chat/completions"),
        ("https://api.groq.com/openai/v1", "https://api.groq.com/openai/v1/chat/completions"),
    ],
)
def test_chat_completions_url(given, expected):
    assert chat_completions_url(given) == expected


def test_chat_completions_url_rejects_missing_scheme():
    with pytest.raises(ValueError, match="http"):
        chat_completions_url("localhost:8000")


def test_sse_parser_handles_split_reads_crlf_and_comments():
    stream = (
        ': keep-alive\r\ndata: {"a": "é"}\r\n\r\nevent: error\ndata: line1\ndata: line2\n\ndata: [DONE]\n\n'
    )
    raw = stream.encode()
    parser = SSEParser()
    events = []
    for index in range(len(raw)):  # one byte at a time: splits CRLF and the 2-byte "é"
        events += parser.feed(raw[index : index + 1])
    assert [(e.event, e.data) for e in events] == [
        (None, '{"a": "é"}'),
        ("error", "line1\nline2"),
        (None, "[DONE]"),
    ]


def test_chunk_decoder_keeps_order_and_stops_at_done():
    decoder = ChunkDecoder()
    raw = b'data: {"n": 1}\n\nevent: error\ndata: {"error": {"message": "boom"}}\n\n'
    chunks = decoder.feed(raw)
    assert next(chunks) == {"n": 1}, "chunks before an error are delivered first"
    with pytest.raises(LLMError, match="boom"):
        next(chunks)

    decoder = ChunkDecoder()
    assert list(decoder.feed(b'data: {"n": 1}\n\ndata: [DONE]\n\ndata: {"n": 2}\n\n')) == [{"n": 1}]
    assert decoder.done


def test_accumulator_needs_a_finish_reason():
    accumulator = ChunkAccumulator(started_at=10.0)
    assert accumulator.feed({"choices": [{"index": 0, "delta": {"content": "Hi"}}]}, now=10.5) == "Hi"
    with pytest.raises(LLMError) as caught:
        accumulator.finish(now=11.0)
    assert caught.value.code == "stream_broken"


def test_accumulator_reads_each_usage_dialect():
    groq = ChunkAccumulator(0.0)
    groq.feed({"choices": [{"index": 0, "delta": {"content": "a"}}]}, 1.0)
    groq.feed(
        {
            "choices": [{"index": 0, "delta": {}, "finish_reason": "length"}],
            "x_groq": {"id": "x", "usage": {"prompt_tokens": 5, "completion_tokens": 9}},
        },
        2.0,
    )
    assert (groq.finish(3.0).prompt_tokens, groq.finish(3.0).completion_tokens) == (5, 9)
    assert groq.finish(3.0).finish_reason == "length"
    assert groq.finish(3.0).ttft_s == 1.0

    openai = ChunkAccumulator(0.0)
    openai.feed({"choices": [{"index": 0, "delta": {"content": "a"}, "finish_reason": "stop"}]}, 1.0)
    openai.feed(
        {
            "choices": [],
            "usage": {
                "prompt_tokens": 7,
                "completion_tokens": 1,
                "prompt_tokens_details": {"cached_tokens": 4},
            },
        },
        1.0,
    )
    assert openai.finish(1.0).cached_tokens == 4

    llama_server = ChunkAccumulator(0.0)
    llama_server.feed(
        {
            "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}],
            "timings": {"cache_n": 30, "prompt_n": 12},
        },
        1.0,
    )
    finished = llama_server.finish(1.0)
    assert (finished.prompt_tokens, finished.cached_tokens, finished.completion_tokens) == (42, 30, 0)


def test_accumulator_raises_on_error_chunk():
    with pytest.raises(LLMError) as caught:
        ChunkAccumulator(0.0).feed({"error": {"message": "overloaded"}}, 0.0)
    assert caught.value.code == "stream_broken"
    assert "overloaded" in caught.value.message


@pytest.mark.parametrize(
    "status, code",
    [
        (401, "auth"),
        (403, "auth"),
        (429, "rate_limited"),
        (408, "timeout"),
        (500, "server"),
        (503, "server"),
        (400, "bad_request"),
        (404, "bad_request"),
        (413, "bad_request"),
    ],
)
def test_error_for_status(status, code):
    assert error_for_status(status, "x", {}).code == code


def test_retry_after_forms():
    assert parse_retry_after({"Retry-After": "2.5"}) == 2.5
    assert parse_retry_after({"retry-after-ms": "1500", "retry-after": "9"}) == 1.5
    assert parse_retry_after({}) is None
    now = 1_700_000_000.0
    date = format_datetime(datetime.fromtimestamp(now + 30, tz=UTC), usegmt=True)
    assert parse_retry_after({"retry-after": date}, now_epoch=now) == pytest.approx(30.0)
    assert parse_retry_after({"retry-after": "soon"}) is None


def test_multimodal_names():
    assert looks_multimodal("meta-llama/llama-4-scout-17b-16e-instruct")
    assert looks_multimodal("llama-3.2-11b-vision-preview")
    assert looks_multimodal("Qwen2.5-VL-7B-Instruct")
    assert not looks_multimodal("llama-3.1-8b-instant")
