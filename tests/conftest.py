"""Shared fixtures: servers on loopback, loopback-only ICE, and one real run of the speech model.

The markers (pyproject.toml) follow from these fixtures too: a test that takes ``meeting_events`` ran the
speech model, one that takes ``redis_server`` a redis-server, one that takes ``loopback_ice`` real WebRTC
peers.  The tests that take ``meeting_events`` share one xdist worker, so the run is made once.

The slow tests go first: workers that start the long ones early end together, rather than one
finishing a long test alone.  Under xdist llama.cpp gets one thread: with the other worker busy on
the second core, its second thread only spins at ggml's barriers (a local-model run: 218 s with two
threads, 72 s with one, the other core busy).
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from streamtwin.api import stream
from streamtwin.config import Config
from streamtwin.events import Event
from streamtwin.service.server import Server, SessionFactory
from streamtwin.service.webrtc import use_loopback_candidates

FIXTURE_MARKS = {"meeting_events": "model", "redis_server": "redis", "loopback_ice": "network"}
# Tests that mostly wait on the wall clock (live media, processes, grace periods): one at a time on one
# xdist worker, so the other keeps the second core busy, and two live sessions never share the machine.
WAITS = pytest.mark.xdist_group("waits")

if os.environ.get("PYTEST_XDIST_WORKER"):
    os.environ.setdefault("STREAMTWIN_LLM_THREADS", "1")  # read by Config, so by the commands run here too


@pytest.hookimpl(tryfirst=True)  # before xdist reads the xdist_group markers
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        used = getattr(item, "fixturenames", ())
        for fixture, mark in FIXTURE_MARKS.items():
            if fixture in used:
                item.add_marker(mark)
        if "meeting_events" in used:
            item.add_marker(pytest.mark.xdist_group("meeting_events"))
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)


@pytest.fixture
def loopback_ice() -> Iterator[None]:
    """aioice offers only 127.0.0.1 (it leaves loopback out by default) for the test's peers."""
    undo = use_loopback_candidates()
    yield
    undo()


ServerFactory = Callable[..., Awaitable[Server]]


@pytest.fixture
async def make_server() -> AsyncIterator[ServerFactory]:
    """Start servers on 127.0.0.1 with a free port; ``Config`` fields as keyword overrides; ``backend``: the
    model that answers questions over all meetings."""
    servers: list[Server] = []

    async def start(session_factory: SessionFactory | None = None, backend: Any = None, **overrides: Any) -> Server:
        # Admission by measured capacity depends on how fast this machine decodes: off unless a test is about it.
        config = replace(Config(llm="none", host="127.0.0.1", port=0, max_speech_load=0.0), **overrides)
        server = Server(config, session_factory=session_factory, backend=backend)
        await server.start()
        servers.append(server)
        return server

    yield start
    for server in servers:
        await server.close()


@pytest.fixture(scope="session")
def meeting_events() -> list[Event]:
    """The events of samples/meeting.wav through the small speech model (``streamtwin.stream``), with the
    twin kept by the rules alone (no LLM): real finals, partials and twin patches for the output tests."""

    async def run() -> list[Event]:
        sample = Path(__file__).resolve().parent.parent / "samples" / "meeting.wav"
        options = {"llm": "none", "asr_model": "tiny.en", "asr_language": "en", "twin_without_llm": True}
        return [event async for event in stream(sample, realtime=False, vision=False, **options)]

    return asyncio.run(run())
