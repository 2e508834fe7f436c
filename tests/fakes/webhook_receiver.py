"""A webhook receiver on loopback: real HTTP/1.1 over asyncio streams, every request recorded.

``statuses`` scripts the answers (then 200); :meth:`stop` and :meth:`start` again on the same port make a
receiver that is down for a while.
"""

from __future__ import annotations

import asyncio
import json
import socket
from collections import deque
from dataclasses import dataclass
from typing import Any

from tests.fakes.loopback import LoopbackServer, read_request


@dataclass
class Received:
    path: str
    headers: dict[str, str]
    body: bytes

    def json(self) -> dict[str, Any]:
        return json.loads(self.body)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class WebhookReceiver(LoopbackServer):
    thread_name = "webhook-receiver"

    def __init__(self, port: int = 0, statuses: list[int] | None = None) -> None:
        super().__init__("127.0.0.1", port or free_port())
        self.statuses: deque[int] = deque(statuses or [])
        self.received: list[Received] = []  # 2xx answered
        self.attempts = 0
        self._arrived = asyncio.Condition()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._port}/hook"

    async def wait_for(self, count: int, timeout_s: float = 30.0) -> list[Received]:
        async with self._arrived:
            await asyncio.wait_for(self._arrived.wait_for(lambda: len(self.received) >= count), timeout_s)
        return self.received

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while True:  # keep-alive: httpx posts the next delivery on the same connection
            try:
                path, headers, body = await read_request(reader)
            except asyncio.IncompleteReadError:
                return
            status = self.statuses.popleft() if self.statuses else 200
            async with self._arrived:
                self.attempts += 1
                if 200 <= status < 300:
                    self.received.append(Received(path, headers, body))
                self._arrived.notify_all()
            writer.write(f"HTTP/1.1 {status} X\r\ncontent-length: 0\r\n\r\n".encode())
            await writer.drain()
