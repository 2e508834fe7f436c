"""The OpenAI chat-completions format, read once for every backend (sans-I/O).

Groq's and OpenAI's SDKs (which speak the HTTP and SSE themselves) and llama-cpp-python
all hand over the same ``chat.completion.chunk`` objects, and the HTTP ones fail with
the same statuses, so summing up a stream of chunks and mapping failures to
:class:`LLMError` codes live here once.  Nothing in this module does I/O or reads a
clock: callers pass dicts, headers and timestamps in.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from email.utils import parsedate_to_datetime
from typing import Any

from streamtwin.llm.backend import ChatRequest, Finished, LLMError

# Model-name fragments of multimodal models on the providers we target.
_VISION_NAME_HINTS = ("vision", "llama-4", "scout", "maverick", "llava", "-vl")


def looks_multimodal(model: str) -> bool:
    """Guess image support from the model name: providers expose no capability flag."""
    name = model.lower()
    return any(hint in name for hint in _VISION_NAME_HINTS)


def chat_body(model: str, request: ChatRequest) -> dict[str, Any]:
    """The streaming ``/chat/completions`` body, leaving out what the request does not set."""
    body: dict[str, Any] = {
        "model": model,
        "messages": request.messages,
        "max_tokens": request.max_tokens,
        "temperature": request.temperature,
        "stream": True,
    }
    if request.response_format is not None:
        body["response_format"] = request.response_format
    if request.stop:
        body["stop"] = list(request.stop)
    return body


# --- failures ----------------------------------------------------------------


def parse_retry_after(headers: Mapping[str, str], now_epoch: float | None = None) -> float | None:
    """Seconds to wait from ``retry-after-ms`` or ``retry-after`` (seconds or an HTTP date)."""
    lowered = {key.lower(): value for key, value in headers.items()}
    raw_ms = lowered.get("retry-after-ms")
    if raw_ms is not None:
        try:
            return max(0.0, float(raw_ms) / 1000.0)
        except ValueError:
            pass
    raw = lowered.get("retry-after")
    if raw is None:
        return None
    try:
        return max(0.0, float(raw))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(raw)
    except (TypeError, ValueError):
        return None
    now_epoch = time.time() if now_epoch is None else now_epoch
    return max(0.0, when.timestamp() - now_epoch)


def error_message(body: Any, fallback: str) -> str:
    """The human part of an error body (``{"error": {"message": ...}}``, raw text or JSON)."""
    if isinstance(body, (bytes, bytearray)):
        body = body.decode("utf-8", "replace")
    if isinstance(body, str):
        try:
            body = json.loads(body)
        except ValueError:
            return body.strip()[:500] or fallback
    if isinstance(body, Mapping):
        inner = body.get("error", body)
        if isinstance(inner, Mapping) and isinstance(inner.get("message"), str):
            return inner["message"]
        if isinstance(inner, str):
            return inner
    return fallback


def error_for_status(status: int, message: str, headers: Mapping[str, str]) -> LLMError:
    """Map an HTTP error status to the stable :class:`LLMError` codes the driver acts on."""
    text = f"HTTP {status}: {message}"
    if status in (401, 403):
        return LLMError("auth", text)
    if status == 429:
        return LLMError("rate_limited", text, retry_after=parse_retry_after(headers))
    if status == 408:
        return LLMError("timeout", text)
    if status >= 500:
        return LLMError("server", text, retry_after=parse_retry_after(headers))
    return LLMError("bad_request", text)


def stream_error(error: Any) -> LLMError:
    """An error object (bare or wrapped in ``{"error": ...}``) inside a successful stream."""
    if isinstance(error, Mapping) and "error" in error:
        error = error["error"]
    return LLMError("stream_broken", "error in stream: " + error_message({"error": error}, repr(error)))


# --- the stream itself ---------------------------------------------------------


class ChunkAccumulator:
    """Follows one stream of ``chat.completion.chunk`` dicts and sums it up.

    ``feed`` returns the text each chunk adds; ``finish`` builds the :class:`Finished`
    and refuses a stream that stopped before the model said why it stopped.
    Usage comes from ``usage`` (OpenAI with ``include_usage``), ``x_groq.usage``
    (Groq) or ``timings`` (llama.cpp server); without any, completion tokens are the
    number of content chunks, which servers send one token at a time.
    """

    def __init__(self, started_at: float) -> None:
        self.started_at = started_at
        self.first_token_at: float | None = None
        self.finish_reason: str | None = None
        self.content_chunks = 0
        self.prompt_tokens = 0
        self.completion_tokens: int | None = None
        self.cached_tokens = 0

    def feed(self, chunk: Any, now: float) -> str:
        if not isinstance(chunk, Mapping):
            raise LLMError("stream_broken", f"unexpected chunk in stream: {chunk!r:.200}")
        if chunk.get("error"):
            raise stream_error(chunk["error"])
        text = ""
        for choice in chunk.get("choices") or ():
            if choice.get("index", 0) != 0:
                continue
            content = (choice.get("delta") or {}).get("content")
            if content:
                text += content
            if choice.get("finish_reason"):
                self.finish_reason = choice["finish_reason"]
        if text:
            self.content_chunks += 1
            if self.first_token_at is None:
                self.first_token_at = now
        self._take_usage(chunk)
        return text

    def _take_usage(self, chunk: Mapping[str, Any]) -> None:
        usage = chunk.get("usage") or (chunk.get("x_groq") or {}).get("usage")
        if usage:
            self.prompt_tokens = int(usage.get("prompt_tokens") or 0)
            self.completion_tokens = int(usage.get("completion_tokens") or 0)
            details = usage.get("prompt_tokens_details") or {}
            self.cached_tokens = int(details.get("cached_tokens") or self.cached_tokens)
        timings = chunk.get("timings")
        if timings:
            self.cached_tokens = int(timings.get("cache_n") or self.cached_tokens)
            if not usage:
                prompt_n = int(timings.get("prompt_n") or 0)
                self.prompt_tokens = prompt_n + self.cached_tokens

    def finish(self, now: float) -> Finished:
        if self.finish_reason is None:
            raise LLMError("stream_broken", "stream ended before the model finished")
        completion = self.completion_tokens if self.completion_tokens is not None else self.content_chunks
        return Finished(
            prompt_tokens=self.prompt_tokens,
            completion_tokens=completion,
            ttft_s=None if self.first_token_at is None else self.first_token_at - self.started_at,
            total_s=now - self.started_at,
            finish_reason=self.finish_reason,
            cached_tokens=self.cached_tokens,
        )
