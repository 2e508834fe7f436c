"""A live session's events to its clients: each event encoded once, the same bytes to every client's channel
and to the session's event log under the same seq.

Assistant deltas, the hot path, are merged into frames by the :class:`~streamtwin.service.coalesce.FrameCoalescer`
and sent when its window closes (every 2 ms for a few viewers, up to 30 ms for a hundred); any other event first
sends the frames before it, so order holds.  Each frame is serialised once too (a
:class:`~streamtwin.service.outbox.SharedFrame`, which a slow viewer's outbox may merge further).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from streamtwin.eventlog.node_log import NodeLog
from streamtwin.events import AssistantDelta, Event, SessionEnded, TranscriptFinal, encode
from streamtwin.service.channel import ClientChannel
from streamtwin.service.coalesce import FrameCoalescer
from streamtwin.service.metrics import ServiceMetrics
from streamtwin.service.outbox import SharedFrame


class FanOut:
    """One session's events to ``channels()`` (publishers and viewers) and to ``event_log``."""

    def __init__(
        self,
        session_id: str,
        channels: Callable[[], list[ClientChannel]],
        metrics: ServiceMetrics,
        event_log: NodeLog | None,
        *,
        media_wall: Callable[[float, str], float | None],
        is_room: Callable[[], bool],
    ) -> None:
        """``media_wall(media_time, speaker)``: when that audio arrived, for the latency metrics (a room's
        finals are timed on their speaker's own track)."""
        self._id = session_id
        self._channels = channels
        self._metrics = metrics
        self._log = event_log
        self._media_wall = media_wall
        self._is_room = is_room
        self._frames = FrameCoalescer()
        self._frame_timer: asyncio.TimerHandle | None = None
        self._loop = asyncio.get_running_loop()

    def on_event(self, event: Event) -> None:
        """A bus subscriber: every event of the session, in seq order."""
        if type(event) is AssistantDelta:  # the hot path: a model's text, once per event-loop turn
            if self._frames.push(event.generation, event.text, event):
                window = self._frames.window_for(len(self._channels()))
                self._frame_timer = self._loop.call_later(window, self.flush)
            return
        self.flush()
        speaker = event.speaker if isinstance(event, TranscriptFinal) and self._is_room() else ""
        self._metrics.on_event(event, lambda media_time: self._media_wall(media_time, speaker))
        data = encode(event.to_dict())  # once, for every client
        self._append(event.seq, data)
        for channel in self._channels():
            channel.put(data)
        if type(event) is SessionEnded and self._log is not None:
            self._log.session_ended(self._id, event.seq)

    def flush(self) -> None:
        """The deltas merged since the last frame: each frame serialised once, the same bytes to every client."""
        if self._frame_timer is not None:
            self._frame_timer.cancel()
            self._frame_timer = None
        channels = self._channels()
        for frame in self._frames.flush():
            self._metrics.events.labels(AssistantDelta.type).inc(frame.deltas)
            body = frame.last.to_dict()
            body["text"] = frame.text
            shared = SharedFrame(frame.generation, frame.text, body, encode(body))
            self._append(frame.last.seq, shared.data)  # a frame carries its last delta's seq
            for channel in channels:
                channel.put_frame(shared)

    def _append(self, seq: int, data: bytes) -> None:
        if self._log is not None:
            self._log.append(self._id, seq, data)
