"""Viewers fed from a session's event log instead of its live fan-out: a viewer that resumes from a seq
(``hello.resume_from``), and every viewer of a session that runs on another node.

Each one gets a :class:`~streamtwin.eventlog.tail.LogFeed` (exactly the events after its seq, or a
``resume_gap`` error and the snapshot, then live events, to ``session.ended``) through its own
:class:`~streamtwin.service.channel.ClientChannel`, the same outbox as a local viewer.  Live entries are read once
per session on this node (:class:`~streamtwin.eventlog.tail.SessionTail`) and prepared once: an
``assistant.delta`` becomes one shared frame for all of them, which a viewer that falls behind gets
merged (or dropped, with a notice) in its outbox, as a local viewer does.  The log is the truth, so a
viewer on another node gets the same seqs and the same bytes.
"""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

from streamtwin.service.channel import ClientChannel
from streamtwin.eventlog.node_log import NodeLog
from streamtwin.eventlog.tail import Tails
from streamtwin.service.outbox import SharedFrame
from streamtwin.eventlog.resume import Gap
from streamtwin.service.protocol import CLOSE_GOING_AWAY, CLOSE_INTERNAL, CLOSE_NORMAL

log = logging.getLogger(__name__)

PACE_MESSAGES = 256  # a backlog waits while this many messages wait for the viewer (its outbox holds 1000)


def prepare(data: bytes) -> bytes | SharedFrame:
    """What viewers are sent for one logged event: a delta as a frame (mergeable), the rest as is."""
    if b'"assistant.delta"' not in data:
        return data
    body = json.loads(data)
    if body.get("type") != "assistant.delta":
        return data
    if not (isinstance(body.get("text"), str) and isinstance(body.get("generation"), int)):
        return data  # a delta someone else wrote, without its text or generation: as it is, merged with nothing
    return SharedFrame(body["generation"], body["text"], body, data)


class LogViewer:
    """One viewer reading the log; it stands where a :class:`~streamtwin.service.registry.LiveSession` stands for a
    local viewer (``channel.live``): it has the session's ``id`` and lets the channel go (``remove``)."""

    def __init__(
        self,
        viewers: LogViewers,
        session: str,
        channel: ClientChannel,
        resume_from: int | None,
        snapshot: bool,
        welcome: dict[str, Any],
    ):
        self.id = session
        self._viewers = viewers
        self._channel = channel
        self._welcome = welcome
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
        feed = self._viewers.tails.feed(
            self.id, resume_from, send=self._send, room=lambda: channel.room(PACE_MESSAGES), started=self._started)
        try:
            await feed.run(snapshot=snapshot)
            channel.finish(CLOSE_NORMAL, "session ended")
        except asyncio.CancelledError:
            raise
        except Exception:  # a bug: this viewer ends, the others go on
            log.exception("feeding a viewer of session %s from the log failed", self.id)
            channel.error("internal", "internal server error", fatal=True)
            channel.finish(CLOSE_INTERNAL, "internal error")
        finally:
            self._viewers.forget(self)

    def _started(self, seq: int) -> None:
        """The viewer's events start after ``seq``: it is welcomed, with that seq, before anything else."""
        self._channel.send({**self._welcome, "resume_from": seq})

    def _send(self, value: bytes | SharedFrame | Gap) -> None:
        if isinstance(value, Gap):
            self._channel.error("resume_gap", value.message)
        elif isinstance(value, SharedFrame):
            self._channel.put_frame(value)
        else:
            self._channel.put(value)


class LogViewers:
    """This node's viewers fed from the log, by session."""

    def __init__(self) -> None:
        self.node_log: NodeLog | None = None  # the server's, once its store is open
        self._tails: Tails[bytes | SharedFrame] | None = None
        self._by_session: dict[str, set[LogViewer]] = {}

    def open(self, node_log: NodeLog) -> None:
        """The server's store is open: viewers can be fed from it."""
        self.node_log = node_log
        self._tails = Tails(node_log.store, prepare)

    @property
    def tails(self) -> Tails[bytes | SharedFrame]:
        assert self._tails is not None, "open() first"
        return self._tails

    def count(self, session: str) -> int:
        return len(self._by_session.get(session, ()))

    def counts(self) -> dict[str, int]:
        return {session: len(viewers) for session, viewers in self._by_session.items()}

    @property
    def total(self) -> int:
        return sum(len(viewers) for viewers in self._by_session.values())

    def add(
        self, channel: ClientChannel, session: str, resume_from: int | None, *, snapshot: bool, welcome: dict[str, Any]
    ) -> LogViewer:
        """Feed ``channel`` the events after ``resume_from`` (None: the snapshot first, or with
        ``snapshot`` off only what comes from now on), after ``welcome`` with the seq they start after."""
        viewer = LogViewer(self, session, channel, resume_from, snapshot, welcome)
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
