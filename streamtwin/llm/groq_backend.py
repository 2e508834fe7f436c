"""Groq through its official async SDK, streaming.

The SDK's own retries sleep for ``retry-after`` (up to a minute) on a 429; a live
transcript cannot wait that long, so retries default to none and a rate limit
surfaces at once as ``LLMError("rate_limited", retry_after=...)`` for the driver
to back off while speech keeps flowing.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator

import groq
import httpx

from streamtwin.config import DEFAULT_GROQ_MODEL
from streamtwin.llm.backend import ChatRequest, LLMError, StreamItem
from streamtwin.llm.openai_wire import chat_body, error_for_status, looks_multimodal
from streamtwin.llm.sdk_stream import stream_completion

log = logging.getLogger(__name__)

# The SDK appends /openai/v1/... itself; a base URL that already ends so would double it.
_SDK_PATH_SUFFIX = "/openai/v1"


def normalize_groq_base_url(base_url: str | None) -> str | None:
    """Accept both ``https://host`` and the ``https://host/openai/v1`` that Groq's docs show."""
    if not base_url:
        return None
    return base_url.rstrip("/").removesuffix(_SDK_PATH_SUFFIX)


def error_for_httpx(exc: httpx.HTTPError, during_stream: bool) -> LLMError:
    """Transport failures (Groq's SDK lets httpx errors out bare mid-stream): before the response they
    mean unreachable, after it a broken stream."""
    if isinstance(exc, httpx.ConnectTimeout):
        return LLMError("unreachable", f"connect timed out: {exc!r}")
    if isinstance(exc, httpx.TimeoutException):
        return LLMError("timeout", f"no data from the server in time: {exc!r}")
    if isinstance(exc, httpx.TransportError) and not during_stream:
        return LLMError("unreachable", f"cannot reach the server: {exc!r}")
    return LLMError("stream_broken", f"stream failed: {exc!r}")


def map_groq_error(exc: Exception, during_stream: bool) -> LLMError:
    """SDK errors to codes; httpx errors come bare from the SDK while it iterates a stream."""
    if isinstance(exc, httpx.HTTPError):
        return error_for_httpx(exc, during_stream)
    if isinstance(exc, groq.APITimeoutError):
        return LLMError("timeout", f"no answer from Groq in time: {exc}")
    if isinstance(exc, groq.APIStatusError):
        return error_for_status(exc.status_code, exc.message, exc.response.headers)
    if isinstance(exc, groq.APIConnectionError):
        return LLMError("unreachable", f"cannot reach Groq: {exc}")
    # A bare APIError is an error object inside the stream; ValueError a garbage chunk.
    return LLMError("stream_broken", f"stream failed: {exc}")


class GroqBackend:
    """Streaming chat completions from Groq (or anything speaking its API under ``base_url``)."""

    name = "groq"

    def __init__(
        self,
        api_key: str,
        model: str = DEFAULT_GROQ_MODEL,
        base_url: str | None = None,
        *,
        timeout_s: float = 30.0,
        connect_timeout_s: float = 5.0,
        max_retries: int = 0,
        context_tokens: int = 24000,
        max_in_flight: int = 2,
    ) -> None:
        if not api_key:
            raise LLMError("auth", "Groq needs an API key: set GROQ_API_KEY or pass --groq-api-key")
        self.model = model or DEFAULT_GROQ_MODEL
        self.context_tokens = context_tokens
        self.max_in_flight = max_in_flight
        self.supports_images = looks_multimodal(self.model)
        self._client = groq.AsyncGroq(
            api_key=api_key,
            base_url=normalize_groq_base_url(base_url),
            timeout=httpx.Timeout(timeout_s, connect=connect_timeout_s),
            max_retries=max_retries,
        )

    def stream(self, request: ChatRequest) -> AsyncIterator[StreamItem]:
        """Yield deltas then one Finished; cancelling the consumer closes the HTTP stream."""
        body = chat_body(self.model, request)
        return stream_completion(
            lambda: self._client.chat.completions.create(**body), (groq.GroqError, httpx.HTTPError), map_groq_error
        )

    async def aclose(self) -> None:
        await self._client.close()
