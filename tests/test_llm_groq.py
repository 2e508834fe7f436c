"""What only the Groq backend (real ``groq`` SDK) does: SDK retries, its API key, model
names and base URLs.  What it shares with the OpenAI-compatible client (streaming, usage,
requests, failures, abandoning) runs for both in test_llm_http.py."""

from __future__ import annotations

import pytest

from streamtwin.config import DEFAULT_GROQ_MODEL
from streamtwin.llm.backend import ChatRequest, LLMError
from streamtwin.llm.groq_backend import GroqBackend, normalize_groq_base_url
from tests.fakes import MESSAGES, expect_llm_error
from tests.fakes.openai_server import FakeLLMServer, Reply


async def test_rate_limit_surfaces_even_with_sdk_retries_left():
    async with FakeLLMServer() as server:
        server.script(*[Reply(status=429, headers={"retry-after": "0.2"})] * 2)
        client = GroqBackend("k", base_url=server.url, max_retries=1)
        error = await expect_llm_error(client, ChatRequest(MESSAGES))
    assert error.code == "rate_limited"
    assert error.retry_after == 0.2
    assert len(server.requests) == 2


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
