"""When a webhook is posted and when it is given up: one receiver's bounded queue, in order, with backoff.

A plain class (no I/O, no clock: the time is passed in), so the policy is tested without sockets.  The
adapter (:mod:`streamtwin.webhooks.sender`) asks :meth:`DeliveryQueue.due` for the delivery to post now,
posts it and reports back with :meth:`~DeliveryQueue.succeeded` or :meth:`~DeliveryQueue.failed`.

- **In order, one at a time.**  The receiver sees a session's twin changes and its end in the order they
  happened; the head of the queue is retried before anything behind it is sent.
- **Backoff per receiver.**  After ``n`` failures in a row the next attempt waits ``base * 2**(n-1)``
  seconds, at most ``cap`` (a ``Retry-After`` the receiver sent counts, within the cap): a receiver that
  comes back is reached within ``cap`` seconds.
- **Nothing is lost for ``max_age_s``.**  A delivery is only given up after an attempt that failed when it
  was already ``max_age_s`` old (default 10 minutes), so a receiver down for less gets everything.
- **Bounded.**  At most ``max_items`` deliveries and ``max_bytes`` of bodies wait; past either, the oldest
  is dropped (and counted): a receiver gone for good costs a fixed amount of memory.
- **Refused is refused.**  A 4xx other than 408, 425 and 429 means the receiver will not take this body
  however often it is sent: it is dropped (counted as rejected) and the next one goes.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Any

RETRYABLE_4XX = frozenset({408, 425, 429})


@dataclass
class Delivery:
    """One body for one receiver; ``body`` is the exact bytes that are signed and posted."""

    id: str
    event: str  # "ended" | "twin"
    body: bytes
    created: float
    attempts: int = 0


@dataclass
class DeliveryCounts:
    delivered: int = 0
    failed_attempts: int = 0
    dropped: int = 0  # the queue was full
    expired: int = 0  # still failing after max_age_s
    rejected: int = 0  # the receiver answered 4xx

    def as_dict(self) -> dict[str, int]:
        return dict(self.__dict__)


@dataclass
class DeliveryQueue:
    """One receiver's waiting deliveries and its backoff."""

    max_items: int = 1000
    max_bytes: int = 32 << 20
    max_age_s: float = 600.0
    backoff_base_s: float = 1.0
    backoff_cap_s: float = 30.0
    counts: DeliveryCounts = field(default_factory=DeliveryCounts)
    _queue: deque[Delivery] = field(default_factory=deque)
    _bytes: int = 0
    _failures: int = 0  # in a row, at this receiver
    _next_at: float = 0.0
    _in_flight: bool = False

    def __post_init__(self) -> None:
        if self.max_items < 1 or self.max_bytes < 1 or self.max_age_s < 0 or self.backoff_base_s <= 0:
            raise ValueError("a webhook queue needs max_items >= 1, max_bytes >= 1, max_age_s >= 0, backoff > 0")

    def __len__(self) -> int:
        return len(self._queue)

    @property
    def waiting_bytes(self) -> int:
        return self._bytes

    def offer(self, delivery: Delivery) -> int:
        """Queue ``delivery`` behind the others; returns how many of the oldest were dropped to make room
        (never the one in flight: its outcome is still to come)."""
        self._queue.append(delivery)
        self._bytes += len(delivery.body)
        dropped = 0
        while len(self._queue) > 1 and (len(self._queue) > self.max_items or self._bytes > self.max_bytes):
            index = 1 if self._in_flight else 0
            self._remove(index)
            dropped += 1
        self.counts.dropped += dropped
        return dropped

    def due(self, now: float) -> Delivery | None:
        """The delivery to post now (it is then in flight until its outcome is reported), or None."""
        if self._in_flight or not self._queue or now < self._next_at:
            return None
        self._in_flight = True
        head = self._queue[0]
        head.attempts += 1
        return head

    def next_deadline(self) -> float | None:
        """When :meth:`due` will have something (None: nothing waits, or an attempt is in flight)."""
        if self._in_flight or not self._queue:
            return None
        return self._next_at

    def succeeded(self, now: float) -> None:
        self._settle()
        self._remove(0)
        self.counts.delivered += 1
        self._failures, self._next_at = 0, now

    def failed(self, now: float, *, status: int | None = None, retry_after: float | None = None) -> str:
        """The attempt failed (``status``: the HTTP status, None for no answer).  Returns what became of the
        delivery: ``rejected`` (dropped: a 4xx), ``expired`` (dropped: old enough) or ``retry``."""
        self._settle()
        self.counts.failed_attempts += 1
        if status is not None and 400 <= status < 500 and status not in RETRYABLE_4XX:
            self._remove(0)
            self.counts.rejected += 1
            self._next_at = now  # the receiver is up: the next one goes at once
            return "rejected"
        self._failures += 1
        wait = self.backoff_base_s * 2 ** min(self._failures - 1, 30)
        if retry_after is not None and retry_after > 0:
            wait = max(wait, retry_after)
        self._next_at = now + min(wait, self.backoff_cap_s)
        outcome = "retry"
        # Everything that has waited max_age_s through failures is given up, the head included.
        while self._queue and now - self._queue[0].created >= self.max_age_s:
            self._remove(0)
            self.counts.expired += 1
            outcome = "expired"
        return outcome

    def _settle(self) -> None:
        if not self._in_flight:
            raise RuntimeError("no delivery in flight")
        self._in_flight = False

    def _remove(self, index: int) -> None:
        delivery = self._queue[index]
        del self._queue[index]
        self._bytes -= len(delivery.body)


def retry_after_seconds(value: str | None) -> float | None:
    """A ``Retry-After`` header in seconds (the HTTP-date form is not read: the backoff applies)."""
    try:
        seconds = float(value) if value else None
    except ValueError:
        return None
    return seconds if seconds is not None and seconds >= 0 else None


def summary(counts: dict[str, Any], waiting: int) -> str:
    parts = [f"{value} {name.replace('_', ' ')}" for name, value in counts.items() if value]
    return ", ".join(parts + ([f"{waiting} undelivered"] if waiting else [])) or "nothing sent"
