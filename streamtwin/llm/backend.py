"""One async streaming interface over every language-model backend.

A backend turns a :class:`ChatRequest` into an async stream of :class:`Delta`
items followed by exactly one :class:`Finished` (a backend over several announces
which of them answers with :class:`Answering` items).  Failures raise
:class:`LLMError` with a stable ``code`` so the driver can report them and
back off without knowing which provider it talks to.  Cancelling the task that
iterates the stream must stop the generation promptly (and free the model).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, AsyncIterator, Protocol


@dataclass
class ChatRequest:
    """OpenAI-style chat messages; ``content`` may be a list of text/image_url parts."""

    messages: list[dict[str, Any]]
    max_tokens: int = 256
    temperature: float = 0.0
    # OpenAI-style {"type": "json_schema", "json_schema": {...}} or {"type": "json_object"}
    response_format: dict[str, Any] | None = None
    stop: list[str] = field(default_factory=list)


@dataclass
class Delta:
    text: str


@dataclass
class Finished:
    """Timing and usage of a completed stream (seconds; tokens as the backend counts them)."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    ttft_s: float | None = None
    total_s: float = 0.0
    finish_reason: str = "stop"
    cached_tokens: int = 0


@dataclass
class Answering:
    """Which backend answers from here on; only a backend over several (:mod:`streamtwin.llm.failover`) sends it,
    before that backend's first :class:`Delta`.

    ``route``: primary, race or fallback (:mod:`streamtwin.llm.routing`); ``reason``: why not the one
    before.  ``restart``: ``previous`` failed after its first token; the text it gave is withdrawn and
    the deltas that follow start the answer again.
    """

    backend: str
    model: str
    route: str
    reason: str = ""
    previous: str = ""
    restart: bool = False


StreamItem = Delta | Finished | Answering


class LLMError(Exception):
    """A backend failure.  ``code``: unreachable, auth, rate_limited, server, stream_broken,
    bad_request, timeout, model_missing."""

    def __init__(self, code: str, message: str, retry_after: float | None = None):
        super().__init__(message)
        self.code = code
        self.message = message
        self.retry_after = retry_after


class Backend(Protocol):
    name: str  # "groq", "openai", "local", ...
    model: str
    context_tokens: int  # prompt budget the context window should fill
    max_in_flight: int  # concurrent generations this backend sustains
    supports_images: bool

    def stream(self, request: ChatRequest) -> AsyncIterator[StreamItem]: ...

    async def aclose(self) -> None: ...
