"""Whether the event store can be written to now, asked twice a second: what ``/healthz`` says.

The log writer learns of an outage only when an append fails, and of the end of one only when a retry
succeeds (after a backoff of up to 5 s): with nothing to write, ``/healthz`` said ``ok`` with Redis gone,
and ``degraded`` for seconds after it was back.  :class:`StoreHealth` probes the store with a small write
of its own every ``every_s`` (a write, so a Redis that answers but refuses writes, out of memory, counts
as down), each probe cut off after ``timeout_s``: a store that stops answering or refuses writes is seen
within ``every_s + timeout_s`` (1.5 s), one that is back within ``every_s``, and the writer is told to
retry at once.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

from streamtwin.eventlog.stopping import stop
from streamtwin.eventlog.store import EventStore, StoreUnavailable

log = logging.getLogger(__name__)

PROBE_EVERY_S = 0.5
PROBE_TIMEOUT_S = 1.0


class StoreHealth:
    def __init__(
        self,
        store: EventStore,
        node: str,
        *,
        on_recovered: Callable[[], None] = lambda: None,
        every_s: float = PROBE_EVERY_S,
        timeout_s: float = PROBE_TIMEOUT_S,
    ):
        self.healthy = True
        self._store = store
        self._node = node
        self._on_recovered = on_recovered
        self._every_s = every_s
        self._timeout_s = timeout_s
        self._closing = False
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.ensure_future(self._run())

    async def check(self) -> bool:
        """One probe; returns (and keeps) whether the store took the write in time."""
        try:
            async with asyncio.timeout(self._timeout_s):
                await self._store.probe(self._node)
            healthy = True
        except (StoreUnavailable, TimeoutError) as exc:
            log.debug("event store probe: %s", exc or "no answer")
            healthy = False
        if healthy and not self.healthy:
            self._on_recovered()
        self.healthy = healthy
        return healthy

    async def close(self) -> None:
        """Stop probing (the flag, then the cancel: see :func:`~streamtwin.eventlog.stopping.stop`)."""
        self._closing = True
        await stop(self._task)

    async def _run(self) -> None:
        while not self._closing:
            try:
                await self.check()
            except Exception:  # a bug: the store is taken for down, the probing goes on
                log.exception("probing the event store failed")
                self.healthy = False
            await asyncio.sleep(self._every_s)
