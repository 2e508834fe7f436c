"""The meetings that can be asked about: recordings named on a command line (read once) and the sessions of the
event log (live ones read as far as they have got, each time they are asked for; ended ones once).  The MCP
server's (streamtwin/mcp_server/) and serve's "Ask all meetings" (streamtwin/service/past_meetings.py).

:meth:`Catalog.watch` polls the log for what an MCP client subscribed to a session would want to know: which
sessions are live (the resource list changes) and which of them grew (a resource changed).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from streamtwin.eventlog.store import LIVE, EventStore, SessionRecord, StoreUnavailable
from streamtwin.meetings.library import LibraryError, read_session
from streamtwin.meetings.transcript import Meeting

log = logging.getLogger(__name__)

WATCH_S = 0.5  # how often the log is looked at for new live sessions and new events


@dataclass(frozen=True)
class Entry:
    id: str
    kind: str  # "recording" | "session"
    state: str  # recordings: "ended"; sessions: live | ended | lost
    started: float

    def to_dict(self) -> dict[str, object]:
        return dict(self.__dict__)


class Catalog:
    def __init__(self, recordings: list[Meeting], store: EventStore | None) -> None:
        self._recordings = {meeting.name: meeting for meeting in recordings}
        self.store = store
        self._live: dict[str, int] = {}  # live session -> the last seq seen by watch()
        self._ended: dict[str, Meeting] = {}  # sessions read after they ended, until their log expires

    @property
    def live(self) -> list[str]:
        return list(self._live)

    async def entries(self) -> list[Entry]:
        found = [Entry(m.name, "recording", "ended", m.started) for m in self._recordings.values()]
        if self.store is not None:
            found += [Entry(r.id, "session", r.state, r.started) for r in await self._records()]
        return sorted(found, key=lambda entry: entry.started)

    async def meeting(self, name: str) -> Meeting:
        """A recording or a session by its id; :class:`~streamtwin.meetings.library.LibraryError` if none."""
        if name in self._recordings:
            return self._recordings[name]
        meeting = await self._session(name) if self.store is not None else None
        if meeting is None:
            raise LibraryError(f"no meeting {name!r}: list_sessions names them")
        return meeting

    async def meetings(self, name: str = "") -> list[Meeting]:
        """One meeting, or (``name`` empty) every one, oldest first.  A session that has ended does not change
        any more: it is read from the log once.  A listed session with nothing to read (opened a moment ago, its
        first events not yet written; or expired since) is left out of every one, not an error for them all."""
        if name:
            return [await self.meeting(name)]
        found = []
        entries = await self.entries()
        listed = {entry.id for entry in entries}
        self._ended = {session: meeting for session, meeting in self._ended.items() if session in listed}
        for entry in entries:
            meeting = self._ended.get(entry.id)
            if meeting is None:
                meeting = self._recordings[entry.id] if entry.kind == "recording" else await self._session(entry.id)
                if meeting is None:
                    continue
                if entry.kind == "session" and entry.state != LIVE:
                    self._ended[entry.id] = meeting
            found.append(meeting)
        return found

    async def _session(self, session: str) -> Meeting | None:
        """A session of the log as far as it goes, or None when nothing of it can be read (unknown, not yet
        written, expired, or not events); :class:`LibraryError` when the log is unreachable."""
        assert self.store is not None
        try:
            return await read_session(self.store, session, f"session {session}")
        except StoreUnavailable as exc:
            raise LibraryError(f"the event log is unreachable: {exc}") from None
        except LibraryError as exc:
            log.info("session %s: nothing to read (%s)", session, exc)
            return None

    async def _records(self) -> list[SessionRecord]:
        assert self.store is not None
        try:
            return await self.store.sessions()
        except StoreUnavailable as exc:
            raise LibraryError(f"the event log is unreachable: {exc}") from None

    async def watch(
        self, listed: Callable[[], Awaitable[None]], grew: Callable[[str], Awaitable[None]], every_s: float = WATCH_S,
    ) -> None:
        """Until cancelled: ``listed()`` when the set of live sessions changes, ``grew(id)`` when one has new
        events.  A store that is down is waited out (logged once per outage)."""
        if self.store is None:
            return
        down = False
        while True:
            try:
                records = [r for r in await self.store.live_sessions() if r.state == LIVE]
                tops = {r.id: await self.store.last_seq(r.id) for r in records}
                down = False
            except StoreUnavailable as exc:
                if not down:
                    log.warning("the event log is unreachable (%s); live resources wait for it", exc)
                down = True
                await asyncio.sleep(every_s)
                continue
            changed_list = set(tops) != set(self._live)
            previous, self._live = self._live, tops
            if changed_list:
                await listed()
            for session, top in tops.items():
                if top != previous.get(session, 0):
                    await grew(session)
            await asyncio.sleep(every_s)
