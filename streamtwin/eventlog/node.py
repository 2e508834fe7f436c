"""This node in the session directory: its heartbeat, its sessions registered (again, after a Redis that
restarted empty), its viewer counts (so a session's viewer limit holds across nodes), and the reaping of
sessions whose node died.

Every node runs one :class:`NodeKeeper`.  A beat every ``node_expiry_s / 10`` keeps this node's sessions
from being reaped while it lives; the same beat reaps the sessions of nodes silent for longer than
``node_expiry_s`` less one beat (whichever node gets there first appends ``node_lost`` and
``session.ended``), so their viewers are told within ``node_expiry_s`` of the death (with a beat every
third of the expiry they were told 9-12.6 s after a SIGKILL: ``bench.node_loss``).  A node
reaps only once it has reached the store for a whole ``node_expiry_s``: after a store outage every node's
heartbeat is stale, and each must get that long to beat again before its silence means it is dead.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Callable

from streamtwin.eventlog.stopping import stop
from streamtwin.eventlog.store import EventStore, StoreUnavailable

log = logging.getLogger(__name__)

BEATS_PER_EXPIRY = 10


class NodeKeeper:
    def __init__(
        self,
        store: EventStore,
        node: str,
        sessions: Callable[[], dict[str, float]],
        *,
        on_reaped: Callable[[list[str]], None] = lambda sessions: None,
        viewer_key: Callable[[str], str] = lambda session: "",
        viewer_counts: Callable[[], dict[str, int]] = dict,
        clock: Callable[[], float] = time.time,
    ):
        """``sessions()`` gives the live sessions this node runs, with their start (wall clock);
        ``viewer_key(session)`` what the directory keeps of its viewer token; ``viewer_counts()`` how many
        viewers of each session this node serves (of its own sessions and of other nodes')."""
        self.store = store
        self.node = node
        self.every_s = store.settings.node_expiry_s / BEATS_PER_EXPIRY
        self._sessions = sessions
        self._on_reaped = on_reaped
        self._viewer_key = viewer_key
        self._viewer_counts = viewer_counts
        self._counted: set[str] = set()  # sessions this node last said it had viewers of
        self._reachable_since: float | None = None  # the store answered every beat since then
        self._clock = clock
        self._task: asyncio.Task[None] | None = None
        self._closing = False

    def start(self) -> None:
        self._task = asyncio.ensure_future(self._run())

    async def close(self) -> None:
        """Stop beating (the flag, then the cancel: see :func:`~streamtwin.eventlog.stopping.stop`)."""
        self._closing = True
        await stop(self._task)

    async def beat(self) -> list[str]:
        """One heartbeat: this node is alive, its sessions are in the directory, its viewer counts are
        told, dead nodes' sessions are reaped.  Returns the sessions reaped."""
        now = self._clock()
        try:
            await self.store.heartbeat(self.node, now)
            if self._reachable_since is None:
                self._reachable_since = now
            for session, started in self._sessions().items():
                if await self.store.record(session) is None:  # the store forgot it (restarted empty)
                    await self.store.register(session, self.node, started, self._viewer_key(session))
            counts = {session: count for session, count in self._viewer_counts().items() if count}
            await self.store.count_viewers(
                self.node, {**dict.fromkeys(self._counted - counts.keys(), 0), **counts}, now
            )
            self._counted = set(counts)
            if now - self._reachable_since < self.store.settings.node_expiry_s:
                return []
            reaped = await self.store.reap_lost(now, self.store.settings.node_expiry_s - self.every_s)
        except StoreUnavailable:
            self._reachable_since = None
            raise
        if reaped:
            log.warning("sessions of a dead node marked lost: %s", ", ".join(reaped))
            self._on_reaped(reaped)
        return reaped

    async def _run(self) -> None:
        while not self._closing:
            try:
                await self.beat()
            except StoreUnavailable as exc:  # the log writer reports outages; keep beating
                log.debug("heartbeat: %s", exc)
            except Exception:
                log.exception("heartbeat failed")
            await asyncio.sleep(self.every_s)
