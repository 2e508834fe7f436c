"""A Backend whose replies, delays and failures are scripted per call.

Every request is recorded, so tests can assert what reached the model's prompt;
counters show how many calls ran at once and how many were cancelled.  Replies
come from a list (one per call, in order, then ``default``) or from a function
of the request, which lets a test answer twin, summary and answer calls
differently.
"""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass, field
from typing import AsyncIterator, Callable, Sequence

from streamtwin.llm.backend import ChatRequest, Delta, Finished, LLMError, StreamItem


@dataclass
class Reply:
    """One scripted call: deltas (a string is split into word-sized pieces), timing, failure."""

    deltas: str | list[str] = "ok"
    first_delay_s: float = 0.0
    delta_delay_s: float = 0.0
    error: LLMError | None = None  # raised after ``error_after`` deltas (0: before any)
    error_after: int = 0
    endless: bool = False  # keeps yielding past its deltas (bounded only by request.max_tokens if honoured)
    honour_max_tokens: bool = True
    gate: asyncio.Event | None = None  # the first delta waits for this

    def pieces(self) -> list[str]:
        if isinstance(self.deltas, list):
            return list(self.deltas)
        return re.findall(r"\s*\S+", self.deltas)


Responder = Callable[[ChatRequest, int], Reply]


@dataclass
class ScriptedBackend:
    script: Sequence[Reply] | Responder = ()
    default: Reply = field(default_factory=Reply)
    name: str = "scripted"
    model: str = "scripted-1"
    context_tokens: int = 4096
    max_in_flight: int = 1
    supports_images: bool = False

    def __post_init__(self) -> None:
        self.requests: list[ChatRequest] = []
        self.active = 0
        self.max_active = 0
        self.cancelled = 0
        self.completed = 0
        self.closed = False

    def _reply_for(self, request: ChatRequest, index: int) -> Reply:
        if callable(self.script):
            return self.script(request, index)
        return self.script[index] if index < len(self.script) else self.default

    async def stream(self, request: ChatRequest) -> AsyncIterator[StreamItem]:
        index = len(self.requests)
        self.requests.append(request)
        reply = self._reply_for(request, index)
        self.active += 1
        self.max_active = max(self.max_active, self.active)
        try:
            if reply.gate is not None:
                await reply.gate.wait()
            if reply.first_delay_s:
                await asyncio.sleep(reply.first_delay_s)
            pieces = reply.pieces()
            sent = 0
            while sent < len(pieces) or reply.endless:
                if reply.error is not None and sent == reply.error_after:
                    raise reply.error
                if reply.honour_max_tokens and sent >= request.max_tokens:
                    break
                if sent and reply.delta_delay_s:
                    await asyncio.sleep(reply.delta_delay_s)
                elif reply.endless:
                    await asyncio.sleep(0)  # a model that never stops still yields to the loop
                yield Delta(pieces[sent % len(pieces)] if pieces else "x")
                sent += 1
            if reply.error is not None and sent == reply.error_after:
                raise reply.error
            self.completed += 1
            yield Finished(completion_tokens=sent, finish_reason="length" if sent >= request.max_tokens else "stop")
        except (asyncio.CancelledError, GeneratorExit):
            self.cancelled += 1
            raise
        finally:
            self.active -= 1

    async def aclose(self) -> None:
        self.closed = True


def is_twin_request(request: ChatRequest) -> bool:
    return request.response_format is not None


def last_user_text(request: ChatRequest) -> str:
    return next((m["content"] for m in reversed(request.messages) if m["role"] == "user"), "")
