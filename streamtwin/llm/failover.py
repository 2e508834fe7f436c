"""Several backends behind one: failover and racing (``--llm-fallback``, ``--llm-race``).

The decisions are :class:`~streamtwin.llm.routing.CallRouter`'s; this adapter runs
them.  Each launched member streams in a task of its own into one queue; a timer
wakes the router when a member's first token or next token is due.  Only the
answering member's tokens pass on, announced first by an :class:`Answering` item
(which backend answers, why, and whether the text shown so far is withdrawn because
the one before failed mid-stream).  Cancelling the consumer cancels every member's
stream.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator, Callable, Sequence
from typing import Any

from streamtwin.llm.backend import Answering, Backend, ChatRequest, Delta, Finished, LLMError, StreamItem
from streamtwin.llm.routing import Action, Answer, BackendHealth, CallRouter, Cancel, GiveUp, Launch

log = logging.getLogger(__name__)

_TICK = object()  # the timer's wake-up in the queue
_END = object()  # a member's stream ended without Finished (a broken backend)


class FailoverBackend:
    """The first ``race`` members are sent each request together; the others take over in order."""

    def __init__(
        self,
        members: Sequence[Backend],
        *,
        race: int = 1,
        first_token_s: float = 5.0,
        stall_s: float = 3.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if len(members) < 2:
            raise ValueError("failover and racing need at least two backends")
        self.members = list(members)
        self.race = max(1, min(race, len(self.members)))
        self.first_token_s = first_token_s
        self.stall_s = stall_s
        self.health = BackendHealth()
        self.clock = clock
        joiner = "|" if self.race > 1 else ">"
        self.name = joiner.join(member.name for member in self.members)
        self.model = self.members[0].model
        # Every call may end on any member: only what all of them take.
        self.context_tokens = min(member.context_tokens for member in self.members)
        self.max_in_flight = min(member.max_in_flight for member in self.members)
        self.supports_images = all(member.supports_images for member in self.members)

    async def start(self) -> None:
        """Load what loads (a local model): a fallback must not pay for that when it takes over."""
        for member in self.members:
            start = getattr(member, "start", None)
            if start is not None:
                await start()

    async def aclose(self) -> None:
        for member in self.members:
            await member.aclose()

    async def stream(self, request: ChatRequest) -> AsyncIterator[StreamItem]:
        router = CallRouter(
            self.health, len(self.members), self.race, self.first_token_s, self.stall_s,
            names=[member.name for member in self.members],
        )
        call = _Call(self, request, router)
        try:
            async for item in call.run():
                yield item
        finally:
            await call.stop()


class _Call:
    """One request's members, their queue and the router's timer."""

    def __init__(self, backend: FailoverBackend, request: ChatRequest, router: CallRouter) -> None:
        self.backend = backend
        self.request = request
        self.router = router
        self.queue: asyncio.Queue[tuple[int, int, Any]] = asyncio.Queue()
        self.tasks: dict[int, asyncio.Task[None]] = {}  # each member's latest stream
        self.launches: dict[int, int] = {}  # how many times each member was launched in this call
        self._all_tasks: list[asyncio.Task[None]] = []
        self.errors: dict[int, LLMError] = {}
        self._timer: asyncio.TimerHandle | None = None
        self._timer_at: float | None = None

    async def run(self) -> AsyncIterator[StreamItem]:
        clock, router = self.backend.clock, self.router
        for announced in self._apply(router.start(clock())):
            yield announced
        self._arm()
        while True:
            member, launch, item = await self.queue.get()
            if item is not _TICK and launch != self.launches[member]:
                continue  # from a stream cancelled before this member was launched again
            if type(item) is Delta and member == router.answering:  # the hot path: a timestamp per token
                router.on_token(member, clock())
                yield item
                continue
            if type(item) is Delta:
                pending = self._apply(router.on_token(member, clock()))
                if member == router.answering:  # its first token: it answers from now on
                    pending.append(item)
            elif isinstance(item, Finished):
                pending = self._apply(router.on_finished(member, clock()))
                if member == router.answering:
                    for announced in pending:  # an empty answer is announced too
                        yield announced
                    yield item
                    return
            elif item is _TICK:
                pending = self._apply(router.tick(clock()))
            else:
                error = item if isinstance(item, LLMError) else LLMError("stream_broken", "stream ended early")
                self.errors[member] = error
                pending = self._apply(router.on_error(member, clock(), f"{error.code} ({error.message})",
                                                      error.retry_after))
            for passed_on in pending:
                yield passed_on
            self._arm()

    def _apply(self, actions: list[Action]) -> list[StreamItem]:
        """Carry the router's actions out; returns what the consumer is to see."""
        items: list[StreamItem] = []
        members = self.backend.members
        for action in actions:
            if isinstance(action, Launch):
                launch = self.launches[action.member] = self.launches.get(action.member, 0) + 1
                name = f"llm-{members[action.member].name}"
                task = asyncio.create_task(self._pump(action.member, launch), name=name)
                self.tasks[action.member] = task
                self._all_tasks.append(task)
            elif isinstance(action, Cancel):
                task = self.tasks.get(action.member)
                if task is not None:
                    task.cancel()
                log.debug("LLM %s cancelled: %s", members[action.member].name, action.reason)
            elif isinstance(action, Answer):
                member = members[action.member]
                previous = "" if action.previous is None else members[action.previous].name
                if action.reason:
                    log.warning("LLM %s answers (%s): %s", member.name, action.route, action.reason)
                items.append(
                    Answering(member.name, member.model, action.route, action.reason, previous, action.restart)
                )
            elif isinstance(action, GiveUp):
                error = self.errors.get(action.member)
                if action.stalled or error is None:
                    raise LLMError("timeout", f"no backend answered: {action.reason}")
                raise LLMError(error.code, f"no backend answered: {action.reason}", error.retry_after)
        return items

    async def _pump(self, member: int, launch: int) -> None:
        """One member's stream into the queue; its failure too, as an item."""
        put = self.queue.put_nowait
        try:
            async with contextlib.aclosing(self.backend.members[member].stream(self.request)) as items:
                async for item in items:
                    put((member, launch, item))
                    if isinstance(item, Finished):
                        return
            put((member, launch, _END))
        except LLMError as exc:
            put((member, launch, exc))
        except Exception as exc:  # noqa: BLE001 - a broken backend is a failed member, not a dead call
            log.error("LLM %s failed unexpectedly", self.backend.members[member].name, exc_info=exc)
            put((member, launch, LLMError("internal", f"{type(exc).__name__}: {exc}")))

    def _arm(self) -> None:
        """Wake the router at its next deadline; a timer already due no later is kept (tokens move deadlines
        later, so most wake-ups find nothing due and re-arm once)."""
        due = self.router.next_deadline()
        if due is None or (self._timer is not None and self._timer_at is not None and self._timer_at <= due):
            return
        if self._timer is not None:
            self._timer.cancel()
        loop = asyncio.get_running_loop()
        delay = max(0.0, due - self.backend.clock())
        self._timer_at = due
        self._timer = loop.call_later(delay, self._wake)

    def _wake(self) -> None:
        self._timer = self._timer_at = None
        self.queue.put_nowait((-1, 0, _TICK))

    async def stop(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
        for task in self._all_tasks:
            task.cancel()
        await asyncio.gather(*self._all_tasks, return_exceptions=True)
