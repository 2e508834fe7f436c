"""One node's side of the event log: the only object the server needs.

The server tells it when a session starts and ends here and hands it every event it sends to viewers
(the same bytes, with their seq); it asks it where a session runs and whether the store is degraded
(``/healthz``); viewers fed from the log read its store (:mod:`streamtwin.eventlog.tail`).  Underneath: the
store, the node's :class:`~streamtwin.eventlog.writer.LogWriter` and its
:class:`~streamtwin.eventlog.node.NodeKeeper`.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from typing import Any, Callable

from streamtwin.config import Config
from streamtwin.eventlog.health import StoreHealth
from streamtwin.eventlog.store import EventStore, SessionRecord, StoreUnavailable
from streamtwin.eventlog.node import NodeKeeper
from streamtwin.eventlog.open import open_store
from streamtwin.eventlog.writer import LogWriter

log = logging.getLogger(__name__)

END_FLUSH_S = 5.0  # closing the node: how long its last events may take to be stored
SEAL_WAIT_S = 600.0  # an ended session is sealed once its last event is stored, or after this long anyway


class NodeLog:
    def __init__(
        self,
        store: EventStore,
        node: str,
        *,
        on_unavailable: Callable[[str], None] = lambda reason: None,
        on_recovered: Callable[[], None] = lambda: None,
        on_reaped: Callable[[list[str]], None] = lambda sessions: None,
        on_lost: Callable[[str, int], None] = lambda session, first: None,
        viewer_counts: Callable[[], dict[str, int]] = dict,
        clock: Callable[[], float] = time.time,
    ):
        """``on_unavailable``: emit ``store_unavailable`` to this node's sessions (once per outage);
        ``on_reaped``: sessions of a dead node were ended (their viewers here learn it from the log);
        ``on_lost(session, first)``: a session's events from seq ``first`` on will not all be in the log."""
        self.store = store
        self.node = node
        self._clock = clock
        self._sessions: dict[str, float] = {}  # live here: id -> started
        self._viewer_keys: dict[str, str] = {}  # live here: id -> digest of its viewer token
        self._sealing: set[asyncio.Task[None]] = set()  # ended here, to be sealed in the store
        self.writer = LogWriter(
            store, on_unavailable=on_unavailable, on_recovered=lambda: self._writes_again(on_recovered),
            on_lost=on_lost, clock=clock,
        )
        self.health = StoreHealth(store, node, on_recovered=self.writer.retry_now)
        self.health.start()
        self.keeper = NodeKeeper(
            store, node, lambda: dict(self._sessions), on_reaped=on_reaped,
            viewer_key=lambda session: self._viewer_keys.get(session, ""), viewer_counts=viewer_counts, clock=clock,
        )
        self.keeper.start()

    @classmethod
    async def open(cls, config: Config, node: str = "", **callbacks: Any) -> NodeLog:
        """The node's log on the store ``config`` names (in memory without ``--redis``); raises
        :class:`~streamtwin.eventlog.open.StoreError` with one line for a bad URL or an unreachable Redis."""
        return cls(await open_store(config), node or secrets.token_hex(6), **callbacks)

    def _writes_again(self, on_recovered: Callable[[], None]) -> None:
        """The writer's appends go in again: so does a probe (no need to wait for the next one to say so)."""
        self.health.healthy = True
        on_recovered()

    @property
    def degraded(self) -> bool:
        """The store does not take writes (its probe fails), or events wait for it in the writer's queue."""
        return not self.health.healthy or self.writer.degraded

    async def session_started(self, session: str, viewer_key: str = "") -> None:
        """``viewer_key``: :func:`~streamtwin.service.access.token_digest` of its viewer token (never the token)."""
        self._sessions[session] = self._clock()
        self._viewer_keys[session] = viewer_key
        try:
            await self.store.register(session, self.node, self._sessions[session], viewer_key)
        except StoreUnavailable:
            pass  # the keeper registers it at its first beat after the store is back

    def append(self, session: str, seq: int, data: bytes) -> None:
        """An event of a session run here, as its viewers get it (never blocks)."""
        self.writer.submit(session, seq, data)

    def session_ended(self, session: str, last_seq: int) -> None:
        """After ``session.ended`` (seq ``last_seq``): once that is stored (the store may be down: then
        later), the session is sealed and its log expires ``log_expire_s`` later.  Never blocks."""
        self._sessions.pop(session, None)
        self._viewer_keys.pop(session, None)
        task = asyncio.ensure_future(self._seal(session, last_seq))
        self._sealing.add(task)
        task.add_done_callback(self._sealing.discard)

    async def _seal(self, session: str, last_seq: int) -> None:
        if not await self.writer.written_through(session, last_seq, SEAL_WAIT_S):
            log.warning("session %s: its last events were not stored within %.0f s", session, SEAL_WAIT_S)
        failures = 0
        while True:
            try:
                await self.store.end(session)
                break
            except StoreUnavailable:
                failures += 1
                await asyncio.sleep(self.writer.queue.backoff.delay(failures))
        self.writer.forget(session)

    async def viewers_elsewhere(self, session: str) -> int:
        """Viewers of ``session`` on the other nodes, as counted at their last heartbeat (0 while the store
        is unreachable: a viewer is not refused for that)."""
        try:
            counts = await self.store.viewers(session, self._clock())
        except StoreUnavailable:
            return 0
        return sum(count for node, count in counts.items() if node != self.node)

    async def record(self, session: str) -> SessionRecord | None:
        """Where a session runs, and its state (None: unknown or expired)."""
        return await self.store.record(session)

    async def sealed(self, timeout_s: float) -> bool:
        """Wait until every session that ended here is sealed in the store; False if ``timeout_s`` ran out."""
        if self._sealing:
            _, late = await asyncio.wait(list(self._sealing), timeout=timeout_s)
            return not late
        return True

    async def close(self, flush_timeout_s: float = END_FLUSH_S) -> None:
        """Store what is waiting (within ``flush_timeout_s``), seal the ended sessions, stop."""
        if await self.writer.flushed(flush_timeout_s):
            await self.sealed(flush_timeout_s)
        for task in list(self._sealing):
            task.cancel()
        await self.keeper.close()
        await self.health.close()
        await self.writer.close()
        await self.store.close()
