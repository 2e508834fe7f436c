"""What only the OpenAI-compatible backend (the official ``openai`` SDK) does (no API key,
``stream_options``, its base-URL forms), plus the chunk format (``openai_wire``) every
backend reads.  What it shares with the Groq backend runs for both in test_llm_http.py."""

from __future__ import annotations

import contextlib
from datetime import UTC, datetime
from email.utils import format_datetime

import pytest

from streamtwin.llm.backend import ChatRequest, LLMError
from streamtwin.llm.openai_backend import OpenAIBackend, openai_base_url
from streamtwin.llm.openai_wire import ChunkAccumulator, error_for_status, looks_multimodal, parse_retry_after
from tests.fakes import MESSAGES, collect
from tests.fakes.openai_server import OPENAI_PATH, FakeLLMServer, Reply

# --- against the fake server ---------------------------------------------------


async def test_no_api_key_sends_no_authorization():
    """What a keyless local server gets, from a bare ``http://host:port`` base URL."""
    async with FakeLLMServer() as server, contextlib.aclosing(OpenAIBackend(server.url, "m")) as client:
        await collect(client.stream(ChatRequest(MESSAGES)))
    (recorded,) = server.requests
    assert recorded.path == OPENAI_PATH
    assert "authorization" not in recorded.headers
    assert "response_format" not in recorded.body
    # Plain servers send usage only when asked (Groq sends its x_groq usage unasked).
    assert recorded.body["stream_options"] == {"include_usage": True}


# --- pure pieces -----------------------------------------------------------------


@pytest.mark.parametrize(
    "given, expected",
    [
        ("http://h:8000", "http://h:8000/v1"),
        ("http://h:8000/", "http://h:8000/v1"),
        ("http://h:8000/v1", "http://h:8000/v1"),
        ("https://api.example.com/v1/", "https://api.example.com/v1"),
        ("http://h/v1/chat/completions", "http://h/v1"),
        ("https://api.groq.com/openai/v1", "https://api.groq.com/openai/v1"),
    ],
)
def test_base_url_forms(given, expected):
    assert openai_base_url(given) == expected


def test_base_url_rejects_missing_scheme():
    with pytest.raises(ValueError, match="http"):
        openai_base_url("localhost:8000")


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


async def test_sdk_retries_when_asked_and_a_key_is_sent_as_bearer():
    async with FakeLLMServer() as server:
        server.script(Reply(status=503, headers={"retry-after": "0"}), Reply("Back."))
        async with contextlib.aclosing(OpenAIBackend(server.url, "m", "sk-x", max_retries=1)) as client:
            deltas, _ = await collect(client.stream(ChatRequest(MESSAGES)))
    assert "".join(deltas) == "Back."
    assert [r.headers["authorization"] for r in server.requests] == ["Bearer sk-x"] * 2
