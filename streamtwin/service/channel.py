"""One client's outbound side: its :class:`~streamtwin.service.outbox.Outbox` and the task that drains it.

The channel's task is the only one that sends to the client's websocket, so the
session and the other clients never wait for it.  A client that cannot keep up
is disconnected (1013); one that stops reading while being closed is cut off
after ``CLOSE_FLUSH_S``.
"""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

from websockets.asyncio.server import ServerConnection
from websockets.exceptions import ConnectionClosed

from streamtwin.events import encode
from streamtwin.service.metrics import ServiceMetrics
from streamtwin.service.outbox import Message, Outbox, SharedFrame
from streamtwin.service.protocol import CLOSE_TRY_LATER, close_reason, error_message

log = logging.getLogger(__name__)

CLOSE_FLUSH_S = 3.0


class ClientChannel:
    """Drains one client's :class:`Outbox` into its websocket; the only task that sends to it."""

    def __init__(self, ws: ServerConnection, metrics: ServiceMetrics, address: str = ""):
        self.ws = ws
        self.address = address
        self.outbox = Outbox(encode)
        self._metrics = metrics
        self._wake = asyncio.Event()
        self._taken = asyncio.Event()  # set whenever the sender took what was queued
        self._closing: tuple[int, str] | None = None
        self._dropped_seen = 0
        self._dropped = False
        self._timeout: asyncio.Timeout | None = None
        self.role = ""
        self.live: Any = None  # the LiveSession joined (streamtwin.service.registry), once a hello succeeded
        self.task = asyncio.ensure_future(self._run())

    def put(self, message: Message) -> None:
        if not self.outbox.put(message):
            self._drop()
        self._wake.set()

    def put_frame(self, frame: SharedFrame) -> None:
        self.outbox.put_frame(frame)
        self._wake.set()

    def send(self, message: dict[str, Any]) -> None:
        self.put(json.dumps(message, ensure_ascii=False))

    def error(self, code: str, message: str, *, fatal: bool = False) -> None:
        self._metrics.errors.labels(code).inc()
        self.put(error_message(code, message, fatal=fatal))

    async def room(self, below: int) -> None:
        """Wait until fewer than ``below`` messages are queued: a reader of a backlog (the event log) goes at
        the client's pace instead of overflowing its outbox."""
        while self.outbox.queued >= below:
            self._taken.clear()
            await self._taken.wait()

    @property
    def closing(self) -> bool:
        return self._closing is not None

    def finish(self, code: int, reason: str) -> None:
        """Close once everything queued has been sent, within
        ``CLOSE_FLUSH_S``: a client that stopped reading is cut off, it cannot hold a shutdown."""
        if self._closing is None:
            self._closing = (code, close_reason(reason))
            if self._timeout is not None:
                self._timeout.reschedule(asyncio.get_running_loop().time() + CLOSE_FLUSH_S)
        self._wake.set()

    async def _run(self) -> None:
        try:
            async with asyncio.timeout(None) as self._timeout:
                if self._closing is not None:  # finish() came before this task started
                    self._timeout.reschedule(asyncio.get_running_loop().time() + CLOSE_FLUSH_S)
                await self._drain()
        except ConnectionClosed:
            return
        except TimeoutError:
            log.info("a %s did not take its last messages within %.0f s; cut off", self.role or "client", CLOSE_FLUSH_S)
            self.ws.transport.abort()

    async def _drain(self) -> None:
        while True:
            messages = self.outbox.take()
            self._taken.set()
            self._count_dropped()
            for message in messages:
                await self.ws.send(message, text=True)  # events are serialised once, as UTF-8 bytes
            if messages:
                continue  # what came in while we sent: a client that fell behind gets it merged
            if self._closing is not None:
                await self.ws.close(*self._closing)
                return
            self._wake.clear()
            await self._wake.wait()

    def _count_dropped(self) -> None:
        total = self.outbox.dropped_chars_total
        if total > self._dropped_seen:
            self._metrics.delta_chars_dropped.inc(total - self._dropped_seen)
            self._dropped_seen = total

    def _drop(self) -> None:
        """The client cannot keep up: stop sending and close with the reason."""
        if self._dropped:
            return
        self._dropped = True
        reason = self.outbox.overflow or "too slow"
        log.warning("dropping a %s of session %s: %s", self.role or "client",
                    self.live.id if self.live else "-", reason)
        self._metrics.clients_dropped.inc()
        if self.live is not None:
            self.live.remove(self)
        self.task.cancel()
        asyncio.ensure_future(self.ws.close(CLOSE_TRY_LATER, close_reason(reason)))
