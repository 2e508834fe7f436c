"""The event store a config asks for: Redis with ``--redis`` (checked: reachable, or one clear error), else
in memory."""

from __future__ import annotations

from dataclasses import replace

from streamtwin.config import Config
from streamtwin.eventlog.store import EventStore, StoreSettings, StoreUnavailable
from streamtwin.eventlog.memory_store import MemoryStore
from streamtwin.eventlog.redis_url import BadRedisURL

MEMORY_EXPIRE_S = 300.0  # in memory, an ended session's log is kept at most this long


def store_settings(config: Config) -> StoreSettings:
    return StoreSettings(
        maxlen=config.log_maxlen,
        max_bytes=config.log_max_bytes,
        expire_s=config.log_expire_s,
        node_expiry_s=config.node_expiry_s,
    )


async def open_store(config: Config, url: str | None = None) -> EventStore:
    """The store for ``config`` (``url`` overrides ``config.redis``).  Raises :class:`StoreError` with a
    one-line message (no password in it) for a bad URL or a Redis that does not answer."""
    url = config.redis if url is None else url
    try:
        settings = store_settings(config)
    except ValueError as exc:
        raise StoreError(str(exc)) from None
    if not url:  # one process: an ended session's log serves late resumes, not a day of this process's memory
        return MemoryStore(replace(settings, expire_s=min(settings.expire_s, MEMORY_EXPIRE_S)))
    from streamtwin.eventlog.redis_store import RedisStore

    try:
        store = RedisStore(url, settings)
    except BadRedisURL as exc:
        raise StoreError(f"--redis: {exc}") from None
    try:
        await store.ping()
    except StoreUnavailable as exc:
        await store.close()
        raise StoreError(str(exc)) from None
    return store


class StoreError(Exception):
    """The configured event store cannot be used: say so in one line and exit 1."""
