"""A node's one writer to the event store: events in, appended in order, a store outage ridden out.

:meth:`LogWriter.submit` is synchronous and never blocks (a bus subscriber calls it); one task appends
what was submitted, oldest first.  The thinking (bounds, loss reports, backoff, "report once") is
:class:`~streamtwin.eventlog.logwrites.WriteQueue`; this class only does the I/O and tells the server
through ``on_unavailable``/``on_recovered`` (it emits ``store_unavailable`` to its sessions and says
``degraded`` on ``/healthz`` meanwhile).
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Callable

from streamtwin.eventlog.logwrites import Write, WriteQueue
from streamtwin.eventlog.stopping import stop
from streamtwin.eventlog.store import Append, EventStore, LostEntries, StoreUnavailable

log = logging.getLogger(__name__)

BATCH = 256  # appends per round trip to the store


class LogWriter:
    def __init__(
        self,
        store: EventStore,
        queue: WriteQueue | None = None,
        *,
        on_unavailable: Callable[[str], None] = lambda reason: None,
        on_recovered: Callable[[], None] = lambda: None,
        on_lost: Callable[[str, int], None] = lambda session, first: None,
        clock: Callable[[], float] = time.time,
    ):
        """``on_lost(session, first)``: events of ``session`` from seq ``first`` on will not be in the log (once
        until that loss is reported in the log; called on a later turn of the loop, never inside ``submit``,
        since telling the session's viewers is an event of that session)."""
        self.store = store
        self.queue = queue or WriteQueue()
        self._on_unavailable = on_unavailable
        self._on_recovered = on_recovered
        self._on_lost = on_lost
        self._clock = clock
        self._written: dict[str, int] = {}  # per session: the seq this writer appended last
        self._wake = asyncio.Event()
        self._retry = asyncio.Event()  # set to cut a backoff short
        self._idle = asyncio.Event()
        self._progress = asyncio.Event()  # set (and replaced) whenever writes went in
        self._closing = False
        self._task = asyncio.ensure_future(self._run())

    @property
    def degraded(self) -> bool:
        return self.queue.degraded

    def submit(self, session: str, seq: int, data: bytes) -> None:
        """Queue one event of ``session`` (seqs of a session in increasing order)."""
        self.queue.push(session, seq, data)
        self._tell_losses()
        self._idle.clear()
        self._wake.set()

    def retry_now(self) -> None:
        """The store answers again: try what waits now, not after the backoff."""
        self.queue.retry_now()
        self._retry.set()

    def _tell_losses(self) -> None:
        for session, first in self.queue.take_news():
            asyncio.get_running_loop().call_soon(self._on_lost, session, first)

    def forget(self, session: str) -> None:
        """The session ended here: stop tracking what was written for it."""
        self._written.pop(session, None)

    async def flushed(self, timeout_s: float | None = None) -> bool:
        """Wait until everything submitted is in the store; False if ``timeout_s`` ran out first."""
        try:
            await asyncio.wait_for(self._idle.wait(), timeout_s)
        except TimeoutError:
            return False
        return True

    async def written_through(self, session: str, seq: int, timeout_s: float) -> bool:
        """Wait until ``session``'s events up to ``seq`` are in the store; False if ``timeout_s`` ran out."""
        try:
            async with asyncio.timeout(timeout_s):
                while self._written.get(session, 0) < seq:
                    await self._progress.wait()
        except TimeoutError:
            return False
        return True

    async def close(self) -> None:
        """Stop (the flag, then the cancel: see :func:`~streamtwin.eventlog.stopping.stop`)."""
        self._closing = True
        self._wake.set()
        await stop(self._task)

    async def _run(self) -> None:
        while not self._closing:
            now = self._clock()
            writes = self.queue.batch(now, BATCH)
            if not writes:
                if not self.queue.waiting:
                    self._idle.set()
                    self._wake.clear()
                    await self._wake.wait()
                else:  # backing off, unless the store is seen back (retry_now)
                    self._retry.clear()
                    try:
                        await asyncio.wait_for(self._retry.wait(), max(0.0, self.queue.retry_at - now))
                    except TimeoutError:
                        pass
                continue
            try:
                results = await self.store.append_many(self._appends(writes))
            except Exception as exc:  # unreachable (or a surprise): keep the events, try again after a while
                if not isinstance(exc, StoreUnavailable):
                    log.exception("appending to the event store failed")
                if self.queue.failed(self._clock()):
                    log.warning("event store unavailable, buffering events: %s", exc)
                    self._on_unavailable(str(exc))
                continue
            self._settle(writes, results)
            self._tell_losses()

    def _appends(self, writes: list[Write]) -> list[Append]:
        """Each write with the seq the log must end at before it (None for a loss report)."""
        last = dict(self._written)
        appends: list[Append] = []
        for write in writes:
            appends.append((write.session, write.seq, write.data, None if write.report else last.get(write.session)))
            last[write.session] = write.seq
        return appends

    def _settle(self, writes: list[Write], results: list[int | Exception]) -> None:
        """Outcomes, oldest first, up to the first that did not go in: the writes after it are tried again
        (any that went in are recognised as retries)."""
        self._progress.set()
        self._progress = asyncio.Event()
        for write, result in zip(writes, results):
            if isinstance(result, LostEntries):
                log.warning("%s: reporting the lost events", result)
                self._answered(self.queue.store_lost(write.session, result.top + 1, result.expected))
                return
            if isinstance(result, Exception):
                log.warning("event store refused an event of session %s: %s", write.session, result)
                self._answered(self.queue.refused())
                return
            self._written[write.session] = write.seq
            self._answered(self.queue.written())

    def _answered(self, recovered: bool) -> None:
        if recovered:
            log.warning("event store reachable again; %d events waiting", self.queue.waiting)
            self._on_recovered()
