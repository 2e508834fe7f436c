"""Test doubles: a scripted in-process Backend and a loopback OpenAI/Groq HTTP server."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

from pipeline.llm.base import Delta, Finished, StreamItem


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
