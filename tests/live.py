"""Helpers for talking to a live server from tests: websocket clients speaking the /ws protocol."""

from __future__ import annotations

import asyncio
import json
import socket
import statistics
import threading
import time
from typing import Any

from websockets.asyncio.client import ClientConnection, connect

from streamtwin.service.server import Server

RECV_TIMEOUT_S = 30.0


def ws_url(server: Server, query: str = "") -> str:
    return f"ws://127.0.0.1:{server.port}/ws" + (f"?{query}" if query else "")


async def open_ws(server: Server, query: str = "", **kwargs: Any) -> ClientConnection:
    return await connect(ws_url(server, query), proxy=None, open_timeout=10, **kwargs)


async def recv_json(ws: ClientConnection, timeout: float = RECV_TIMEOUT_S) -> dict[str, Any]:
    return json.loads(await asyncio.wait_for(ws.recv(), timeout))


async def recv_until(
    ws: ClientConnection, kind: str, timeout: float = RECV_TIMEOUT_S
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Read until a message of type ``kind``; returns it and every message before it."""
    seen: list[dict[str, Any]] = []
    async with asyncio.timeout(timeout):
        while True:
            message = json.loads(await ws.recv())
            if message.get("type") == kind:
                return message, seen
            seen.append(message)


async def send_json(ws: ClientConnection, message: dict[str, Any]) -> None:
    await ws.send(json.dumps(message))


async def hello(ws: ClientConnection, role: str, **fields: Any) -> dict[str, Any]:
    """Say hello and return the reply (a welcome, or an error)."""
    await send_json(ws, {"type": "hello", "role": role, **fields})
    return await recv_json(ws)


async def view(ws: ClientConnection, welcome: dict[str, Any], **fields: Any) -> dict[str, Any]:
    """Join the session of a publisher's ``welcome`` as a viewer, with its viewer token."""
    return await hello(ws, "viewer", session=welcome["session"], token=welcome["viewer_token"], **fields)


async def offer_media(ws: ClientConnection, pc: Any, player: Any) -> None:
    """Publish ``player``'s audio and video (if it has any) on ``pc`` (an aiortc RTCPeerConnection) through ``ws``."""
    from aiortc import RTCSessionDescription

    pc.addTrack(player.audio)
    if player.video is not None:
        pc.addTrack(player.video)
    await pc.setLocalDescription(await pc.createOffer())
    await send_json(ws, {"type": "offer", "sdp": pc.localDescription.sdp})
    answer, _ = await recv_until(ws, "answer")
    await pc.setRemoteDescription(RTCSessionDescription(sdp=answer["sdp"], type="answer"))


class HealthProbe:
    """GET /healthz every 20 ms from a thread; keeps the latencies."""

    def __init__(self, port: int):
        self.port = port
        self.latencies: list[float] = []
        self.failures: list[bytes] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> HealthProbe:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        request = f"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:{self.port}\r\n\r\n".encode()
        while not self._stop.wait(0.02):
            began = time.perf_counter()
            phase = "connect"
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=5) as sock:
                    phase = "reply"
                    sock.sendall(request)
                    reply = sock.recv(4096)
            except OSError as exc:
                reply = f"{phase}: {exc!r} after {time.perf_counter() - began:.2f} s".encode()
            if reply.startswith(b"HTTP/1.1 200"):
                self.latencies.append(time.perf_counter() - began)
            else:
                self.failures.append(reply[:100])

    def p99(self) -> float:
        return statistics.quantiles(self.latencies, n=100)[98]
