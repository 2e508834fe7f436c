"""Viewers fed from a session's event log instead of its live fan-out: a viewer that resumes from a seq
(``hello.resume_from``), and every viewer of a session that runs on another node.

Each one gets :meth:`~pipeline.eventlog.service.NodeLog.feed` (exactly the events after its seq, or a
``resume_gap`` error and the snapshot, then live events, to ``session.ended``) through its own
:class:`~pipeline.channel.ClientChannel`, the same outbox as a local viewer: ``assistant.delta`` frames
go in as shared frames, so a viewer that falls behind gets them merged (or dropped, with a notice) there
too.  The log is the truth, so a viewer on another node gets the same seqs and the same bytes.
"""

from __future__ import annotations

import asyncio
import json
import logging

from .channel import ClientChannel
from .eventlog.service import NodeLog
from .policy.outbox import SharedFrame
from .policy.resume import Gap
from .protocol import CLOSE_GOING_AWAY, CLOSE_INTERNAL, CLOSE_NORMAL

log = logging.getLogger(__name__)

PACE_MESSAGES = 256  # a backlog waits while this many messages wait for the viewer (its outbox holds 1000)


class LogViewer:
    """One viewer reading the log; it stands where a :class:`~pipeline.registry.LiveSession` stands for a
    local viewer (``channel.live``): it has the session's ``id`` and lets the channel go (``remove``)."""

    def __init__(
        self, viewers: LogViewers, session: str, channel: ClientChannel, resume_from: int | None, snapshot: bool
    ):
        self.id = session
        self._viewers = viewers
        self._channel = channel
        self._task = asyncio.ensure_future(self._run(resume_from, snapshot))

    def remove(self, channel: ClientChannel) -> None:
        """The viewer left (or was dropped as too slow): stop reading for it."""
        self._task.cancel()
        self._viewers.forget(self)

    def going_away(self) -> None:
        """The server shuts down: stop reading and say so (1001: the viewer resumes on another node)."""
        self._task.cancel()
        self._channel.finish(CLOSE_GOING_AWAY, "server shutting down")

    async def _run(self, resume_from: int | None, snapshot: bool) -> None:
        channel = self._channel
        node_log = self._viewers.node_log
        assert node_log is not None
        try:
            if resume_from is None and not snapshot:  # only what comes from now on
                resume_from = await node_log.store.last_seq(self.id)
            async for item in node_log.feed(self.id, resume_from):
                await channel.room(PACE_MESSAGES)
                if isinstance(item, Gap):
                    channel.error("resume_gap", item.message)
                else:
                    put(channel, item)
            channel.finish(CLOSE_NORMAL, "session ended")
        except asyncio.CancelledError:
            raise
        except Exception:  # a bug: this viewer ends, the others go on
            log.exception("feeding a viewer of session %s from the log failed", self.id)
            channel.error("internal", "internal server error", fatal=True)
            channel.finish(CLOSE_INTERNAL, "internal error")
        finally:
            self._viewers.forget(self)


def put(channel: ClientChannel, data: bytes) -> None:
    """One logged event into a viewer's outbox: a delta frame as a frame (mergeable), the rest as is."""
    body = json.loads(data)
    if body.get("type") == "assistant.delta":
        channel.put_frame(SharedFrame(body["generation"], body["text"], body, data))
    else:
        channel.put(data)


class LogViewers:
    """This node's viewers fed from the log, by session."""

    def __init__(self) -> None:
        self.node_log: NodeLog | None = None  # set by the server once its store is open
        self._by_session: dict[str, set[LogViewer]] = {}

    def count(self, session: str) -> int:
        return len(self._by_session.get(session, ()))

    @property
    def total(self) -> int:
        return sum(len(viewers) for viewers in self._by_session.values())

    def add(self, channel: ClientChannel, session: str, resume_from: int | None, *, snapshot: bool) -> LogViewer:
        """Feed ``channel`` the events after ``resume_from`` (None: the snapshot first, or with
        ``snapshot`` off only what comes from now on)."""
        viewer = LogViewer(self, session, channel, resume_from, snapshot)
        self._by_session.setdefault(session, set()).add(viewer)
        return viewer

    def forget(self, viewer: LogViewer) -> None:
        viewers = self._by_session.get(viewer.id)
        if viewers is not None:
            viewers.discard(viewer)
            if not viewers:
                del self._by_session[viewer.id]

    def close(self) -> None:
        """The server shuts down: every such viewer is told so."""
        for viewers in list(self._by_session.values()):
            for viewer in list(viewers):
                viewer.going_away()
        self._by_session.clear()
