"""``streamtwin replay``: a recorded session's events again, at the pace they were emitted.

A recording is an event log: a JSONL file (``streamtwin run --record FILE.jsonl``, or ``--format jsonl``)
or a session's log in Redis (``redis://HOST:PORT/DB/SESSION``; a session still live is followed until it
ends).  Events are re-emitted to the same outputs ``run`` has, each when its ``wall`` time comes round
again (divided by ``speed``; 0: all at once).  ``streamtwin serve --replay SOURCE`` re-emits them into the
server's event log as a new live session instead (:func:`replay_to_log`), which the page watches like any
other: its viewers are fed from the log (streamtwin/service/log_viewers.py).
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path

from streamtwin.bus import Subscriber
from streamtwin.cli.main import OUTPUT_FORMATS, make_output, output_format
from streamtwin.config import Config
from streamtwin.events import Error, Event, EventSchemaError, SessionEnded, encode, from_json
from streamtwin.eventlog.store import StoreUnavailable
from streamtwin.eventlog.node_log import NodeLog
from streamtwin.eventlog.follow import follow
from streamtwin.eventlog.open import StoreError, open_store
from streamtwin.eventlog.redis_url import SCHEMES, BadRedisURL, parse_redis_url
from streamtwin.media.redact import redact

log = logging.getLogger(__name__)

REPLAY_EXAMPLES = """\
examples:
  streamtwin run meeting.wav --record meeting.jsonl   record a session's event log first
  streamtwin replay meeting.jsonl                     then watch it again, at the pace it happened
  streamtwin replay meeting.jsonl --speed 10          ten times as fast
  streamtwin replay meeting.jsonl --speed 0 --format jsonl > copy.jsonl   all at once, byte for byte
  streamtwin replay meeting.jsonl --format srt > meeting.srt              subtitles from a recording
  streamtwin replay redis://127.0.0.1:6379/0/SESSION  a session from a server's Redis event log
                                                      (followed to its end if it is still live)

A recording is any JSONL event log: `run --record FILE`, `run --format jsonl`, or the page's *Events .jsonl*.
"""


def add_replay_parser(commands: argparse._SubParsersAction) -> None:
    replay = commands.add_parser(
        "replay",
        help="re-emit a recorded session (JSONL file or Redis event log) at its original pace",
        description="Re-emit the events of a recorded session to stdout, each when its time comes round again\n"
        "(its `wall` time), through the same outputs as run: the live text view, jsonl, srt, vtt or md.\n"
        "A file that is not an event log, a bad URL or a Redis that does not answer: one line, exit status 1.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=REPLAY_EXAMPLES,
    )
    replay.add_argument(
        "source", metavar="SOURCE",
        help="a JSONL event log (streamtwin run --record FILE.jsonl), or redis://HOST:PORT/DB/SESSION",
    )
    replay.add_argument(
        "--speed", dest="replay_speed", type=parse_speed, default=None, metavar="N",
        help="N times the recorded pace (default 1: as it happened; 0: everything at once)",
    )
    replay.add_argument(
        "--format", choices=["auto", *OUTPUT_FORMATS], default=None,
        help="as for run: text on a terminal, jsonl when piped (the recorded lines again)",
    )


def parse_speed(value: str) -> float:
    speed = float(value)
    if not speed >= 0:
        raise argparse.ArgumentTypeError(f"--speed must be 0 or more, not {value}")
    return speed


def replay_command(config: Config, source: str) -> int:
    """``streamtwin replay``: 0, or 1 after one line on stderr."""
    terminal = sys.stdout.isatty()
    try:
        output = make_output(output_format(config, terminal), sys.stdout, sys.stderr, live=terminal)
        asyncio.run(replay(config, source, output))
    except (ReplayError, ValueError) as exc:
        print(f"streamtwin: error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    return 0


class ReplayError(Exception):
    """A recording that cannot be replayed: one line for the user."""


def due_in(wall: float, first_wall: float, speed: float, elapsed: float) -> float:
    """Seconds to wait before re-emitting an event recorded at ``wall``, ``elapsed`` seconds into the replay."""
    if speed <= 0:
        return 0.0
    return max(0.0, (wall - first_wall) / speed - elapsed)


async def replay(config: Config, source: str, output: Subscriber) -> int:
    """Re-emit ``source`` to ``output`` at ``config.replay_speed``; returns how many events."""
    start = time.monotonic()
    first_wall: float | None = None
    count = 0
    async for event in recorded_events(config, source):
        first_wall = event.wall if first_wall is None else first_wall
        delay = due_in(event.wall, first_wall, config.replay_speed, time.monotonic() - start)
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
