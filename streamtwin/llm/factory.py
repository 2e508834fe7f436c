"""Pick and build the language-model backend a :class:`Config` asks for.

``--llm auto`` prefers a hosted provider when one is configured (Groq key, then an
OpenAI-compatible base URL) and falls back to the embedded local model, so a
machine with nothing configured still answers.  ``--llm-race`` and ``--llm-fallback``
put several backends behind one :class:`~streamtwin.llm.failover.FailoverBackend`;
each is named ``NAME`` or ``NAME:MODEL`` (``openai:qwen2.5:1.5b``, ``local:smollm2``).
A single hosted backend is watched for stalls (:class:`~streamtwin.llm.watchdog.WatchedBackend`).
"""

from __future__ import annotations

import logging
import os
from dataclasses import replace

from streamtwin.config import DEFAULT_GROQ_MODEL, Config
from streamtwin.llm.backend import Backend, LLMError
from streamtwin.llm.failover import FailoverBackend
from streamtwin.llm.groq_backend import GroqBackend
from streamtwin.llm.local_backend import LocalBackend
from streamtwin.llm.gguf_models import DEFAULT_MODEL, check_model_available
from streamtwin.llm.openai_backend import OpenAIBackend
from streamtwin.llm.watchdog import WatchedBackend

log = logging.getLogger(__name__)

CHOICES = ("auto", "groq", "openai", "local", "none")
# Chat-template tokens around the prompt, on top of the answer itself.
_TEMPLATE_MARGIN_TOKENS = 256
# (first token, stall) timeouts unless the flags set them.  With several backends the next one takes over, so
# a slow one is cut early.  One hosted backend has nothing to fall back to, so a slow answer beats none, yet a
# dead stream is still reported well before its SDK's read timeout (60 s OpenAI, 30 s Groq).  A local model
# alone has only the wall-time cap: on a CPU the first token of a long prompt can take a minute.
SEVERAL_TIMEOUTS_S = (5.0, 3.0)
HOSTED_TIMEOUTS_S = (15.0, 10.0)


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


def member_specs(config: Config) -> list[tuple[str, str]]:
    """(backend, model) of every member, racers first, then fallbacks; none without --llm-race or --llm-fallback."""
    racers = [_spec(text, "--llm-race") for text in config.llm_race]
    fallbacks = [_spec(text, "--llm-fallback") for text in config.llm_fallback]
    if racers and config.llm.strip().lower() not in ("auto", *(name for name, _ in racers)):
        raise ValueError(f"--llm-race sends every call to {', '.join(config.llm_race)}: leave --llm at auto")
    if not racers and fallbacks:
        primary = choose_backend(config)
        if primary == "none":
            raise ValueError("--llm-fallback needs a language model to fall back from: not --llm none")
        racers = [(primary, "")]
    members = racers + fallbacks
    if len(set(members)) < len(members):
        raise ValueError(f"a backend is named twice among {', '.join(f'{n}:{m}' if m else n for n, m in members)}")
    return members


def _spec(text: str, flag: str) -> tuple[str, str]:
    name, _, model = text.strip().partition(":")
    name = name.lower()
    if name not in _BUILDERS:
        choices = ", ".join(_BUILDERS)
        raise ValueError(f"unknown backend {text!r} in {flag}: choose among {choices} (NAME or NAME:MODEL)")
    return name, model.strip()


def make_backend(config: Config) -> Backend | None:
    """Build the backend; ``None`` for ``--llm none``.  Cheap: a local model loads on first use
    (or on ``await backend.start()``), but a missing one is reported here already."""
    specs = member_specs(config)
    if len(specs) > 1:
        members = [_BUILDERS[name](replace(config, llm_model=model or config.llm_model)) for name, model in specs]
        first_token_s, stall_s = _stall_timeouts(config, SEVERAL_TIMEOUTS_S)
        backend = FailoverBackend(
            members, race=len(config.llm_race) or 1, first_token_s=first_token_s, stall_s=stall_s
        )
        log.info("LLM backends: %s", ", ".join(f"{member.name} ({member.model})" for member in members))
        return backend
    if specs:  # a race of one
        name, model = specs[0]
        config = replace(config, llm=name, llm_model=model or config.llm_model)
    choice = choose_backend(config)
    if choice == "none":
        return None
    try:
        backend = _BUILDERS[choice](config)
    except LLMError as exc:
        if config.llm.strip().lower() != "auto" or exc.code != "model_missing":
            raise
        # Nothing configured and no embedded model installed: still transcribe, and say how to get answers.
        log.warning("no language model: %s; transcribing only (--llm none silences this)", exc.message)
        return None
    log.info("LLM backend: %s (%s)", backend.name, backend.model)
    if choice == "local":
        return backend
    first_token_s, stall_s = _stall_timeouts(config, HOSTED_TIMEOUTS_S)
    return WatchedBackend(backend, first_token_s=first_token_s, stall_s=stall_s)


def _stall_timeouts(config: Config, defaults: tuple[float, float]) -> tuple[float, float]:
    """(first token, stall) in seconds: the flags', where set, else ``defaults``."""
    first_token_s, stall_s = defaults
    return (
        config.llm_first_token_timeout_s if config.llm_first_token_timeout_s > 0 else first_token_s,
        config.llm_stall_timeout_s if config.llm_stall_timeout_s > 0 else stall_s,
    )


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


_BUILDERS = {"groq": _groq, "openai": _openai, "local": _local}
