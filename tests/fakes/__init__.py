"""Test doubles: a scripted in-process Backend and a loopback OpenAI/Groq HTTP server."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

import pytest

from streamtwin.llm.backend import (
    Backend,
    ChatRequest,
    Delta,
    Finished,
    LLMError,
    StreamItem,
)

# A short chat prompt for the LLM backend tests.
MESSAGES = [
    {"role": "system", "content": "You follow a live meeting."},
    {"role": "user", "content": "Alice: the launch moves to Friday."},
]


async def collect(stream: AsyncIterator[StreamItem]) -> tuple[list[str], Finished]:
    """Drain a backend stream, checking the contract: deltas, then exactly one Finished, last."""
    deltas: list[str] = []
    finished: list[Finished] = []
    async for item in stream:
        assert not finished, "nothing may follow Finished"
        if isinstance(item, Delta):
            deltas.append(item.text)
        else:
            assert isinstance(item, Finished), item
            finished.append(item)
    assert len(finished) == 1, "a stream ends with exactly one Finished"
    return deltas, finished[0]


async def expect_llm_error(client: Backend, request: ChatRequest) -> LLMError:
    """Stream ``request`` on a client made for this one call, close it, return the LLMError it raised."""
    async with contextlib.aclosing(client):
        with pytest.raises(LLMError) as caught:
            await collect(client.stream(request))
    return caught.value


async def abandon_after_first_delta(stream: AsyncIterator[StreamItem], how: str) -> None:
    """Stop consuming a stream mid-reply the two ways a driver does: ``cancel`` the task
    that iterates it, or ``close`` the generator after leaving the loop."""
    first = asyncio.Event()

    async def consume() -> None:
        async with contextlib.aclosing(stream) as items:
            async for item in items:
                if isinstance(item, Delta):
                    first.set()
                    if how == "close":
                        return

    task = asyncio.create_task(consume())
    await asyncio.wait_for(first.wait(), 10)
    if how == "cancel":
        task.cancel()
    await asyncio.gather(task, return_exceptions=True)
    assert task.cancelled() == (how == "cancel")
