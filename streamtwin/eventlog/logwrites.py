"""The order in which a node's events reach the event store, and what happens while the store is down.

Every event a node's sessions emit is queued here and written one at a time, oldest first, so each
session's log is appended in seq order.  While the store is unreachable the queue keeps growing, up to
``max_entries``/``max_bytes``; past that the oldest waiting events of a session are dropped and replaced
by one ``error`` event ``events_lost`` that says which seqs are missing (it takes the last lost seq, so
the log stays in order and a reader sees the loss instead of a hole).  The same report covers events
the store itself lost (a Redis restarted without persistence).  The first failure of an outage says
"report ``store_unavailable`` now", once; retries follow a capped exponential backoff; the first write
that succeeds ends the outage.

Plain class: no I/O, no clock (``now`` is passed in).
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

from streamtwin.events import Error, encode

DEFAULT_MAX_ENTRIES = 20_000
DEFAULT_MAX_BYTES = 32 << 20


@dataclass(frozen=True)
class Write:
    """One append to make: an event, or a report of events lost (``report``: its ``seq`` is the last lost
    one, and a report is appended without checking what the store holds before it)."""

    session: str
    seq: int
    data: bytes
    report: bool = False
    lost_from: int = 0  # a report: the first seq it covers


@dataclass(frozen=True)
class Backoff:
    """Retry delays: ``initial_s``, doubling, at most ``max_s``."""

    initial_s: float = 0.1
    max_s: float = 5.0

    def delay(self, failures: int) -> float:
        return min(self.max_s, self.initial_s * 2 ** max(0, failures - 1))


@dataclass
class _Loss:
    first: int
    last: int


class WriteQueue:
    def __init__(
        self,
        *,
        max_entries: int = DEFAULT_MAX_ENTRIES,
        max_bytes: int = DEFAULT_MAX_BYTES,
        backoff: Backoff | None = None,
    ) -> None:
        self.max_entries = max_entries
        self.max_bytes = max_bytes
        self.backoff = backoff or Backoff()
        self._queue: deque[Write] = deque()
        self._bytes = 0
        self._losses: dict[str, _Loss] = {}  # per session: seqs dropped and not reported yet
        self._current: deque[Write] = deque()  # handed out by batch(), not yet written (oldest first)
        self._failures = 0
        self.retry_at = 0.0
        self.lost_total = 0  # events dropped here, ever
        # Sessions whose viewers are to hear of a new loss (session, first seq lost), each once until its loss
        # report is stored: telling them is an event too, which a full queue would drop, and so on.
        self.news: list[tuple[str, int]] = []
        self._told: set[str] = set()

    @property
    def degraded(self) -> bool:
        """The store is unreachable (the last write failed)."""
        return self._failures > 0

    @property
    def waiting(self) -> int:
        return len(self._queue) + len(self._current)

    def push(self, session: str, seq: int, data: bytes) -> None:
        """Queue an event; when the queue is full the oldest waiting ones are dropped (and reported)."""
        self._queue.append(Write(session, seq, data))
        self._bytes += len(data)
        while len(self._queue) > self.max_entries or self._bytes > self.max_bytes:
            dropped = self._queue.popleft()
            self._bytes -= len(dropped.data)
            self._add_loss(dropped.session, dropped.seq, dropped.seq, count=1)

    def store_lost(self, session: str, first: int, last: int) -> bool:
        """The store no longer holds seqs ``first``..``last`` it had accepted: report them before the writes
        in flight (which are tried again after the report).  True when this answer ends an outage."""
        while self._current:
            write = self._current.pop()
            if write.report:
                self._add_loss(write.session, write.lost_from, write.seq, count=0)
            else:
                self._queue.appendleft(write)
                self._bytes += len(write.data)
        self._add_loss(session, first, last, count=0)
        return self._answered()

    def batch(self, now: float, limit: int = 1) -> list[Write]:
        """The writes to try now, in order: those in flight (not written yet) first, then pending loss
        reports, then the oldest events; at most ``limit``.  Empty when nothing waits or the backoff has
        not run out.  Report each outcome, oldest first: :meth:`written`, :meth:`refused`, :meth:`failed`."""
        if now < self.retry_at:
            return []
        while len(self._current) < limit:
            write = self._take(now)
            if write is None:
                break
            self._current.append(write)
        return list(self._current)[:limit]

    def next(self, now: float) -> Write | None:
        """The one write to try now (see :meth:`batch`)."""
        writes = self.batch(now)
        return writes[0] if writes else None

    def written(self) -> bool:
        """The oldest write in flight is in the store.  True when that ends an outage."""
        if self._current:
            write = self._current.popleft()
            if write.report:  # the loss is in the log: a later one is news again
                self._told.discard(write.session)
        return self._answered()

    def refused(self) -> bool:
        """The store refused the oldest write in flight for good: an event is reported lost (a report is not
        reported again: the store refuses that session).  True when this answer ends an outage."""
        write = self._current.popleft() if self._current else None
        if write is not None and not write.report:
            self._add_loss(write.session, write.seq, write.seq, count=1)
        return self._answered()

    def retry_now(self) -> None:
        """The store answers again (a probe got through): no need to wait out the backoff."""
        self.retry_at = 0.0

    def take_news(self) -> list[tuple[str, int]]:
        """The sessions that lost events since the last call, each with the first seq lost (see ``news``)."""
        news, self.news = self.news, []
        return news

    def failed(self, now: float) -> bool:
        """The store is unreachable.  True the first time in an outage: report ``store_unavailable`` now."""
        self._failures += 1
        self.retry_at = now + self.backoff.delay(self._failures)
        return self._failures == 1

    def _answered(self) -> bool:
        """The store answered: any outage is over.  True when there was one."""
        recovered = self._failures > 0
        self._failures = 0
        self.retry_at = 0.0
        return recovered

    def _take(self, now: float) -> Write | None:
        # A report may go before anything still waiting: its seq is below every waiting event of its
        # session and above every written one (the writes in flight are handed out again first).
        if self._losses:
            session = next(iter(self._losses))
            loss = self._losses.pop(session)
            return loss_report(session, loss.first, loss.last, now)
        if not self._queue:
            return None
        write = self._queue.popleft()
        self._bytes -= len(write.data)
        return write

    def _add_loss(self, session: str, first: int, last: int, *, count: int) -> None:
        self.lost_total += count
        if session not in self._told:
            self._told.add(session)
            self.news.append((session, first))
        loss = self._losses.get(session)
        if loss is None:
            self._losses[session] = _Loss(first, last)
        else:
            loss.first, loss.last = min(loss.first, first), max(loss.last, last)


def loss_report(session: str, first: int, last: int, now: float) -> Write:
    """An ``error`` ``events_lost`` in the place of the last lost seq."""
    which = f"event {last}" if first == last else f"events {first} to {last}"
    event = Error(
        code="events_lost",
        message=f"{which} of this session could not be stored (the event store was unreachable): "
        "viewers who join or resume later do not get them",
        session=session,
        seq=last,
        wall=now,
    )
    return Write(session, last, encode(event.to_dict()), report=True, lost_from=first)
