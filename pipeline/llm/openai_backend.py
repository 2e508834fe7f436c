"""Any OpenAI-compatible ``/v1/chat/completions`` server (vLLM, Ollama, llama.cpp, Cerebras...).

The Groq SDK cannot reach these (it always posts to ``/openai/v1``), so this is a
small httpx client; the wire format and the error codes are shared with Groq
through :mod:`pipeline.llm.openai_wire`.
"""

from __future__ import annotations

import logging
import time
from collections.abc import AsyncIterator

import httpx

from pipeline.llm.base import ChatRequest, Delta, StreamItem
from pipeline.llm.openai_wire import (
    ChunkAccumulator,
    ChunkDecoder,
    chat_body,
    error_for_httpx,
    error_for_status,
    error_message,
    looks_multimodal,
)

log = logging.getLogger(__name__)


def chat_completions_url(base_url: str) -> str:
    """``http://host:port``, ``.../v1`` or the full endpoint all mean the same server."""
    url = base_url.strip().rstrip("/")
    if not url.startswith(("http://", "https://")):
        raise ValueError(f"LLM base URL must start with http:// or https://, got {base_url!r}")
    url = url.removesuffix("/chat/completions")
    if not url.endswith("/v1"):
        url += "/v1"
    return url + "/chat/completions"


class OpenAIBackend:
    """Streaming chat completions over SSE from an OpenAI-compatible server."""

    name = "openai"

    def __init__(
        self,
        base_url: str,
        model: str,
        api_key: str = "",
        *,
        timeout_s: float = 60.0,
        connect_timeout_s: float = 5.0,
        context_tokens: int = 4096,
        max_in_flight: int = 1,
    ) -> None:
        self.url = chat_completions_url(base_url)
        self.model = model
        self.context_tokens = context_tokens
        self.max_in_flight = max_in_flight
        self.supports_images = looks_multimodal(model)
        headers = {"Accept": "text/event-stream"}
        if api_key:
            headers["Authorization"] = f"Bearer {api_key}"
        self._client = httpx.AsyncClient(
            headers=headers, timeout=httpx.Timeout(timeout_s, connect=connect_timeout_s)
        )

    async def stream(self, request: ChatRequest) -> AsyncIterator[StreamItem]:
        """Yield deltas then one Finished; cancelling the consumer closes the HTTP stream."""
        body = chat_body(self.model, request)
        body["stream_options"] = {"include_usage": True}
        started = time.monotonic()
        accumulator = ChunkAccumulator(started)
        decoder = ChunkDecoder()
        streaming = False
        try:
            async with self._client.stream("POST", self.url, json=body) as response:
                if response.status_code >= 400:
                    raw = await response.aread()
                    message = error_message(raw, response.reason_phrase)
                    raise error_for_status(response.status_code, message, response.headers)
                streaming = True
                async for raw in response.aiter_bytes():
                    for chunk in decoder.feed(raw):
                        text = accumulator.feed(chunk, time.monotonic())
                        if text:
                            yield Delta(text)
                    if decoder.done:
                        break
        except httpx.HTTPError as exc:
            raise error_for_httpx(exc, during_stream=streaming) from exc
        # Usage and timing travel to the caller in Finished (and on to assistant.done).
        yield accumulator.finish(time.monotonic())

    async def aclose(self) -> None:
        await self._client.aclose()
