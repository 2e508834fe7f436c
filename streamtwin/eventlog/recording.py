"""A recorded session's events again: from a JSONL event log or a session's log in Redis.

A recording is an event log: a JSONL file (``streamtwin run --record FILE.jsonl``, or ``--format jsonl``)
or a session's log in Redis (``redis://HOST:PORT/DB/SESSION``; a session still live is followed until it
ends).  :func:`replay` re-emits its events to a subscriber, each when its ``wall`` time comes round again
(divided by ``speed``; 0: all at once); :func:`replay_to_log` re-emits them into a node's event log as a
new live session (``streamtwin serve --replay``), whose viewers are fed from the log.
"""

from __future__ import annotations

import asyncio
import logging
import math
import time
from collections.abc import AsyncIterator
from pathlib import Path

from streamtwin.bus import Subscriber
from streamtwin.config import Config
from streamtwin.events import Error, Event, EventSchemaError, SessionEnded, encode, from_json
from streamtwin.eventlog.follow import follow
from streamtwin.eventlog.node_log import NodeLog
from streamtwin.eventlog.open import StoreError, open_store
from streamtwin.eventlog.redis_url import SCHEMES, BadRedisURL, parse_redis_url
from streamtwin.eventlog.store import StoreUnavailable
from streamtwin.media.redact import redact

log = logging.getLogger(__name__)


class ReplayError(Exception):
    """A recording that cannot be replayed: one line for the user."""


def due_in(offset: float, speed: float, elapsed: float) -> float:
    """Seconds to wait before re-emitting an event recorded ``offset`` seconds into the recording, ``elapsed``
    seconds into the replay."""
    if speed <= 0:
        return 0.0
    return max(0.0, offset / speed - elapsed)


def recorded_gap(previous: object, wall: object, max_gap_s: float) -> float:
    """The recorded time between two events' ``wall``s, at most ``max_gap_s``: a recording is read from outside,
    and a clock that jumps (by 1e300 s, or to NaN, or back) must not hold the replay for ever."""
    if not all(isinstance(t, (int, float)) and not isinstance(t, bool) and math.isfinite(t) for t in (previous, wall)):
        return 0.0
    return min(max(0.0, wall - previous), max_gap_s)  # type: ignore[operator]


async def replay(config: Config, source: str, output: Subscriber) -> int:
    """Re-emit ``source`` to ``output`` at ``config.replay_speed``, no gap longer than ``config.replay_max_gap_s``;
    returns how many events."""
    start = time.monotonic()
    previous: object = None
    offset = 0.0
    count = 0
    async for event in recorded_events(config, source):
        offset += recorded_gap(previous, event.wall, config.replay_max_gap_s)
        previous = event.wall
        delay = due_in(offset, config.replay_speed, time.monotonic() - start)
        if delay:
            await asyncio.sleep(delay)
        output(event)
        count += 1
    if not count:
        raise ReplayError(f"no events in {source}")
    return count


def check_source(source: str) -> None:
    """Raise :class:`ReplayError` for a recording that cannot be replayed, before ``serve`` loads its models
    (a Redis source is only checked for its form: its server may come up later)."""
    if source.split("://", 1)[0] in SCHEMES:
        try:
            parse_redis_url(source, with_session=True)
        except BadRedisURL as exc:
            raise ReplayError(str(exc)) from None
    elif not _from_file(Path(source)):
        raise ReplayError(f"no events in {source}")


async def replay_to_log(config: Config, source: str, node_log: NodeLog, session: str, viewer_key: str) -> int:
    """``serve --replay``: re-emit ``source`` into this node's event log as the live session ``session``, at
    ``config.replay_speed``, each event stamped with the session, a seq of its own and the time it is
    re-emitted; it ends with ``session.ended`` (an ``error`` ``replay_failed`` before it when the
    recording breaks off, one that stops early gets one).  Returns the events appended."""
    await node_log.session_started(session, viewer_key)
    seq, ended = 0, False

    def append(event: Event) -> None:
        nonlocal seq, ended
        if ended:  # a log with more than one session: the page watches the first
            return
        seq += 1
        body = event.to_dict()
        body.update(session=session, seq=seq, wall=time.time())
        node_log.append(session, seq, encode(body))
        ended = isinstance(event, SessionEnded)

    try:
        await replay(config, source, append)
    except ReplayError as exc:
        log.error("replaying %s: %s", redact(source), exc)
        append(Error(code="replay_failed", message=f"the recording could not be replayed: {exc}", fatal=True))
    finally:
        append(SessionEnded())  # nothing if the recording ended it
        node_log.session_ended(session, seq)
    return seq


async def recorded_events(config: Config, source: str) -> AsyncIterator[Event]:
    if source.split("://", 1)[0] in SCHEMES:
        async for event in _from_store(config, source):
            yield event
    else:
        for event in _from_file(Path(source)):
            yield event


def _from_file(path: Path) -> list[Event]:
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise ReplayError(f"cannot read {path}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise ReplayError(f"{path} is not a JSONL event log (not UTF-8 text)") from None
    events = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            events.append(from_json(line))
        except EventSchemaError as exc:
            raise ReplayError(f"{path}:{number}: not an event ({exc})") from None
    return events


async def _from_store(config: Config, source: str) -> AsyncIterator[Event]:
    try:
        target = parse_redis_url(source, with_session=True)
        store = await open_store(config, target.url)
    except (BadRedisURL, StoreError) as exc:
        raise ReplayError(str(exc)) from None
    held = False
    try:
        async for entry in follow(store, target.session, wait_out_outages=False):
            held = True
            try:
                yield from_json(entry.data.decode())
            except (EventSchemaError, UnicodeDecodeError) as exc:
                raise ReplayError(f"{target.shown} {target.session} seq {entry.seq}: not an event ({exc})") from None
    except StoreUnavailable as exc:
        raise ReplayError(str(exc)) from None
    finally:
        await store.close()
    if not held:
        raise ReplayError(f"no session {target.session!r} in {target.shown} (unknown, or expired)")
