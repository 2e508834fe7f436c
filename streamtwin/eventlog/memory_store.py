"""The event store inside one process (the embedded default): bounded per session, forgotten
``expire_s`` after a session ends.  The same semantics as the Redis store, so the server need not know
which one it has.

A session's events are kept on disk, not in the heap: their bytes in unlinked temporary files (no
name, owner-only, gone with the process), only each entry's seq, prev, offset and length in memory
(32 bytes).  Kept in the heap, the log of a live session (thumbnails mostly) was most of the server's
memory growth, ~2 MB per 10 minutes of a soak; reads are of what was just written, from the page cache.
A live session writes its own file (trimming it is cheap); when it ends, what it kept moves to a shared
archive segment, so the ended sessions kept for a day cost a descriptor per 64 MB, not one each.
"""

from __future__ import annotations

import asyncio
import os
import tempfile
import time
from array import array
from bisect import bisect_right
from dataclasses import dataclass, replace
from typing import Callable

from streamtwin.eventlog.store import (
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


class _File:
    """An unlinked temporary file, written at its end; ``users`` counts the sessions archived in it."""

    def __init__(self) -> None:
        self._file = tempfile.TemporaryFile()
        self.size = 0
        self.users = 0

    def write(self, data: bytes) -> int:
        offset = self.size
        os.pwrite(self._file.fileno(), data, offset)
        self.size += len(data)
        return offset

    def read(self, offset: int, length: int) -> bytes:
        return os.pread(self._file.fileno(), length, offset)

    def close(self) -> None:
        self._file.close()


class _Archive:
    """Where ended sessions' entries go: segment files of about ``SEGMENT_BYTES``, appended to, never
    changed.  A segment closes when the last session in it expires; sessions expire in the order they
    ended, so segments drain oldest first."""

    SEGMENT_BYTES = 64 << 20

    def __init__(self) -> None:
        self._current: _File | None = None

    def take(self) -> _File:
        """The segment the next ended session goes into (counted as one more user)."""
        if self._current is None or self._current.size >= self.SEGMENT_BYTES:
            self._current = _File()  # a full segment stays open for its users (release closes it)
        self._current.users += 1
        return self._current

    def release(self, segment: _File) -> None:
        segment.users -= 1
        if not segment.users:
            segment.close()
            if segment is self._current:
                self._current = None

    def close(self) -> None:
        if self._current is not None:
            self._current.close()
            self._current = None


class _Entries:
    """One session's entries, oldest first: bytes in a file, the index in four arrays.

    Live, the file is the session's own (made at the first append): trimming moves ``head``, and once
    the trimmed part is most of the file or of the index (and over ``COMPACT_BYTES`` or
    ``COMPACT_ENTRIES``) the kept entries are copied to a new file, a chunk at a time.  Sealed (the
    session ended), they are copied to an archive segment and the session's own file closes."""

    COMPACT_BYTES = 1 << 20
    COMPACT_ENTRIES = 4096
    CHUNK = 1 << 20

    def __init__(self, archive: _Archive) -> None:
        self._archive = archive
        self._file: _File | None = None
        self.sealed = False
        self._seqs, self._prevs, self._offsets, self._lengths = (array("q") for _ in range(4))
        self._head = 0  # index of the oldest entry kept
        self.bytes = 0  # bytes of the entries kept

    def __len__(self) -> int:
        return len(self._seqs) - self._head

    def append(self, seq: int, prev: int, data: bytes) -> None:
        assert not self.sealed
        if self._file is None:
            self._file = _File()
        offset = self._file.write(data)
        for column, value in zip((self._seqs, self._prevs, self._offsets, self._lengths), (seq, prev, offset, len(data))):
            column.append(value)
        self.bytes += len(data)

    def drop_oldest(self) -> None:
        assert self._file is not None and not self.sealed
        self.bytes -= self._lengths[self._head]
        self._head += 1
        if self._file.size - self.bytes > max(self.COMPACT_BYTES, self.bytes) or self._head > max(self.COMPACT_ENTRIES, len(self)):
            old, self._file = self._file, self._move_to(_File())
            old.close()

    def seal(self) -> None:
        """The session ended: no more appends; what it kept moves to the archive."""
        if self.sealed:
            return
        self.sealed = True
        if self._file is not None:
            old, self._file = self._file, self._move_to(self._archive.take())
            old.close()

    def at_or_before(self, seq: int) -> LogEntry | None:
        """The newest entry whose seq is ``seq`` or lower."""
        i = bisect_right(self._seqs, seq, self._head) - 1
        return self._entry(i) if i >= self._head else None

    def after(self, seq: int, limit: int) -> list[LogEntry]:
        first = bisect_right(self._seqs, seq, self._head)
        return [self._entry(i) for i in range(first, min(len(self._seqs), first + limit))]

    def close(self) -> None:
        if self._file is None:
            return
        if self.sealed:
            self._archive.release(self._file)
        else:
            self._file.close()
        self._file = None

    def _entry(self, i: int) -> LogEntry:
        assert self._file is not None
        return LogEntry(self._seqs[i], self._prevs[i], self._file.read(self._offsets[i], self._lengths[i]))

    def _move_to(self, target: _File) -> _File:
        """Copy the kept entries (one contiguous run: trimming takes the oldest) to the end of ``target``."""
        assert self._file is not None
        start = self._offsets[self._head] if len(self) else self._file.size
        base = target.size
        for offset in range(start, self._file.size, self.CHUNK):
            target.write(self._file.read(offset, min(self.CHUNK, self._file.size - offset)))
        self._seqs, self._prevs, self._lengths = (column[self._head:] for column in (self._seqs, self._prevs, self._lengths))
        self._offsets = array("q", (offset - start + base for offset in self._offsets[self._head:]))
        self._head = 0
        return target


@dataclass
class _Log:
    entries: _Entries
    record: SessionRecord | None = None
    last: int = 0
    expires_at: float | None = None


class MemoryStore(EventStore):
    def __init__(self, settings: StoreSettings | None = None, clock: Callable[[], float] = time.time):
        super().__init__(settings)
        self._clock = clock
        self._logs: dict[str, _Log] = {}
        self._archive = _Archive()
        self._heartbeats: dict[str, float] = {}
        self._viewers: dict[str, dict[str, tuple[int, float]]] = {}  # session -> node -> (count, when)
        self._tails: dict[str, set[asyncio.Event]] = {}  # readers waiting for a session's next entry

    def _log(self, session: str, create: bool = False) -> _Log | None:
        self._expire()
        log = self._logs.get(session)
        if log is None and create:
            log = self._logs[session] = _Log(_Entries(self._archive))
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
        if log.entries.sealed:
            raise StaleAppend(f"session {session} has ended")
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
        return [record for record in await self.sessions() if record.state == LIVE]

    async def sessions(self) -> list[SessionRecord]:
        self._expire()
        records = [await self.record(session) for session, log in self._logs.items() if log.record is not None]
        return [record for record in records if record is not None]

    async def end(self, session: str, state: str = ENDED) -> None:
        log = self._log(session, create=True)
        assert log is not None
        if log.record is not None:
            log.record = replace(log.record, state=state)
        log.entries.seal()
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
        self._archive.close()
