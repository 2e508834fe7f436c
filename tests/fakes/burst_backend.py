"""A backend of unbounded speed that yields its tokens in bursts, as a client reading a fast socket would."""

from __future__ import annotations

import asyncio
from typing import AsyncIterator

from streamtwin.llm.backend import ChatRequest, Delta, Finished, StreamItem


class BurstBackend:
    """Yields ``bursts`` (lists of tokens); waits for the loop only between bursts, as a socket reader
    would, so the last burst and the end arrive in one turn."""

    name = "bursts"
    model = "bursts-1"
    context_tokens = 4096
    max_in_flight = 1
    supports_images = False

    def __init__(self, bursts: list[list[str]], gate_after: int | None = None) -> None:
        self.bursts = bursts
        self.gate = asyncio.Event()
        self.gate_after = gate_after  # the burst before which the stream waits on ``gate`` (never set: hangs)

    async def stream(self, request: ChatRequest) -> AsyncIterator[StreamItem]:
        for index, burst in enumerate(self.bursts):
            if index == self.gate_after:
                await self.gate.wait()
            elif index:
                await asyncio.sleep(0)
            for token in burst:
                yield Delta(token)
        yield Finished(completion_tokens=sum(map(len, self.bursts)))

    async def aclose(self) -> None:
        pass
