"""Reading a session's log from a seq to its end: what a node does for viewers of a session that runs on
another node (or that resume), and what ``streamtwin replay redis://...`` does.

:func:`follow` yields entries in order, backlog and live alike (``XREAD`` from an explicit id is exact,
so the switch from one to the other loses and repeats nothing), until ``session.ended`` or until the
session is no longer live and nothing more is held.  A store outage is waited out with backoff.
:func:`viewer_feed` is what one viewer is sent: the events after its seq, or a :class:`Gap` and the
snapshot (:func:`log_snapshot`) when the log no longer holds them, then live events.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator
from typing import Any

from ..events import from_json
from ..policy.logwrites import Backoff
from ..policy.resume import Gap, ResumeFeed
from ..policy.snapshot import SnapshotFold
from .base import LIVE, EventStore, LogEntry, StoreUnavailable

log = logging.getLogger(__name__)

POLL_S = 5.0  # one wait for new entries; between two, the session's state is looked at


def is_end(entry: LogEntry) -> bool:
    return json.loads(entry.data).get("type") == "session.ended"


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
    cursor, failures = after, 0
    tailing = False  # caught up with a live session: one XREAD BLOCK a round, nothing else
    while True:
        try:
            if tailing:
                entries = await store.tail(session, cursor, poll_s)
                tailing = bool(entries)  # a quiet spell: look at the session's state again
            else:
                entries = await store.read_after(session, cursor)
                if not entries:
                    record = await store.record(session)
                    if record is not None and record.state == LIVE:
                        tailing = True
                    elif not await store.read_after(session, cursor, limit=1):  # over, nothing came meanwhile
                        return
                    continue
        except StoreUnavailable as exc:
            if not wait_out_outages:
                raise
            failures += 1
            tailing = False
            log.debug("following session %s: %s", session, exc)
            await asyncio.sleep(backoff.delay(failures))
            continue
        failures = 0
        for entry in entries:
            cursor = entry.seq
            yield entry
            if is_end(entry):
                return


async def log_snapshot(store: EventStore, session: str) -> tuple[list[bytes], int]:
    """A late joiner's snapshot folded from everything the log holds, and the seq it is as of."""
    fold = SnapshotFold(session)
    cursor = 0
    while entries := await store.read_after(session, cursor):
        for entry in entries:
            fold.add(from_json(entry.data.decode()), entry.data)
        cursor = entries[-1].seq
    return fold.events(), max(fold.seq, cursor)


async def viewer_feed(
    store: EventStore, session: str, resume_from: int | None, **follow_options: Any
) -> AsyncIterator[bytes | Gap]:
    """What one viewer gets, in order: with ``resume_from``, exactly the events after it; without one (a
    late joiner), or after a :class:`Gap` (send ``resume_gap``), the snapshot; then live events, to the
    session's end."""
    if resume_from is None:
        snapshot, cursor = await log_snapshot(store, session)
        for data in snapshot:
            yield data
        resume_from = cursor
    feed = ResumeFeed(resume_from)
    while True:
        async for entry in follow(store, session, feed.cursor, **follow_options):
            for data in feed.backlog([entry]):
                yield data
            if feed.gap is not None:
                break
        else:
            return
        yield feed.gap
        snapshot, cursor = await log_snapshot(store, session)
        for data in snapshot:
            yield data
        feed.restart(cursor)
