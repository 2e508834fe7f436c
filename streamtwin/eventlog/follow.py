"""Reading a session's log from a seq to its end: what a node does for viewers of a session that runs on
another node (or that resume), and what ``streamtwin replay redis://...`` does.

:func:`follow` yields entries in order, backlog and live alike (``XREAD`` from an explicit id is exact,
so the switch from one to the other loses and repeats nothing), until ``session.ended`` or until the
session is no longer live and nothing more is held.  A store outage is waited out with backoff.
:func:`log_snapshot` is what a late joiner is sent first (and a viewer that resumes too late, after a
``resume_gap``); :mod:`streamtwin.eventlog.tail` builds each viewer's feed from the two.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator, Awaitable
from typing import Callable, TypeVar

from streamtwin.events import EventSchemaError, encode, from_json
from streamtwin.eventlog.logwrites import Backoff
from streamtwin.eventlog.snapshot import SnapshotFold
from streamtwin.eventlog.store import LIVE, EventStore, LogEntry, StoreUnavailable

log = logging.getLogger(__name__)

R = TypeVar("R")
POLL_S = 5.0  # one wait for new entries; between two, the session's state is looked at


def is_end(entry: LogEntry) -> bool:
    """The entry is ``session.ended`` (the bytes are looked at first: most entries are not, and a
    quote inside a text is escaped, so only the type can hold the name quoted)."""
    return b'"session.ended"' in entry.data and json.loads(entry.data).get("type") == "session.ended"


async def patiently(read: Callable[[], Awaitable[R]], backoff: Backoff) -> R:
    """``read()`` again, with backoff, while the store is unreachable: the one way a reader of the log
    (:func:`follow`, and each viewer's feed in :mod:`streamtwin.eventlog.tail`) waits an outage out."""
    failures = 0
    while True:
        try:
            return await read()
        except StoreUnavailable as exc:
            failures += 1
            log.debug("reading the log: %s", exc)
            await asyncio.sleep(backoff.delay(failures))


async def follow(
    store: EventStore,
    session: str,
    after: int = 0,
    *,
    poll_s: float = POLL_S,
    backoff: Backoff | None = None,
    wait_out_outages: bool = True,
) -> AsyncIterator[LogEntry]:
    """The entries of ``session`` after seq ``after``, live ones as they come, up to its end.
    ``wait_out_outages=False`` raises :class:`StoreUnavailable` instead of retrying."""
    backoff = backoff or Backoff()
    cursor = after
    tailing = False  # caught up with a live session: one XREAD BLOCK a round, nothing else

    async def next_round() -> list[LogEntry] | None:
        """The next entries after ``cursor`` (perhaps none yet); ``None`` when the session is over."""
        nonlocal tailing
        if tailing:
            tailing = False  # until the store answers: after an outage, look at the session's state again
            entries = await store.tail(session, cursor, poll_s)
            tailing = bool(entries)  # a quiet spell: look at the session's state again
            return entries
        entries = await store.read_after(session, cursor)
        if entries:
            return entries
        record = await store.record(session)
        if record is not None and record.state == LIVE:
            tailing = True
            return []
        if await store.read_after(session, cursor, limit=1):  # it came meanwhile: read it next round
            return []
        return None  # over, and nothing came meanwhile

    while True:
        entries = await (patiently(next_round, backoff) if wait_out_outages else next_round())
        if entries is None:
            return
        for entry in entries:
            cursor = entry.seq
            yield entry
            if is_end(entry):
                return


async def log_snapshot(store: EventStore, session: str) -> tuple[list[bytes], int]:
    """A late joiner's snapshot folded from everything the log holds, and the seq it is as of."""
    fold: SnapshotFold[bytes] = SnapshotFold(session)
    cursor = 0
    while entries := await store.read_after(session, cursor):
        for entry in entries:
            try:
                event = from_json(entry.data.decode())
            except (EventSchemaError, UnicodeDecodeError) as exc:  # not an event this service wrote
                log.warning("session %s: seq %d left out of a snapshot: %s", session, entry.seq, exc)
                continue
            fold.add(event, entry.data)
        cursor = entries[-1].seq
    return fold.snapshot(lambda twin: encode(twin.to_dict())), max(fold.seq, cursor)
