"""One reader of a session's log per node, shared by every viewer on that node that reads the log.

A viewer of a session run on another node (or one that resumes) used to read and parse the log on its
own: ten viewers on a node meant ten ``XREAD``s and ten parses of every entry, and their latency grew
with their number.  Now a :class:`SessionTail` reads each new entry once, prepares it once (for a
channel: one shared frame), and hands the same object to every viewer's :class:`LogFeed`, which adds
what only that viewer needs: its backlog after its own seq (or a gap and the snapshot), merged with the
live entries without a gap or a duplicate by :class:`~streamtwin.eventlog.resume.ResumeFeed`.
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import Awaitable
from dataclasses import dataclass
from typing import Any, Callable, Generic, TypeVar

from streamtwin.eventlog.logwrites import Backoff
from streamtwin.eventlog.resume import Gap, ResumeFeed
from streamtwin.eventlog.store import EventStore, LogEntry
from streamtwin.eventlog.follow import follow, is_end, log_snapshot, patiently

log = logging.getLogger(__name__)

T = TypeVar("T")
PAGE = 1000  # backlog entries read at once


@dataclass(frozen=True, slots=True)
class Prepared(Generic[T]):
    """A log entry with what a viewer is sent for it, made once for every viewer on the node."""

    seq: int
    prev: int
    data: bytes
    value: T
    end: bool  # it is ``session.ended``

    @classmethod
    def of(cls, entry: LogEntry, prepare: Callable[[bytes], T]) -> Prepared[T]:
        return cls(entry.seq, entry.prev, entry.data, prepare(entry.data), is_end(entry))


class LogFeed(Generic[T]):
    """One viewer's events from the log: the snapshot or the backlog after its seq, then live entries from
    the node's :class:`SessionTail`, in order, each once, to ``session.ended``.  ``send`` takes what to
    send (a prepared value, or a :class:`Gap` to report before the snapshot that follows it); ``room`` is
    awaited before each backlog item, so a long backlog goes at the viewer's pace; ``started`` is called
    once, before anything is sent, with the seq the viewer's events start after (its own seq, the
    snapshot's, or the log's last one)."""

    def __init__(
        self,
        tails: Tails[T],
        session: str,
        resume_from: int | None,
        *,
        send: Callable[[T | Gap], None],
        room: Callable[[], Awaitable[None]],
        started: Callable[[int], None] = lambda seq: None,
    ):
        self._tails = tails
        self._session = session
        self._resume_from = resume_from
        self._send = send
        self._room = room
        self._started = started
        self._feed: ResumeFeed[Prepared[T]] = ResumeFeed(resume_from or 0)
        self._pending: deque[T | Gap] = deque()  # in order, behind what the task is sending
        self._sending = False
        self._wake = asyncio.Event()
        self._backoff = Backoff()
        self._tail_over = False
        self._tail_failed = False
        self._done = False

    async def run(self, *, snapshot: bool) -> None:
        """Feed the viewer until the session's end (``snapshot``: without a seq, the snapshot first; else
        only what comes from now on).  The caller cancels it when the viewer leaves."""
        tail = self._tails.join(self._session, self)
        try:
            await tail.following.wait()  # read the log only once the tail follows it: nothing falls between
            if self._resume_from is None:
                if snapshot:
                    await self._snapshot(started=self._started)
                else:
                    store = self._tails.store
                    seq = await patiently(lambda: store.last_seq(self._session), self._backoff)
                    self._started(seq)
                    self._feed.restart(seq)
            else:
                self._started(self._resume_from)
            while not self._done:
                await self._catch_up()
                if self._tail_failed:
                    raise RuntimeError(f"the reader of session {self._session}'s log failed")
                if self._done or (self._tail_over and not self._feed.needs_backlog):
                    return
                self._wake.clear()
                await self._wake.wait()
        finally:
            self._tails.leave(tail, self)

    # -- from the tail (synchronous: called for every live entry, for every viewer)
    def live(self, entry: Prepared[T]) -> None:
        out = self._feed.live(entry)
        if self._sending:
            self._pending.extend(self._values(out))
        else:
            for value in self._values(out):
                self._send(value)
        if self._feed.needs_backlog or self._done:
            self._wake.set()

    def tail_over(self, failed: bool) -> None:
        """The tail stopped: the session ended, or is no longer live and nothing more is logged (or a bug)."""
        self._tail_over = True
        self._tail_failed = failed
        self._wake.set()

    # -- this viewer's own reading
    async def _catch_up(self) -> None:
        store = self._tails.store
        while self._feed.needs_backlog and not self._done:
            cursor = self._feed.cursor
            page = await patiently(lambda: store.read_after(self._session, cursor, PAGE), self._backoff)
            await self._drain(self._values(self._feed.backlog(
                [Prepared.of(entry, self._tails.prepare) for entry in page], complete=len(page) < PAGE)))
            if self._feed.gap is not None:
                gap = self._feed.gap
                await self._drain([gap])
                await self._snapshot()

    async def _snapshot(self, started: Callable[[int], None] | None = None) -> None:
        store = self._tails.store
        events, seq = await patiently(lambda: log_snapshot(store, self._session), self._backoff)
        if started is not None:
            started(seq)
        await self._drain([self._tails.prepare(data) for data in events])
        self._feed.restart(seq)

    async def _drain(self, values: list[T | Gap]) -> None:
        """Send ``values``, then whatever live entries came meanwhile, at the viewer's pace."""
        self._pending.extend(values)
        self._sending = True
        try:
            while self._pending:
                await self._room()
                self._send(self._pending.popleft())
        finally:
            self._sending = False

    def _values(self, entries: list[Prepared[T]]) -> list[T | Gap]:
        if entries and entries[-1].end:
            self._done = True
        return [entry.value for entry in entries]


class SessionTail(Generic[T]):
    """The node's one reader of a session's new entries, while viewers here read it."""

    def __init__(self, tails: Tails[T], session: str):
        self.session = session
        self.feeds: set[LogFeed[T]] = set()
        self.following = asyncio.Event()  # set once it knows where it starts (or stopped): feeds read after
        self._tails = tails
        self._failed = False
        self._task = asyncio.ensure_future(self._run())

    async def _run(self) -> None:
        tails = self._tails
        try:
            after = await patiently(lambda: tails.store.last_seq(self.session), Backoff())
            self.following.set()
            async for entry in follow(tails.store, self.session, after, **tails.follow_options):
                prepared = Prepared.of(entry, tails.prepare)
                for feed in list(self.feeds):
                    feed.live(prepared)
        except asyncio.CancelledError:
            raise
        except Exception:  # a bug: its viewers are told (and resume); other sessions go on
            log.exception("reading session %s from the log failed", self.session)
            self._failed = True
        finally:
            self.following.set()
            tails.tail_over(self)
            for feed in list(self.feeds):
                feed.tail_over(self._failed)

    def stop(self) -> None:
        self._task.cancel()


class Tails(Generic[T]):
    """This node's :class:`SessionTail` per session, started with the first viewer, stopped with the last.
    ``prepare`` makes, once per entry, what viewers are sent for it."""

    def __init__(self, store: EventStore, prepare: Callable[[bytes], T], **follow_options: Any):
        self.store = store
        self.prepare = prepare
        self.follow_options = follow_options
        self._by_session: dict[str, SessionTail[T]] = {}

    def feed(
        self,
        session: str,
        resume_from: int | None,
        *,
        send: Callable[[T | Gap], None],
        room: Callable[[], Awaitable[None]],
        started: Callable[[int], None] = lambda seq: None,
    ) -> LogFeed[T]:
        return LogFeed(self, session, resume_from, send=send, room=room, started=started)

    def join(self, session: str, feed: LogFeed[T]) -> SessionTail[T]:
        tail = self._by_session.get(session)
        if tail is None:
            tail = self._by_session[session] = SessionTail(self, session)
        tail.feeds.add(feed)
        return tail

    def leave(self, tail: SessionTail[T], feed: LogFeed[T]) -> None:
        tail.feeds.discard(feed)
        if not tail.feeds and self._by_session.get(tail.session) is tail:
            del self._by_session[tail.session]
            tail.stop()

    def tail_over(self, tail: SessionTail[T]) -> None:
        if self._by_session.get(tail.session) is tail:
            del self._by_session[tail.session]

    @property
    def reading(self) -> int:
        """Sessions read here now (one reader each)."""
        return len(self._by_session)
