"""Reading a session's log from a seq to its end: what a node does for viewers of a session that runs on
another node, and what ``streamtwin replay redis://...`` does.

:func:`follow` yields entries in order, backlog and live alike (``XREAD`` from an explicit id is exact,
so the switch from one to the other loses and repeats nothing), until ``session.ended`` or until the
session is no longer live and nothing more is held.  A store outage is waited out with backoff.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator

from ..policy.logwrites import Backoff
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
    while True:
        try:
            entries = await store.read_after(session, cursor)
            if not entries:
                record = await store.record(session)
                if record is None or record.state != LIVE:
                    if not await store.read_after(session, cursor, limit=1):  # nothing came meanwhile
                        return
                    continue
                entries = await store.tail(session, cursor, poll_s)
        except StoreUnavailable as exc:
            if not wait_out_outages:
                raise
            failures += 1
            log.debug("following session %s: %s", session, exc)
            await asyncio.sleep(backoff.delay(failures))
            continue
        failures = 0
        for entry in entries:
            cursor = entry.seq
            yield entry
            if is_end(entry):
                return
