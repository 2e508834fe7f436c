"""Choosing and building the backend from a Config."""

from __future__ import annotations

import pytest

from streamtwin.config import DEFAULT_GROQ_MODEL, Config
from streamtwin.llm.backend import LLMError
from streamtwin.llm.factory import choose_backend, make_backend
from streamtwin.llm.failover import FailoverBackend
from streamtwin.llm.groq_backend import GroqBackend
from streamtwin.llm.local_backend import LocalBackend
from streamtwin.llm.openai_backend import OpenAIBackend
from streamtwin.llm.watchdog import WatchedBackend


@pytest.mark.parametrize(
    "settings, expected",
    [
        ({}, "local"),
        ({"llm_base_url": "http://127.0.0.1:8000/v1"}, "openai"),
        ({"groq_api_key": "k", "llm_base_url": "http://127.0.0.1:8000/v1"}, "groq"),
        ({"llm": "LOCAL", "groq_api_key": "k"}, "local"),
        ({"llm": "none", "groq_api_key": "k"}, "none"),
    ],
)
def test_auto_prefers_groq_then_openai_then_local(settings, expected):
    assert choose_backend(Config(**settings)) == expected


def test_unknown_choice_lists_the_valid_ones():
    with pytest.raises(ValueError, match="auto, groq, openai, local, none"):
        choose_backend(Config(llm="gpt"))


async def test_builds_groq_with_defaults_and_user_limits():
    backend = make_backend(Config(groq_api_key="k", llm_context_tokens=5000, llm_max_in_flight=3))
    assert isinstance(backend, WatchedBackend) and isinstance(backend.backend, GroqBackend)
    try:
        assert (backend.model, backend.context_tokens, backend.max_in_flight) == (DEFAULT_GROQ_MODEL, 5000, 3)
    finally:
        await backend.aclose()


def test_explicit_groq_without_key_is_an_auth_error():
    with pytest.raises(LLMError) as caught:
        make_backend(Config(llm="groq"))
    assert caught.value.code == "auth" and "GROQ_API_KEY" in caught.value.message


async def test_builds_openai_from_url_and_model():
    backend = make_backend(Config(llm_base_url="http://127.0.0.1:8000", llm_model="qwen2.5:1.5b"))
    assert isinstance(backend, WatchedBackend) and isinstance(backend.backend, OpenAIBackend)
    try:
        assert backend.backend.base_url == "http://127.0.0.1:8000/v1"
        assert backend.model == "qwen2.5:1.5b"
    finally:
        await backend.aclose()


@pytest.mark.parametrize(
    "settings, hint",
    [({"llm": "openai"}, "--llm-base-url"), ({"llm_base_url": "http://127.0.0.1:1/v1"}, "--llm-model")],
)
def test_openai_needs_url_and_model(settings, hint):
    with pytest.raises(ValueError, match=hint):
        make_backend(Config(**settings))


@pytest.mark.parametrize(
    "settings, expected",
    [
        ({"groq_api_key": "k"}, (15.0, 10.0)),  # alone: a slow answer beats none
        ({"llm_base_url": "http://127.0.0.1:9/v1", "llm_model": "m"}, (15.0, 10.0)),
        ({"groq_api_key": "k", "llm_first_token_timeout_s": 2.0, "llm_stall_timeout_s": 1.0}, (2.0, 1.0)),
        ({"groq_api_key": "k", "llm_base_url": "http://127.0.0.1:9/v1", "llm_fallback": ["openai:m"]}, (5.0, 3.0)),
    ],
)
async def test_hosted_backends_get_stall_timeouts_alone_or_together(settings, expected):
    backend = make_backend(Config(**settings))
    assert isinstance(backend, (WatchedBackend, FailoverBackend))
    try:
        assert (backend.first_token_s, backend.stall_s) == expected
    finally:
        await backend.aclose()


def test_none_means_no_backend():
    assert make_backend(Config(llm="none")) is None


def test_local_is_built_without_loading_and_sized_from_the_config():
    backend = make_backend(
        Config(llm_model="smollm2", llm_context_tokens=1000, llm_max_tokens=200, llm_threads=1)
    )
    assert isinstance(backend, LocalBackend)
    assert backend.context_tokens == 1000
    assert backend.n_ctx >= 1000 + 200
    assert backend.n_threads == 1
    assert backend.max_in_flight == 1


def test_local_with_a_missing_file_fails_at_once(tmp_path):
    with pytest.raises(LLMError) as caught:
        make_backend(Config(llm="local", llm_model=str(tmp_path / "nope.gguf")))
    assert caught.value.code == "model_missing"


def test_auto_without_any_model_transcribes_only(tmp_path, caplog):
    config = Config(llm="auto", llm_model=str(tmp_path / "nope.gguf"), groq_api_key="", llm_base_url="")
    assert make_backend(config) is None
    assert "transcribing only" in caplog.text
