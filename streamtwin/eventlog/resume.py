"""A viewer that resumes from seq N gets exactly the events after N: no gap, no duplicate.

Events reach a viewer two ways: from the session's log (the backlog, read after a seq) and live (as the
session emits them, or as a node tailing the log receives them).  Every entry carries ``prev``, the seq
of the entry before it in the log, so the test for "nothing missing" is local: an entry fits the
viewer's cursor when ``prev <= cursor < seq``.  A live entry that does not fit yet waits until the
backlog reaches it (the log may lag the session by a few writes); a backlog entry that does not fit
means the log no longer holds what came in between (trimmed by its bound, or expired): a
:class:`Gap`, which the server reports as an ``error`` ``resume_gap`` followed by the snapshot, then goes
on from the snapshot's seq (:meth:`ResumeFeed.restart`).

Plain class: no I/O, no clock.
"""

from __future__ import annotations

import enum
from collections import deque
from dataclasses import dataclass
from typing import Generic, Protocol, Sequence, TypeVar

DEFAULT_MAX_HELD = 10_000


class Entry(Protocol):
    @property
    def seq(self) -> int: ...
    @property
    def prev(self) -> int: ...


E = TypeVar("E", bound=Entry)


class Step(enum.Enum):
    DELIVER = "deliver"  # the next one after the cursor
    DUPLICATE = "duplicate"  # the viewer has it already
    GAP = "gap"  # something the log held comes in between


def step(cursor: int, entry: Entry) -> Step:
    if entry.seq <= cursor:
        return Step.DUPLICATE
    if entry.prev > cursor:
        return Step.GAP
    return Step.DELIVER


@dataclass(frozen=True)
class Gap:
    """The viewer asked for the events after ``after``; the oldest the log still holds after it is
    ``oldest``, and events between the two are gone."""

    after: int
    oldest: int

    @property
    def message(self) -> str:
        return (
            f"the events after seq {self.after} are no longer kept (the oldest kept is {self.oldest}): "
            "a snapshot of the session follows instead"
        )


class ResumeFeed(Generic[E]):
    """One viewer's feed: backlog from the log first, live entries once they follow on.  What to send comes
    back as the entries themselves, in order."""

    def __init__(self, resume_from: int, *, max_held: int = DEFAULT_MAX_HELD) -> None:
        self.cursor = resume_from  # the last seq delivered (or the one the viewer had)
        self.max_held = max_held
        self.gap: Gap | None = None
        self._held: deque[E] = deque()  # live entries ahead of the cursor
        self._read_once = False

    @property
    def needs_backlog(self) -> bool:
        """Read the log after :attr:`cursor` and pass it to :meth:`backlog` (first, and while live
        entries wait for the ones before them)."""
        return self.gap is None and (not self._read_once or bool(self._held))

    def backlog(self, entries: Sequence[E], *, complete: bool = True) -> list[E]:
        """What the log holds after the cursor, oldest first (``complete``: all of it, else a first page);
        returns what to send, in order.  Sets :attr:`gap` when the log lost what the viewer needs."""
        self._read_once = self._read_once or complete
        out: list[E] = []
        for entry in entries:
            verdict = step(self.cursor, entry)
            if verdict is Step.GAP:
                self.gap = Gap(self.cursor, entry.seq)
                self._held.clear()
                return out
            if verdict is Step.DELIVER:
                self.cursor = entry.seq
                out.append(entry)
        return out + self._release()

    def live(self, entry: E) -> list[E]:
        """A live entry; returns what to send now (nothing while the backlog has not caught up)."""
        if self.gap is not None:
            return []
        if self._read_once and not self._held and step(self.cursor, entry) is not Step.GAP:
            return self._deliver(entry)
        self._held.append(entry)
        if len(self._held) > self.max_held:  # the backlog reader is far behind: it reads these again
            self._held.clear()
        return []

    def restart(self, seq: int) -> None:
        """After a gap: the viewer got a snapshot as of ``seq`` and continues after it."""
        self.cursor = max(self.cursor, seq)
        self.gap = None
        self._read_once = False
        self._held.clear()

    def _deliver(self, entry: E) -> list[E]:
        if entry.seq <= self.cursor:
            return []
        self.cursor = entry.seq
        return [entry]

    def _release(self) -> list[E]:
        out: list[E] = []
        while self._held and step(self.cursor, self._held[0]) is not Step.GAP:
            out += self._deliver(self._held.popleft())
        return out
