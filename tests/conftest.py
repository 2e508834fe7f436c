"""Shared fixtures for the live-service tests: servers on loopback and loopback-only ICE."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import replace
from typing import Any

import pytest

from pipeline.config import Config
from pipeline.server import Server, SessionFactory
from pipeline.webrtc import use_loopback_candidates


@pytest.fixture
def loopback_ice() -> Iterator[None]:
    """aioice offers only 127.0.0.1 (it leaves loopback out by default) for the test's peers."""
    undo = use_loopback_candidates()
    yield
    undo()


ServerFactory = Callable[..., Awaitable[Server]]


@pytest.fixture
async def make_server() -> AsyncIterator[ServerFactory]:
    """Start servers on 127.0.0.1 with a free port; ``Config`` fields as keyword overrides."""
    servers: list[Server] = []

    async def start(session_factory: SessionFactory | None = None, **overrides: Any) -> Server:
        config = replace(Config(llm="none", host="127.0.0.1", port=0), **overrides)
        server = Server(config, session_factory=session_factory)
        await server.start()
        servers.append(server)
        return server

    yield start
    for server in servers:
        await server.close()
