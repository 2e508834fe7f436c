"""The event store on Redis (redis-py, asyncio): one Stream per session, a hash per session, a hash of
node heartbeats.

Stream entry ids are ``SEQ-0``, so reading after a seq is exact (``XRANGE``/``XREAD`` from ``SEQ-0``).
Appends go through one Lua script that refuses a seq below the stream's top, or a session that is no
longer live (a node that was declared dead cannot write after its ``session.ended``); a seq the stream
holds already is a retry whose reply was lost (accepted, nothing added).  It stores ``prev`` (the
top's seq), checks the writer's ``expect`` and trims to ``MAXLEN``.  Keys share a ``{SESSION}`` hash
tag, so a session's keys live in one cluster slot.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager

import redis.asyncio as redis
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.exceptions import AuthenticationError
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import ResponseError
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

APPEND = """
local state = redis.call('HGET', KEYS[2], 'state')
if state and state ~= 'live' and ARGV[4] ~= '1' then
  return redis.error_reply('STALE session is ' .. state)
end
local top = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 1)
local prev = 0
if #top > 0 then prev = tonumber(string.match(top[1][1], '^(%d+)')) end
if tonumber(ARGV[1]) <= prev then
  local same = redis.call('XRANGE', KEYS[1], ARGV[1] .. '-0', ARGV[1] .. '-0')
  if #same > 0 then return tonumber(same[1][2][2]) end
  return redis.error_reply('STALE seq ' .. ARGV[1] .. ' is not after ' .. prev)
end
if ARGV[5] ~= '' and tonumber(ARGV[5]) ~= prev then
  return redis.error_reply('LOST ' .. prev)
end
redis.call('XADD', KEYS[1], 'MAXLEN', ARGV[3], ARGV[1] .. '-0', 'p', prev, 'd', ARGV[2])
return prev
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
        except AuthenticationError as exc:
            if "@" not in self.where:
                why = "wants a password: redis://:PASSWORD@HOST:PORT/DB"
            else:
                why = f"refused the password: {exc}"
            raise StoreUnavailable(f"Redis at {self.where} {why}") from None
        except (RedisConnectionError, RedisTimeoutError, OSError) as exc:
            raise StoreUnavailable(f"Redis at {self.where} is unreachable: {exc}") from None

    async def ping(self) -> None:
        with self._reachable():
            await self._redis.ping()

    async def append(
        self, session: str, seq: int, data: bytes, *, expect: int | None = None, sealing: bool = False
    ) -> int:
        with self._reachable():
            try:
                prev = await self._append(*self._append_args(session, seq, data, expect, sealing))
            except ResponseError as exc:
                raise _append_error(session, exc, expect) from None
        return int(prev)

    async def append_many(self, writes: list[Append]) -> list[int | Exception]:
        """One round trip for many appends (a pipeline, not a transaction: each stands alone)."""
        with self._reachable():
            async with self._redis.pipeline(transaction=False) as pipe:
                for write in writes:
                    await self._append(*self._append_args(*write, False), client=pipe)
                replies = await pipe.execute(raise_on_error=False)
        return [
            _append_error(write[0], reply, write[3]) if isinstance(reply, ResponseError)
            else reply if isinstance(reply, Exception) else int(reply)
            for write, reply in zip(writes, replies)
        ]

    def _append_args(
        self, session: str, seq: int, data: bytes, expect: int | None, sealing: bool
    ) -> tuple[list[str], list[object]]:
        keys = [self._key(session, "log"), self._key(session, "info")]
        return keys, [seq, data, self.settings.maxlen, int(sealing), "" if expect is None else expect]

    async def read_after(self, session: str, after: int, limit: int = 1000) -> list[LogEntry]:
        with self._reachable():
            rows = await self._redis.xrange(self._key(session, "log"), min=f"{after + 1}-0", count=limit)
        return [_entry(entry_id, fields) for entry_id, fields in rows]

    async def tail(self, session: str, after: int, timeout_s: float) -> list[LogEntry]:
        block_ms = max(1, int(min(timeout_s, MAX_BLOCK_S) * 1000))
        key = self._key(session, "log")
        with self._reachable():
            reply = await self._redis.xread({key: f"{after}-0"}, count=1000, block=block_ms)
        return [_entry(entry_id, fields) for _, rows in reply or [] for entry_id, fields in rows]

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
            node = info[b"node"].decode()
            beat = await self._redis.hget(self._nodes_key, node)
        return SessionRecord(
            session, node, info[b"state"].decode(), float(info[b"started"]), float(beat or 0.0),
            info.get(b"viewer_key", b"").decode(),
        )

    async def live_sessions(self) -> list[SessionRecord]:
        with self._reachable():
            sessions = [member.decode() for member in await self._redis.smembers(self._live_key)]
        records = [await self.record(session) for session in sessions]
        return [record for record in records if record is not None and record.state == LIVE]

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


def _seq(entry_id: bytes) -> int:
    return int(entry_id.split(b"-", 1)[0])


def _entry(entry_id: bytes, fields: dict[bytes, bytes]) -> LogEntry:
    return LogEntry(_seq(entry_id), int(fields[b"p"]), fields[b"d"])
