"""Past meetings read from where they were recorded: ``run --record`` files, folders of them, or the event log in
Redis (``redis://HOST:PORT/DB/`` for every session in it, ``.../DB/SESSION`` for one).

A session still live is read as far as it has got.  What cannot be read is a :class:`LibraryError` with one
line for the user: a file that is not a recording, a folder without any, a Redis that does not answer.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from streamtwin.config import Config
from streamtwin.eventlog.open import StoreError, open_store
from streamtwin.eventlog.redis_url import SCHEMES, BadRedisURL, parse_redis_url
from streamtwin.eventlog.store import EventStore, StoreUnavailable
from streamtwin.events import EventSchemaError, from_json
from streamtwin.media.redact import redact
from streamtwin.meetings.transcript import Meeting, MeetingFold, wanted

PAGE = 5000  # log entries read per request


class LibraryError(Exception):
    """Recordings that cannot be read: one line for the user."""


async def load_meetings(config: Config, specs: list[str]) -> list[Meeting]:
    """Every meeting ``specs`` name, in the order given (a folder's files by name, a store's sessions by start)."""
    if not specs:
        raise LibraryError("name at least one recording: a run --record file, a folder of them, or redis://HOST/DB/")
    meetings: list[Meeting] = []
    for spec in specs:
        if spec.split("://", 1)[0] in SCHEMES:
            meetings += await _from_redis(config, spec)
        else:
            meetings += await asyncio.to_thread(_from_path, Path(spec))
    return meetings


def _from_path(path: Path) -> list[Meeting]:
    if path.is_dir():
        files = sorted(p for p in path.rglob("*.jsonl") if p.is_file())
        if not files:
            raise LibraryError(f"no recordings (*.jsonl, from run --record) in {path}")
        return [read_recording(file) for file in files]
    return [read_recording(path)]


def read_recording(path: Path) -> Meeting:
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise LibraryError(f"cannot read {path}: {exc.strerror or exc}") from None
    fold = MeetingFold(path.stem, str(path))
    for number, line in enumerate(data.splitlines(), start=1):
        if not line.strip() or not wanted(line):
            continue
        try:
            fold.add(from_json(line.decode()))
        except (EventSchemaError, UnicodeDecodeError) as exc:
            raise LibraryError(f"{path}:{number}: not a recording's event ({exc})") from None
    if not fold.events:
        raise LibraryError(f"{path} is not a recording: no session events in it (make one with run --record)")
    return fold.meeting()


async def _from_redis(config: Config, spec: str) -> list[Meeting]:
    try:
        try:
            target = parse_redis_url(spec)  # a database: every session in it
        except BadRedisURL:
            target = parse_redis_url(spec, with_session=True)
        store = await open_store(config, target.url)
    except (BadRedisURL, StoreError) as exc:
        raise LibraryError(str(exc)) from None
    try:
        if target.session:
            return [await read_session(store, target.session, f"{target.shown}/{target.session}")]
        records = sorted(await store.sessions(), key=lambda record: record.started)
        if not records:
            raise LibraryError(f"no sessions in {target.shown} (none recorded, or all expired)")
        return [await read_session(store, record.id, f"{target.shown}/{record.id}") for record in records]
    except StoreUnavailable as exc:
        raise LibraryError(str(exc)) from None
    finally:
        await store.close()


async def read_session(store: EventStore, session: str, source: str) -> Meeting:
    """One session's log as far as it goes now (a live one is not waited for)."""
    fold = MeetingFold(session, redact(source))
    after = 0
    while True:
        entries = await store.read_after(session, after, PAGE)
        for entry in entries:
            if wanted(entry.data):
                try:
                    fold.add(from_json(entry.data.decode()))
                except (EventSchemaError, UnicodeDecodeError) as exc:
                    raise LibraryError(f"{redact(source)} seq {entry.seq}: not an event ({exc})") from None
        if len(entries) < PAGE:
            break
        after = entries[-1].seq
    if not fold.events:
        raise LibraryError(f"no session {session!r} in {redact(source)} (unknown, or expired)")
    return fold.meeting()
