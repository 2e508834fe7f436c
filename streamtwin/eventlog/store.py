"""The event store's interface: a log per session (append in seq order, read after a seq, tail) and a
directory of sessions (which node runs each one, its state, its node's last heartbeat).

Entries are the events serialised once (:func:`streamtwin.events.encode`), the same bytes every viewer
gets.  Seqs grow but need not be contiguous (merged ``assistant.delta`` frames skip seqs), so each entry
also carries ``prev``, the seq of the entry before it: a reader at seq N whose next entry has a ``prev``
above N knows entries in between were trimmed (:mod:`streamtwin.eventlog.resume`).
"""

from __future__ import annotations

import abc
from dataclasses import dataclass

from streamtwin.events import Error, SessionEnded, encode

LIVE, ENDED, LOST = "live", "ended", "lost"


class StoreUnavailable(ConnectionError):
    """The store cannot be reached (Redis down, refused, timed out)."""


class StaleAppend(ValueError):
    """An append the log refuses: its seq is below the last one, or the session is no longer live
    (ended, or marked lost by another node)."""


class LostEntries(RuntimeError):
    """The log's newest entry is not the one this writer appended last: the store lost entries it had
    accepted (a Redis restarted without persistence).  ``top`` is the newest seq it still holds."""

    def __init__(self, session: str, top: int, expected: int):
        super().__init__(f"session {session}: the log ends at seq {top}, not at {expected} as written")
        self.top = top
        self.expected = expected


@dataclass(frozen=True)
class LogEntry:
    seq: int
    prev: int  # seq of the entry before this one in the log; 0 for the first
    data: bytes  # one event, serialised as viewers receive it


Append = tuple[str, int, bytes, "int | None"]  # session, seq, data, expect (see EventStore.append)


@dataclass(frozen=True)
class SessionRecord:
    id: str
    node: str  # the node that runs the pipeline (the publisher's node)
    state: str  # live | ended | lost
    started: float  # wall clock
    heartbeat: float  # the node's last heartbeat, wall clock (0: never)
    viewer_key: str = ""  # SHA-256 of the session's viewer token (streamtwin.service.access.token_digest)


@dataclass(frozen=True)
class StoreSettings:
    maxlen: int = 100_000  # entries kept per session; older ones are trimmed (resume then reports a gap)
    max_bytes: int = 64 << 20  # in memory only: bytes kept per session (thumbnails are tens of KB each)
    expire_s: float = 24 * 3600.0  # how long a session's log stays readable after it ended
    node_expiry_s: float = 10.0  # a node silent this long is dead: its live sessions are lost (nodes' clocks
    # must agree to well within it: NTP)

    def __post_init__(self) -> None:
        if self.maxlen < 1 or self.max_bytes < 1 or self.expire_s <= 0 or self.node_expiry_s <= 0:
            raise ValueError(
                f"the event log needs log_maxlen >= 1 (not {self.maxlen}), log_max_bytes >= 1 (not "
                f"{self.max_bytes}), log_expire_s > 0 (not {self.expire_s}) and node_expiry_s > 0 (not "
                f"{self.node_expiry_s})"
            )


class EventStore(abc.ABC):
    """Event log and session directory.  Every method may raise :class:`StoreUnavailable`."""

    def __init__(self, settings: StoreSettings | None = None):
        self.settings = settings or StoreSettings()

    # --- the log ---------------------------------------------------------------------------------
    @abc.abstractmethod
    async def append(
        self, session: str, seq: int, data: bytes, *, expect: int | None = None, sealing: bool = False
    ) -> int:
        """Append one event after the last; returns the ``prev`` it got.  A seq the log holds already is a
        retry whose reply was lost: nothing is added.  Raises :class:`StaleAppend` when ``seq`` is below the
        last but not held, or the session is not live (``sealing``: the node closing a lost session may
        still append); :class:`LostEntries` when ``expect`` (the seq this writer appended last) is not the
        log's newest."""

    async def append_many(self, writes: list[Append]) -> list[int | Exception]:
        """Several appends in order, each standing alone: for each, the ``prev`` it got or the
        :class:`StaleAppend`/:class:`LostEntries` it met.  :class:`StoreUnavailable` is raised (and then
        any of them may or may not be in: appending them again is safe)."""
        out: list[int | Exception] = []
        for session, seq, data, expect in writes:
            try:
                out.append(await self.append(session, seq, data, expect=expect))
            except (StaleAppend, LostEntries) as exc:
                out.append(exc)
        return out

    async def probe(self, node: str) -> None:
        """Raise :class:`StoreUnavailable` unless the store takes a write now (``node``: whose probe it is).
        A store inside the process always does."""

    @abc.abstractmethod
    async def read_after(self, session: str, after: int, limit: int = 1000) -> list[LogEntry]:
        """The entries with a seq above ``after`` that the log still holds, oldest first, at most ``limit``."""

    @abc.abstractmethod
    async def tail(self, session: str, after: int, timeout_s: float) -> list[LogEntry]:
        """Like :meth:`read_after`, but waits up to ``timeout_s`` for an entry when there is none yet."""

    @abc.abstractmethod
    async def last_seq(self, session: str) -> int:
        """The seq of the newest entry (0: none, or the log expired)."""

    # --- the directory ---------------------------------------------------------------------------
    @abc.abstractmethod
    async def register(self, session: str, node: str, started: float, viewer_key: str = "") -> None:
        """A session now runs on ``node``; ``viewer_key`` lets any node check its viewers' token."""

    @abc.abstractmethod
    async def heartbeat(self, node: str, now: float) -> None:
        """``node`` is alive (call it every few seconds, well within ``node_expiry_s``)."""

    @abc.abstractmethod
    async def record(self, session: str) -> SessionRecord | None:
        """The directory entry, or None for an unknown or expired session."""

    @abc.abstractmethod
    async def live_sessions(self) -> list[SessionRecord]:
        """Every session whose state is live, on any node."""

    @abc.abstractmethod
    async def sessions(self) -> list[SessionRecord]:
        """Every session in the directory, live, ended or lost, until its record expires (``streamtwin ask``
        and the MCP server read them all)."""

    @abc.abstractmethod
    async def end(self, session: str, state: str = ENDED) -> None:
        """The session is over (``session.ended`` appended): no more appends; its log and record expire
        ``expire_s`` from now."""

    # --- viewers across nodes ---------------------------------------------------------------------
    @abc.abstractmethod
    async def count_viewers(self, node: str, counts: dict[str, int], now: float) -> None:
        """``node`` serves ``counts[session]`` viewers of each session (0: none any more)."""

    @abc.abstractmethod
    async def viewers(self, session: str, now: float) -> dict[str, int]:
        """Viewers of ``session`` per node, as each node last counted them; a count older than
        ``node_expiry_s`` is left out (its node died, or stopped serving it without saying so)."""

    @abc.abstractmethod
    async def _claim(self, session: str, node: str) -> bool:
        """Atomically move a live session of ``node`` to lost; False if someone else did (or it ended)."""

    @abc.abstractmethod
    async def close(self) -> None: ...

    # --- failover --------------------------------------------------------------------------------
    async def reap_lost(self, now: float, silent_s: float | None = None) -> list[str]:
        """Sessions whose node has been silent for more than ``silent_s`` (default ``node_expiry_s``): marked
        lost once (whichever node gets there first), with an ``error`` ``node_lost`` and ``session.ended``
        appended for every viewer.  Returns their ids."""
        silent_s = self.settings.node_expiry_s if silent_s is None else silent_s
        reaped = []
        for record in await self.live_sessions():
            if now - max(record.heartbeat, record.started) <= silent_s:
                continue
            if not await self._claim(record.id, record.node):
                continue
            last = await self.last_seq(record.id)
            for offset, event in enumerate(lost_events(record, now), start=1):
                event.session, event.seq, event.wall = record.id, last + offset, now
                await self.append(record.id, event.seq, encode(event.to_dict()), sealing=True)
            await self.end(record.id, LOST)
            reaped.append(record.id)
        return reaped


def lost_events(record: SessionRecord, now: float) -> list[Error | SessionEnded]:
    """What viewers are told when the node running their session died."""
    silent = now - max(record.heartbeat, record.started)
    return [
        Error(
            code="node_lost",
            message=f"the node running this session stopped answering {silent:.0f} s ago; the session is over",
            fatal=True,
        ),
        SessionEnded(stats={"lost": True}),
    ]
