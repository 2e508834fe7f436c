"""The stream-and-error loop the two official SDK backends share (Groq's and OpenAI's).

Both SDKs open a streamed chat completion with ``client.chat.completions.create(...)``, yield
``chat.completion.chunk`` objects and fail with their own exception types; what differs is only which
exceptions they raise and how those map to :class:`~streamtwin.llm.backend.LLMError` codes, so each backend
passes its call and its mapper and this loop does the rest (the chunk format is
:mod:`streamtwin.llm.openai_wire`'s).
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

from streamtwin.llm.backend import Delta, LLMError, StreamItem
from streamtwin.llm.openai_wire import ChunkAccumulator

ErrorMapper = Callable[[Exception, bool], LLMError]  # (the SDK's error, during the stream?) -> our error


async def stream_completion(
    create: Callable[[], Awaitable[Any]], errors: tuple[type[Exception], ...], map_error: ErrorMapper
) -> AsyncIterator[StreamItem]:
    """Yield deltas then one Finished; cancelling the consumer closes the HTTP stream.  An SDK error
    (``errors``) before the stream or during it, or a garbage chunk (ValueError), becomes an LLMError."""
    started = time.monotonic()
    try:
        response = await create()
    except errors as exc:
        raise map_error(exc, False) from exc
    accumulator = ChunkAccumulator(started)
    try:
        async for chunk in response:
            text = accumulator.feed(chunk.to_dict(), time.monotonic())
            if text:
                yield Delta(text)
    except (*errors, ValueError) as exc:
        raise map_error(exc, True) from exc
    finally:
        await response.close()
    # Usage and timing travel to the caller in Finished (and on to assistant.done).
    yield accumulator.finish(time.monotonic())
