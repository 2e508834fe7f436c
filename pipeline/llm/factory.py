"""Pick and build the language-model backend a :class:`Config` asks for.

``--llm auto`` prefers a hosted provider when one is configured (Groq key, then an
OpenAI-compatible base URL) and falls back to the embedded local model, so a
machine with nothing configured still answers.
"""

from __future__ import annotations

import logging
import os

from pipeline.config import DEFAULT_GROQ_MODEL, Config
from pipeline.llm.base import Backend, LLMError
from pipeline.llm.groq_backend import GroqBackend
from pipeline.llm.local_backend import LocalBackend
from pipeline.llm.models import DEFAULT_MODEL, check_model_available
from pipeline.llm.openai_backend import OpenAIBackend

log = logging.getLogger(__name__)

CHOICES = ("auto", "groq", "openai", "local", "none")
# Chat-template tokens around the prompt, on top of the answer itself.
_TEMPLATE_MARGIN_TOKENS = 256


def choose_backend(config: Config) -> str:
    """The concrete backend name for ``config.llm`` (resolving ``auto``)."""
    choice = config.llm.strip().lower()
    if choice not in CHOICES:
        raise ValueError(f"unknown --llm {config.llm!r}: choose one of {', '.join(CHOICES)}")
    if choice != "auto":
        return choice
    if config.groq_api_key:
        return "groq"
    if config.llm_base_url:
        return "openai"
    return "local"


def make_backend(config: Config) -> Backend | None:
    """Build the backend; ``None`` for ``--llm none``.  Cheap: a local model loads on first use
    (or on ``await backend.start()``), but a missing one is reported here already."""
    choice = choose_backend(config)
    if choice == "none":
        return None
    try:
        backend = {"groq": _groq, "openai": _openai, "local": _local}[choice](config)
    except LLMError as exc:
        if config.llm.strip().lower() != "auto" or exc.code != "model_missing":
            raise
        # Nothing configured and no embedded model installed: still transcribe, and say how to get answers.
        log.warning("no language model: %s; transcribing only (--llm none silences this)", exc.message)
        return None
    log.info("LLM backend: %s (%s)", backend.name, backend.model)
    return backend


def _groq(config: Config) -> Backend:
    if not config.groq_api_key:
        raise LLMError("auth", "--llm groq needs an API key: set GROQ_API_KEY (or --groq-api-key)")
    backend = GroqBackend(
        config.groq_api_key, config.llm_model or DEFAULT_GROQ_MODEL, config.groq_base_url or None
    )
    return _with_user_limits(backend, config)


def _openai(config: Config) -> Backend:
    if not config.llm_base_url:
        raise ValueError(
            "--llm openai needs the server: --llm-base-url http://HOST:PORT/v1 (or OPENAI_BASE_URL)"
        )
    if not config.llm_model:
        raise ValueError("--llm openai needs the model name the server serves: --llm-model NAME")
    backend = OpenAIBackend(config.llm_base_url, config.llm_model, config.llm_api_key)
    return _with_user_limits(backend, config)


def _with_user_limits(backend: Backend, config: Config) -> Backend:
    """Hosted backends take the user's limits as given (the provider enforces the real ones)."""
    if config.llm_context_tokens:
        backend.context_tokens = config.llm_context_tokens
    if config.llm_max_in_flight:
        backend.max_in_flight = config.llm_max_in_flight
    return backend


def _local(config: Config) -> Backend:
    """One generation at a time whatever the config says; the window sizes llama.cpp's n_ctx."""
    model = config.llm_model or DEFAULT_MODEL
    check_model_available(model)
    threads = config.llm_threads or os.cpu_count() or 1
    if not config.llm_context_tokens:
        return LocalBackend(model, threads)
    n_ctx = config.llm_context_tokens + config.llm_max_tokens + _TEMPLATE_MARGIN_TOKENS
    return LocalBackend(model, threads, n_ctx, context_tokens=config.llm_context_tokens)
