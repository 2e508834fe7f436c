"""Any OpenAI-compatible ``/v1/chat/completions`` server (vLLM, Ollama, llama.cpp, Cerebras...)
through the official async ``openai`` SDK, streaming.

As with Groq's SDK, retries default to none: a 429 or a 5xx surfaces at once as an
:class:`LLMError` (with its ``retry-after``) for the driver to back off, or for a
failover to take the call elsewhere, while speech keeps flowing.  The chunk format
and the status codes are shared with Groq through :mod:`streamtwin.llm.openai_wire`.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from typing import Any

import openai

from streamtwin.llm.backend import ChatRequest, LLMError, StreamItem
from streamtwin.llm.openai_wire import chat_body, error_for_status, error_message, looks_multimodal
from streamtwin.llm.sdk_stream import stream_completion

log = logging.getLogger(__name__)

# The SDK refuses to send a request without credentials unless the header is explicitly left out;
# keyless local servers (llama.cpp, Ollama, vLLM) get no Authorization header at all.
_NO_KEY_PLACEHOLDER = "no-key"
_KEYLESS_HEADERS = {"Authorization": openai.omit}


def openai_base_url(base_url: str) -> str:
    """``http://host:port``, ``.../v1`` or the full endpoint all mean the same server: its ``.../v1``."""
    url = base_url.strip().rstrip("/")
    if not url.startswith(("http://", "https://")):
        raise ValueError(f"LLM base URL must start with http:// or https://, got {base_url!r}")
    url = url.removesuffix("/chat/completions")
    return url if url.endswith("/v1") else url + "/v1"


def map_openai_error(exc: Exception, during_stream: bool) -> LLMError:
    """The SDK's typed errors to the project's codes (the SDK wraps transport errors itself)."""
    if isinstance(exc, openai.APITimeoutError):
        return LLMError("timeout", f"no answer from the server in time: {exc}")
    if isinstance(exc, openai.APIStatusError):
        return error_for_status(exc.status_code, error_message(exc.body, exc.message), exc.response.headers)
    if isinstance(exc, openai.APIConnectionError):
        cause = exc.__cause__ or exc
        if during_stream:
            return LLMError("stream_broken", f"stream failed: {cause!r}")
        return LLMError("unreachable", f"cannot reach the server: {cause!r}")
    # A bare APIError is an error object inside the stream; ValueError a garbage chunk.
    return LLMError("stream_broken", f"stream failed: {exc}")


class OpenAIBackend:
    """Streaming chat completions from an OpenAI-compatible server."""

    name = "openai"

    def __init__(
        self,
        base_url: str,
        model: str,
        api_key: str = "",
        *,
        timeout_s: float = 60.0,
        connect_timeout_s: float = 5.0,
        max_retries: int = 0,
        context_tokens: int = 4096,
        max_in_flight: int = 1,
    ) -> None:
        self.base_url = openai_base_url(base_url)
        self.model = model
        self.context_tokens = context_tokens
        self.max_in_flight = max_in_flight
        self.supports_images = looks_multimodal(model)
        self._extra_headers: dict[str, Any] = {} if api_key else _KEYLESS_HEADERS
        self._client = openai.AsyncOpenAI(
            api_key=api_key or _NO_KEY_PLACEHOLDER,
            base_url=self.base_url,
            timeout=openai.Timeout(timeout_s, connect=connect_timeout_s),
            max_retries=max_retries,
        )

    def stream(self, request: ChatRequest) -> AsyncIterator[StreamItem]:
        """Yield deltas then one Finished; cancelling the consumer closes the HTTP stream."""
        body = chat_body(self.model, request)
        # Plain servers send usage only when asked (Groq sends its x_groq usage unasked).
        body["stream_options"] = {"include_usage": True}
        return stream_completion(
            lambda: self._client.chat.completions.create(**body, extra_headers=self._extra_headers),
            (openai.OpenAIError,),
            map_openai_error,
        )

    async def aclose(self) -> None:
        await self._client.close()
