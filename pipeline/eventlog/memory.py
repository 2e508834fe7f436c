"""The event store inside one process (the embedded default): bounded per session, forgotten
``expire_s`` after a session ends.  The same semantics as the Redis store, so the server need not know
which one it has."""

from __future__ import annotations

import asyncio
import time
from collections import deque
from dataclasses import dataclass, field, replace
from typing import Callable

from .base import (
    ENDED,
    LIVE,
    LOST,
    EventStore,
    LogEntry,
    LostEntries,
    SessionRecord,
    StaleAppend,
    StoreSettings,
)


@dataclass
class _Log:
    record: SessionRecord | None = None
    entries: deque[LogEntry] = field(default_factory=deque)
    bytes: int = 0
    last: int = 0
    expires_at: float | None = None


class MemoryStore(EventStore):
    def __init__(self, settings: StoreSettings | None = None, clock: Callable[[], float] = time.time):
        super().__init__(settings)
        self._clock = clock
        self._logs: dict[str, _Log] = {}
        self._heartbeats: dict[str, float] = {}
        self._viewers: dict[str, dict[str, tuple[int, float]]] = {}  # session -> node -> (count, when)
        self._tails: dict[str, set[asyncio.Event]] = {}  # readers waiting for a session's next entry

    def _log(self, session: str, create: bool = False) -> _Log | None:
        self._expire()
        log = self._logs.get(session)
        if log is None and create:
            log = self._logs[session] = _Log()
        return log

    def _expire(self) -> None:
        now = self._clock()
        for session in [s for s, log in self._logs.items() if log.expires_at is not None and log.expires_at <= now]:
            del self._logs[session]

    async def append(
        self, session: str, seq: int, data: bytes, *, expect: int | None = None, sealing: bool = False
    ) -> int:
        log = self._log(session, create=True)
        assert log is not None
        if log.record is not None and log.record.state != LIVE and not sealing:
            raise StaleAppend(f"session {session} is {log.record.state}")
        if seq <= log.last:
            same = next((entry for entry in reversed(log.entries) if entry.seq <= seq), None)
            if same is not None and same.seq == seq:  # a retry whose reply was lost
                return same.prev
            raise StaleAppend(f"seq {seq} is not after {log.last}")
        if expect is not None and expect != log.last:
            raise LostEntries(session, log.last, expect)
        prev, log.last = log.last, seq
        log.entries.append(LogEntry(seq, prev, data))
        log.bytes += len(data)
        while len(log.entries) > self.settings.maxlen or (log.bytes > self.settings.max_bytes and len(log.entries) > 1):
            log.bytes -= len(log.entries.popleft().data)
        for waiting in self._tails.pop(session, ()):
            waiting.set()
        return prev

    async def read_after(self, session: str, after: int, limit: int = 1000) -> list[LogEntry]:
        log = self._log(session)
        if log is None or after >= log.last:
            return []
        out = []
        for entry in log.entries:  # a bisect would do, but reads are of recent entries
            if entry.seq > after:
                out.append(entry)
                if len(out) >= limit:
                    break
        return out

    async def tail(self, session: str, after: int, timeout_s: float) -> list[LogEntry]:
        entries = await self.read_after(session, after)
        if entries:
            return entries
        grew = asyncio.Event()
        self._tails.setdefault(session, set()).add(grew)
        try:
            await asyncio.wait_for(grew.wait(), timeout_s)
        except TimeoutError:
            return []
        finally:
            waiting = self._tails.get(session)
            if waiting is not None:
                waiting.discard(grew)
                if not waiting:
                    del self._tails[session]
        return await self.read_after(session, after)

    async def last_seq(self, session: str) -> int:
        log = self._log(session)
        return log.last if log is not None else 0

    async def register(self, session: str, node: str, started: float, viewer_key: str = "") -> None:
        log = self._log(session, create=True)
        assert log is not None
        log.record = SessionRecord(session, node, LIVE, started, 0.0, viewer_key)

    async def heartbeat(self, node: str, now: float) -> None:
        self._heartbeats[node] = now

    async def record(self, session: str) -> SessionRecord | None:
        log = self._log(session)
        if log is None or log.record is None:
            return None
        return replace(log.record, heartbeat=self._heartbeats.get(log.record.node, 0.0))

    async def live_sessions(self) -> list[SessionRecord]:
        self._expire()
        records = [await self.record(session) for session, log in self._logs.items() if log.record is not None]
        return [record for record in records if record is not None and record.state == LIVE]

    async def end(self, session: str, state: str = ENDED) -> None:
        log = self._log(session, create=True)
        assert log is not None
        if log.record is not None:
            log.record = replace(log.record, state=state)
        log.expires_at = self._clock() + self.settings.expire_s

    async def count_viewers(self, node: str, counts: dict[str, int], now: float) -> None:
        for session, count in counts.items():
            nodes = self._viewers.setdefault(session, {})
            if count:
                nodes[node] = (count, now)
            else:
                nodes.pop(node, None)
                if not nodes:
                    del self._viewers[session]

    async def viewers(self, session: str, now: float) -> dict[str, int]:
        expiry = self.settings.node_expiry_s
        return {node: count for node, (count, at) in self._viewers.get(session, {}).items() if now - at <= expiry}

    async def _claim(self, session: str, node: str) -> bool:
        log = self._log(session)
        if log is None or log.record is None or log.record.state != LIVE or log.record.node != node:
            return False
        log.record = replace(log.record, state=LOST)
        return True

    async def close(self) -> None:
        self._logs.clear()
