"""One backend call at a time per slot, bounded by a wall-time cap, with its timing kept.

Answers, twin updates and summary folds all reach the backend through one
:class:`Caller`: it owns the slots (how many calls the backend sustains at once),
closes an abandoned stream promptly (freeing a local model), measures each
stream even when it is cancelled half-way, and reports the speed of every
completed one to the :class:`~streamtwin.assistant.effort.EffortPolicy`.
"""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass
from typing import Any, AsyncIterator, Callable

from streamtwin.events import Error, Event
from streamtwin.llm.backend import Answering, Backend, ChatRequest, Delta, Finished, StreamItem
from streamtwin.assistant.effort import EffortPolicy


@dataclass
class StreamStats:
    """Progress of one backend stream, readable even if the stream was cancelled."""

    began: float = 0.0
    first_token: float | None = None
    ended: float | None = None
    deltas: int = 0
    finished: Finished | None = None
    timed_out: bool = False
    text: str = ""

    def tokens(self) -> int:
        reported = self.finished.completion_tokens if self.finished else 0
        return reported or self.deltas

    def ttft_ms(self) -> float | None:
        return None if self.first_token is None else round((self.first_token - self.began) * 1000, 3)

    def tokens_per_s(self) -> float | None:
        if self.first_token is None or self.ended is None or self.ended <= self.first_token:
            return None
        return round(self.tokens() / (self.ended - self.first_token), 2)


@contextlib.asynccontextmanager
async def _closing(stream: AsyncIterator[StreamItem]) -> AsyncIterator[AsyncIterator[StreamItem]]:
    """Close ``stream`` promptly however iteration ends (frees the model on cancel).  A context, not a
    wrapping generator: every token would pay for a second generator frame."""
    try:
        yield stream
    finally:
        aclose = getattr(stream, "aclose", None)
        if aclose is not None:
            await aclose()


class Caller:
    def __init__(
        self,
        backend: Backend,
        emit: Callable[[Event], Any],
        clock: Callable[[], float],
        wall_time_cap_s: float,
        effort: EffortPolicy | None = None,
    ) -> None:
        self.backend = backend
        self._emit = emit
        self._clock = clock
        self.wall_time_cap_s = wall_time_cap_s
        self._effort = effort
        self.slots = asyncio.Semaphore(max(1, backend.max_in_flight))

    async def stream(
        self,
        request: ChatRequest,
        stats: StreamStats,
        on_delta: Callable[[str], Any] | None = None,
        on_answering: Callable[[Answering], Any] | None = None,
    ) -> str:
        """Stream one request (the caller holds a slot); bounded by the wall-time cap.

        ``on_delta`` gets the text once per event-loop turn: whatever the backend had
        ready before it next waited (one socket read's worth of chunks, say) arrives
        as one piece, so a fast model costs one event per turn, not one per token.
        A backend that never waits hands its text over when it ends.  ``on_answering``
        hears which backend answers, from a backend over several; when one takes over
        mid-stream (``restart``) the text so far is dropped from the result and the
        timing starts again at the new backend's first token.  ``stats`` times this stream alone: an answer
        asked again (its first reply failed the check) reports its second stream, never a first token
        from before it began."""
        stats.began = self._clock()
        stats.first_token, stats.ended, stats.deltas, stats.finished = None, None, 0, None
        loop = asyncio.get_running_loop()
        pieces: list[str] = []  # one per loop turn
        pending: list[str] = []  # this turn's tokens

        def hand_over() -> None:
            if not pending:
                return
            text = "".join(pending)
            stats.deltas += len(pending)
            pending.clear()
            pieces.append(text)
            if on_delta is not None:
                on_delta(text)

        try:
            async with asyncio.timeout(self.wall_time_cap_s):
                async with _closing(self.backend.stream(request)) as items:
                    async for item in items:
                        if isinstance(item, Delta):
                            pending.append(item.text)
                            if len(pending) == 1:  # the turn's first token: hand over once the backend waits
                                if stats.first_token is None:
                                    stats.first_token = self._clock()
                                loop.call_soon(hand_over)
                        elif isinstance(item, Finished):
                            stats.finished = item
                        else:
                            if item.restart:
                                pending.clear()
                                pieces.clear()
                                stats.deltas, stats.first_token = 0, None
                            hand_over()
                            if on_answering is not None:
                                on_answering(item)
        except TimeoutError:
            stats.timed_out = True
            cap = f"{self.wall_time_cap_s:g} s"
            self._emit(Error(code="llm_timeout", message=f"{self.backend.name}: cut off at the {cap} wall-time cap"))
        finally:
            hand_over()  # what came before the end (or the cancel) is shown, as it always was
            stats.ended = self._clock()
            stats.text = "".join(pieces)
        if self._effort is not None and stats.finished is not None and stats.first_token is not None:
            self._effort.observe_stream(
                stats.ended, stats.first_token - stats.began, stats.tokens(), stats.ended - stats.first_token
            )
        return stats.text

    async def collect(self, request: ChatRequest, budget_s: float | None = None) -> str:
        """One whole reply (twin, revision, summary); ``budget_s`` bounds the wait for a slot too."""
        async with asyncio.timeout(None if budget_s is None else max(0.0, budget_s)):
            async with self.slots:
                return await self.stream(request, StreamStats())
