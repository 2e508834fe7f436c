"""The event store inside one process (the embedded default): bounded per session, forgotten
``expire_s`` after a session ends.  The same semantics as the Redis store, so the server need not know
which one it has.

A session's events are kept on disk, not in the heap: their bytes in an unlinked temporary file (no
name, owner-only, gone with the process), only each entry's seq, prev, offset and length in memory
(32 bytes).  Kept in the heap, the log of a live session (thumbnails mostly) was most of the server's
memory growth, ~2 MB per 10 minutes of a soak; reads are of what was just written, from the page cache.
"""

from __future__ import annotations

import asyncio
import os
import tempfile
import time
from array import array
from bisect import bisect_right
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


class _Entries:
    """One session's entries, oldest first: bytes in a temporary file, the index in four arrays.

    Trimming moves ``head``; once the trimmed part is most of the file or of the index (and over
    ``COMPACT_BYTES`` or ``COMPACT_ENTRIES``), the kept entries are copied to a new file, a chunk at a time."""

    COMPACT_BYTES = 1 << 20
    COMPACT_ENTRIES = 4096
    CHUNK = 1 << 20

    def __init__(self) -> None:
        self._file = tempfile.TemporaryFile()
        self._seqs, self._prevs, self._offsets, self._lengths = (array("q") for _ in range(4))
        self._head = 0  # index of the oldest entry kept
        self._size = 0  # bytes written to the file
        self.bytes = 0  # bytes of the entries kept

    def __len__(self) -> int:
        return len(self._seqs) - self._head

    def append(self, seq: int, prev: int, data: bytes) -> None:
        os.pwrite(self._file.fileno(), data, self._size)
        for column, value in zip((self._seqs, self._prevs, self._offsets, self._lengths),
                                 (seq, prev, self._size, len(data))):
            column.append(value)
        self._size += len(data)
        self.bytes += len(data)

    def drop_oldest(self) -> None:
        self.bytes -= self._lengths[self._head]
        self._head += 1
        if self._size - self.bytes > max(self.COMPACT_BYTES, self.bytes) or self._head > max(self.COMPACT_ENTRIES, len(self)):
            self._compact()

    def at_or_before(self, seq: int) -> LogEntry | None:
        """The newest entry whose seq is ``seq`` or lower."""
        i = bisect_right(self._seqs, seq, self._head) - 1
        return self._entry(i) if i >= self._head else None

    def after(self, seq: int, limit: int) -> list[LogEntry]:
        first = bisect_right(self._seqs, seq, self._head)
        return [self._entry(i) for i in range(first, min(len(self._seqs), first + limit))]

    def close(self) -> None:
        self._file.close()

    def _entry(self, i: int) -> LogEntry:
        return LogEntry(self._seqs[i], self._prevs[i], os.pread(self._file.fileno(), self._lengths[i], self._offsets[i]))

    def _compact(self) -> None:
        start = self._offsets[self._head] if len(self) else self._size
        fresh = tempfile.TemporaryFile()
        for offset in range(start, self._size, self.CHUNK):
            os.pwrite(fresh.fileno(), os.pread(self._file.fileno(), min(self.CHUNK, self._size - offset), offset),
                      offset - start)
        self._file.close()
        self._file = fresh
        self._seqs, self._prevs, self._lengths = (column[self._head:] for column in (self._seqs, self._prevs, self._lengths))
        self._offsets = array("q", (offset - start for offset in self._offsets[self._head:]))
        self._head = 0
        self._size -= start


@dataclass
class _Log:
    record: SessionRecord | None = None
    entries: _Entries = field(default_factory=_Entries)
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
            self._logs.pop(session).entries.close()

    async def append(
        self, session: str, seq: int, data: bytes, *, expect: int | None = None, sealing: bool = False
    ) -> int:
        log = self._log(session, create=True)
        assert log is not None
        if log.record is not None and log.record.state != LIVE and not sealing:
            raise StaleAppend(f"session {session} is {log.record.state}")
        if seq <= log.last:
            same = log.entries.at_or_before(seq)
            if same is not None and same.seq == seq:  # a retry whose reply was lost
                return same.prev
            raise StaleAppend(f"seq {seq} is not after {log.last}")
        if expect is not None and expect != log.last:
            raise LostEntries(session, log.last, expect)
        prev, log.last = log.last, seq
        entries = log.entries
        entries.append(seq, prev, data)
        while len(entries) > self.settings.maxlen or (entries.bytes > self.settings.max_bytes and len(entries) > 1):
            entries.drop_oldest()
        for waiting in self._tails.pop(session, ()):
            waiting.set()
        return prev

    async def read_after(self, session: str, after: int, limit: int = 1000) -> list[LogEntry]:
        log = self._log(session)
        if log is None or after >= log.last:
            return []
        return log.entries.after(after, limit)

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
        for log in self._logs.values():
            log.entries.close()
        self._logs.clear()
