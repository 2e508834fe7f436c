"""The event store on Redis (redis-py, asyncio): one Stream per session, a hash per session, a hash of
node heartbeats.

Stream entry ids are ``SEQ-0``, so reading after a seq is exact (``XRANGE``/``XREAD`` from ``SEQ-0``).
Appends go through one Lua script that refuses a seq below the stream's top, or a session that is no
longer live (a node that was declared dead cannot write after its ``session.ended``); the same entry at
the same seq is a retry whose reply was lost (accepted, nothing added).  It stores ``prev`` (the
top's seq), checks the writer's ``expect`` and trims to ``MAXLEN``.  Entries after ``expect`` that are
not this append's retry were not written by the writer (someone else wrote into the stream): they are
removed, so an id ahead of the session's seq cannot block every later append.  Keys share a
``{SESSION}`` hash tag, so a session's keys live in one cluster slot.

What Redis holds comes from outside: an entry that is not one event as the writer stores it (fields,
JSON, its seq) is skipped when read, with one warning, never a crash.  A Redis that refuses writes
(``maxmemory`` reached, a read-only replica) is unavailable, as one that does not answer: the writer
keeps the events and the node says ``degraded``.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from contextlib import contextmanager

import redis.asyncio as redis
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.exceptions import AuthenticationError
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import OutOfMemoryError, ReadOnlyError, ResponseError
from redis.exceptions import TimeoutError as RedisTimeoutError

from streamtwin.eventlog.store import (
    ENDED,
    LIVE,
    Append,
    EventStore,
    LogEntry,
    LostEntries,
    SessionRecord,
    StaleAppend,
    StoreSettings,
    StoreUnavailable,
)
from streamtwin.eventlog.redis_url import parse_redis_url

log = logging.getLogger(__name__)

MAX_BLOCK_S = 5.0  # one XREAD BLOCK; below the socket timeout, so a dead server is noticed
SOCKET_TIMEOUT_S = MAX_BLOCK_S + 5.0
PROBE_KEEP_MS = 10_000  # a health probe's key expires by itself
MAX_SKIPPED_REMEMBERED = 4096  # malformed entries warned about once each (then the memory starts again)
# Error replies of a Redis that refuses service for now: out of memory, read-only, a failing disk, a script or
# a load in the way, a cluster that is not ready.
REFUSALS = {"OOM", "READONLY", "MISCONF", "NOREPLICAS", "MASTERDOWN", "BUSY", "LOADING", "TRYAGAIN", "CLUSTERDOWN"}

APPEND = """
local function top()
  local newest = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 1)
  if #newest > 0 then return tonumber(string.match(newest[1][1], '^(%d+)')) end
  return 0
end
local state = redis.call('HGET', KEYS[2], 'state')
if state and state ~= 'live' and ARGV[4] ~= '1' then
  return redis.error_reply('STALE session is ' .. state)
end
local seq, prev, removed = tonumber(ARGV[1]), top(), 0
if seq <= prev then
  local same = redis.call('XRANGE', KEYS[1], ARGV[1] .. '-0', ARGV[1] .. '-0')
  if #same > 0 and same[1][2][3] == 'd' and same[1][2][4] == ARGV[2] then
    return {tonumber(same[1][2][2]) or 0, 0}
  end
end
if ARGV[5] ~= '' and prev > tonumber(ARGV[5]) then
  for _, entry in ipairs(redis.call('XRANGE', KEYS[1], '(' .. ARGV[5] .. '-0', '+')) do
    redis.call('XDEL', KEYS[1], entry[1])
    removed = removed + 1
  end
  redis.call('XSETID', KEYS[1], ARGV[5] .. '-0')
  prev = top()
end
if seq <= prev then
  return redis.error_reply('STALE seq ' .. ARGV[1] .. ' is not after ' .. prev)
end
if ARGV[5] ~= '' and tonumber(ARGV[5]) ~= prev then
  return redis.error_reply('LOST ' .. prev)
end
redis.call('XADD', KEYS[1], 'MAXLEN', ARGV[3], ARGV[1] .. '-0', 'p', prev, 'd', ARGV[2])
return {prev, removed}
"""

CLAIM = """
if redis.call('HGET', KEYS[1], 'state') == 'live' and redis.call('HGET', KEYS[1], 'node') == ARGV[1] then
  redis.call('HSET', KEYS[1], 'state', 'lost')
  return 1
end
return 0
"""


class RedisStore(EventStore):
    def __init__(self, url: str, settings: StoreSettings | None = None, *, prefix: str = "streamtwin"):
        super().__init__(settings)
        target = parse_redis_url(url)
        self.where = target.shown
        self._prefix = prefix
        # One immediate retry (a pooled connection to a Redis that restarted is dead; a fresh one is not), no
        # backoff inside the client: the caller (LogWriter, follow) owns it and says when Redis is down.
        # A retried append whose first reply was lost is recognised by the script (same seq as the top).
        self._redis = redis.from_url(
            target.url,
            socket_connect_timeout=2.0,
            socket_timeout=SOCKET_TIMEOUT_S,
            retry=Retry(NoBackoff(), 1),
            health_check_interval=0,
        )
        self._append = self._redis.register_script(APPEND)
        self._skipped: set[tuple[str, bytes]] = set()  # malformed entries already warned about
        self._claim_script = self._redis.register_script(CLAIM)

    def _key(self, session: str, kind: str) -> str:
        return f"{self._prefix}:{{{session}}}:{kind}"

    @property
    def _live_key(self) -> str:
        return f"{self._prefix}:live"

    @property
    def _nodes_key(self) -> str:
        return f"{self._prefix}:nodes"

    @contextmanager
    def _reachable(self) -> Iterator[None]:
        try:
            yield
        except StoreUnavailable:
            raise
        except AuthenticationError as exc:
            if "@" not in self.where:
                why = "wants a password: redis://:PASSWORD@HOST:PORT/DB"
            else:
                why = f"refused the password: {exc}"
            raise StoreUnavailable(f"Redis at {self.where} {why}") from None
        except (RedisConnectionError, RedisTimeoutError, OSError) as exc:
            raise StoreUnavailable(f"Redis at {self.where} is unreachable: {exc}") from None
        except ResponseError as exc:
            if not refuses_service(exc):
                raise
            raise self._refusing(exc) from None

    def _refusing(self, exc: ResponseError) -> StoreUnavailable:
        return StoreUnavailable(f"Redis at {self.where} refuses writes: {exc}")

    async def probe(self, node: str) -> None:
        """A write that expires by itself: refused when Redis is out of memory or read-only, as appends are."""
        with self._reachable():
            await self._redis.set(f"{self._prefix}:probe:{node}", 1, px=PROBE_KEEP_MS)

    async def ping(self) -> None:
        with self._reachable():
            await self._redis.ping()

    async def append(
        self, session: str, seq: int, data: bytes, *, expect: int | None = None, sealing: bool = False
    ) -> int:
        with self._reachable():
            try:
                reply = await self._append(*self._append_args(session, seq, data, expect, sealing))
            except ResponseError as exc:
                if refuses_service(exc):
                    raise
                raise _append_error(session, exc, expect) from None
        return self._appended(session, reply)

    async def append_many(self, writes: list[Append]) -> list[int | Exception]:
        """One round trip for many appends (a pipeline, not a transaction: each stands alone)."""
        with self._reachable():
            async with self._redis.pipeline(transaction=False) as pipe:
                for write in writes:
                    await self._append(*self._append_args(*write, False), client=pipe)
                replies = await pipe.execute(raise_on_error=False)
        refusal = next((r for r in replies if isinstance(r, ResponseError) and refuses_service(r)), None)
        if refusal is not None:  # Redis refuses writes now: none of them is lost, all are tried again later
            raise self._refusing(refusal)
        return [
            _append_error(write[0], reply, write[3]) if isinstance(reply, ResponseError)
            else reply if isinstance(reply, Exception) else self._appended(write[0], reply)
            for write, reply in zip(writes, replies)
        ]

    def _appended(self, session: str, reply: list[int]) -> int:
        """The ``prev`` of an append; entries the script removed (someone else's, ahead of the writer) are told."""
        prev, removed = (int(part) for part in reply)
        if removed:
            log.warning("session %s: removed %d log entries this node did not write, ahead of its own", session,
                        removed)
        return prev

    def _append_args(
        self, session: str, seq: int, data: bytes, expect: int | None, sealing: bool
    ) -> tuple[list[str], list[object]]:
        keys = [self._key(session, "log"), self._key(session, "info")]
        return keys, [seq, data, self.settings.maxlen, int(sealing), "" if expect is None else expect]

    async def read_after(self, session: str, after: int, limit: int = 1000) -> list[LogEntry]:
        """(Entries that are skipped do not count towards ``limit``: a page stays a page.)"""
        key, start, entries = self._key(session, "log"), f"{after + 1}-0".encode(), []
        while True:
            wanted = limit - len(entries)
            with self._reachable():
                rows = await self._redis.xrange(key, min=start, count=wanted)
            entries += self._entries(session, rows)
            if len(rows) < wanted or len(entries) >= limit:
                return entries
            start = b"(" + rows[-1][0]  # past what was skipped

    async def tail(self, session: str, after: int, timeout_s: float) -> list[LogEntry]:
        """(Entries that are skipped are waited past: a malformed newest entry must not end each wait at once.)"""
        block_ms = max(1, int(min(timeout_s, MAX_BLOCK_S) * 1000))
        key, start = self._key(session, "log"), f"{after}-0".encode()
        while True:
            with self._reachable():
                reply = await self._redis.xread({key: start}, count=1000, block=block_ms)
            rows = [row for _, rows in reply or [] for row in rows]
            entries = self._entries(session, rows)
            if entries or not rows:
                return entries
            start = rows[-1][0]

    def _entries(self, session: str, rows: list[tuple[bytes, dict[bytes, bytes]]]) -> list[LogEntry]:
        """The entries that are events as the writer stores them; any other is skipped, with one warning."""
        entries = []
        for entry_id, fields in rows:
            entry = parse_entry(entry_id, fields)
            if entry is not None:
                entries.append(entry)
            elif (session, entry_id) not in self._skipped:
                if len(self._skipped) >= MAX_SKIPPED_REMEMBERED:
                    self._skipped.clear()
                self._skipped.add((session, entry_id))
                log.warning("session %s: skipped log entry %s: not an event as this service stores it",
                            session, entry_id.decode(errors="replace")[:40])
        return entries

    async def last_seq(self, session: str) -> int:
        with self._reachable():
            top = await self._redis.xrevrange(self._key(session, "log"), count=1)
        return _seq(top[0][0]) if top else 0

    async def register(self, session: str, node: str, started: float, viewer_key: str = "") -> None:
        info = {"node": node, "state": LIVE, "started": started, "viewer_key": viewer_key}
        with self._reachable():
            async with self._redis.pipeline(transaction=True) as pipe:
                pipe.hset(self._key(session, "info"), mapping=info)
                pipe.sadd(self._live_key, session)
                await pipe.execute()

    async def heartbeat(self, node: str, now: float) -> None:
        with self._reachable():
            await self._redis.hset(self._nodes_key, node, now)

    async def record(self, session: str) -> SessionRecord | None:
        with self._reachable():
            info = await self._redis.hgetall(self._key(session, "info"))
            if not info:
                return None
            node = info.get(b"node", b"").decode(errors="replace")
            beat = await self._redis.hget(self._nodes_key, node)
        try:
            return SessionRecord(
                session, node, info[b"state"].decode(), float(info[b"started"]), float(beat or 0.0),
                info.get(b"viewer_key", b"").decode(),
            )
        except (KeyError, ValueError):  # not a record this service wrote: no such session
            log.warning("session %s: its directory entry is not one this service writes; ignored", session)
            return None

    async def live_sessions(self) -> list[SessionRecord]:
        with self._reachable():
            sessions = [member.decode() for member in await self._redis.smembers(self._live_key)]
        records = [await self.record(session) for session in sessions]
        return [record for record in records if record is not None and record.state == LIVE]

    async def sessions(self) -> list[SessionRecord]:
        pattern = self._key("*", "info")
        with self._reachable():
            keys = [key async for key in self._redis.scan_iter(match=pattern, count=1000)]
        ids = sorted({key.decode().split("{", 1)[1].rsplit("}", 1)[0] for key in keys})
        records = [await self.record(session) for session in ids]
        return [record for record in records if record is not None]

    async def end(self, session: str, state: str = ENDED) -> None:
        expire_ms = max(1, int(self.settings.expire_s * 1000))
        info = self._key(session, "info")
        with self._reachable():
            async with self._redis.pipeline(transaction=True) as pipe:
                pipe.hset(info, "state", state)
                pipe.pexpire(info, expire_ms)
                pipe.pexpire(self._key(session, "log"), expire_ms)
                pipe.srem(self._live_key, session)
                await pipe.execute()

    async def count_viewers(self, node: str, counts: dict[str, int], now: float) -> None:
        keep_ms = max(1, int(2 * self.settings.node_expiry_s * 1000))
        with self._reachable():
            async with self._redis.pipeline(transaction=False) as pipe:
                for session, count in counts.items():
                    key = self._key(session, "viewers")
                    if count:
                        pipe.hset(key, node, f"{count} {now}")
                        pipe.pexpire(key, keep_ms)
                    else:
                        pipe.hdel(key, node)
                await pipe.execute()

    async def viewers(self, session: str, now: float) -> dict[str, int]:
        with self._reachable():
            counts = await self._redis.hgetall(self._key(session, "viewers"))
        return fresh_counts(
            {node.decode(): value.decode() for node, value in counts.items()}, now, self.settings.node_expiry_s
        )

    async def _claim(self, session: str, node: str) -> bool:
        with self._reachable():
            return bool(await self._claim_script([self._key(session, "info")], [node]))

    async def close(self) -> None:
        await self._redis.aclose()


def fresh_counts(counts: dict[str, str], now: float, expiry_s: float) -> dict[str, int]:
    """``node -> "COUNT WALL"`` as stored, without the counts older than ``expiry_s``."""
    out = {}
    for node, value in counts.items():
        count, _, at = value.partition(" ")
        if now - float(at) <= expiry_s:
            out[node] = int(count)
    return out


def _append_error(session: str, exc: ResponseError, expect: int | None) -> Exception:
    reason = str(exc)
    if reason.startswith("STALE"):
        return StaleAppend(f"session {session}: {reason[6:]}")
    if reason.startswith("LOST") and expect is not None:
        return LostEntries(session, int(reason.split()[1]), expect)
    return exc


def refuses_service(exc: ResponseError) -> bool:
    """An error reply that says Redis refuses writes for now (not that this append is wrong)."""
    return str(exc).split(" ", 1)[0] in REFUSALS or isinstance(exc, (OutOfMemoryError, ReadOnlyError))


def _seq(entry_id: bytes) -> int:
    return int(entry_id.split(b"-", 1)[0])


def parse_entry(entry_id: bytes, fields: dict[bytes, bytes]) -> LogEntry | None:
    """A stream entry as an event of the log, or None for anything else (hand-written, damaged)."""
    try:
        seq, prev, data = _seq(entry_id), int(fields[b"p"]), fields[b"d"]
        event = json.loads(data)
    except (KeyError, ValueError, RecursionError):  # (json's errors are ValueErrors, UTF-8 ones too)
        return None
    if not (isinstance(event, dict) and isinstance(event.get("type"), str) and event.get("seq") == seq):
        return None
    return LogEntry(seq, prev, data)
