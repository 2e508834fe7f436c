"""One hosted backend whose stalled streams end the call in seconds, not at its SDK's read timeout.

With several backends a stalled member is cut off and the next takes over
(:mod:`streamtwin.llm.failover`).  A single backend has nothing to take over, but a
stream that went quiet must still end soon: else the generation hangs, unreported,
until the SDK gives up (60 s OpenAI, 30 s Groq).  :class:`WatchedBackend` judges
each stream by the same :class:`~streamtwin.llm.routing.TokenDeadline` and raises
``LLMError("timeout")``, which the assistant reports (``llm_timeout``) and backs off
from like any other failure.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Callable

from streamtwin.llm.backend import Backend, ChatRequest, Delta, LLMError, StreamItem
from streamtwin.llm.routing import TokenDeadline


class WatchedBackend:
    """``backend`` with a first-token and a stall timeout on every stream; otherwise the same."""

    def __init__(
        self,
        backend: Backend,
        *,
        first_token_s: float,
        stall_s: float,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.backend = backend
        self.first_token_s = first_token_s
        self.stall_s = stall_s
        self.clock = clock
        self.name = backend.name
        self.model = backend.model
        self.context_tokens = backend.context_tokens
        self.max_in_flight = backend.max_in_flight
        self.supports_images = backend.supports_images

    async def stream(self, request: ChatRequest) -> AsyncIterator[StreamItem]:
        """The backend's stream; waiting past the deadline closes it and raises ``LLMError("timeout")``."""
        clock = self.clock
        watch = TokenDeadline(clock(), self.first_token_s, self.stall_s)
        async with contextlib.aclosing(self.backend.stream(request)) as items:
            while True:
                # Only the wait for the next item is bounded: a timeout across the yield would cancel
                # whatever the consumer awaits meanwhile.
                cutoff = asyncio.timeout(max(0.0, watch.deadline() - clock()))
                try:
                    async with cutoff:
                        item = await anext(items)
                except StopAsyncIteration:
                    return
                except TimeoutError:
                    if not cutoff.expired():
                        raise
                    raise LLMError("timeout", watch.why()) from None
                if type(item) is Delta:
                    watch.last_token = clock()
                yield item

    async def aclose(self) -> None:
        await self.backend.aclose()
