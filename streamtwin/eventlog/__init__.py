"""A session's event log and the session directory, behind one interface (:class:`EventStore`).

Everything a viewer sees is an appended event with a seq; resume, replay and node failover are reads of
this log.  Two implementations: :class:`~streamtwin.eventlog.memory_store.MemoryStore` (one process, the embedded
default) and :class:`~streamtwin.eventlog.redis_store.RedisStore` (Redis Streams, many nodes).
:class:`~streamtwin.eventlog.writer.LogWriter` appends a node's events in order and rides out a store that
is down; :class:`~streamtwin.eventlog.node.NodeKeeper` heartbeats and reaps dead nodes' sessions;
:mod:`~streamtwin.eventlog.follow` reads a session to its end for a viewer (resume, gap, snapshot);
:class:`~streamtwin.eventlog.node_log.NodeLog` puts them together: the one object the server holds.
"""

from streamtwin.eventlog.store import (
    EventStore,
    LogEntry,
    SessionRecord,
    StaleAppend,
    StoreUnavailable,
    StoreSettings,
)

__all__ = ["EventStore", "LogEntry", "SessionRecord", "StaleAppend", "StoreSettings", "StoreUnavailable"]
