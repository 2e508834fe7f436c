"""Two real ``streamtwin serve`` processes on one real redis-server: a publisher (real WebRTC, the real speech
model) on node A; viewers on A and on B get the same events (same seqs, same text); a viewer cut off
on B resumes on A with no gap and no duplicate; node A killed with SIGKILL is reported to B's viewers
(``node_lost``, then ``session.ended``) and what it said up to then stays readable on B; Redis killed and
restarted under both nodes leaves A's viewers unaffected and the log complete."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import pytest
from aiortc import RTCConfiguration, RTCPeerConnection
from aiortc.contrib.media import MediaPlayer
from websockets.exceptions import ConnectionClosed

from bench.nodes import ROOT, ServeProcess

from tests.conftest import WAITS
from tests.live import hello, offer_media, open_ws, send_json, view
from tests.redis_server import RedisServer, redis_server  # noqa: F401  (the fixture)

pytestmark = [pytest.mark.model, pytest.mark.network, WAITS]

SPEECH = ROOT / "samples" / "standup.wav"  # audio only: no thumbnails to carry
READ_TIMEOUT_S = 90.0


@asynccontextmanager
async def nodes(redis_url: str, count: int = 2, **env: str) -> AsyncIterator[list[ServeProcess]]:
    """``count`` nodes on one Redis, with loopback ICE candidates (the test's publisher is on loopback)."""
    started = [
        ServeProcess("--llm", "none", "--redis", redis_url, module="tests.loopback_serve", env=env)
        for _ in range(count)
    ]
    try:
        await asyncio.gather(*(node.start() for node in started))
        yield started
    finally:
        await asyncio.gather(*(node.stop() for node in started))


def spoken_finals(count: int) -> Callable[[list[dict[str, Any]]], bool]:
    def enough(seen: list[dict[str, Any]]) -> bool:
        return sum(m["type"] == "transcript.final" and bool(m["text"].strip()) for m in seen) >= count

    return enough


def ended(seen: list[dict[str, Any]]) -> bool:
    return bool(seen) and seen[-1]["type"] == "session.ended"


async def read_until(ws: Any, done: Callable[[list[dict[str, Any]]], bool]) -> list[dict[str, Any]]:
    seen: list[dict[str, Any]] = []
    async with asyncio.timeout(READ_TIMEOUT_S):
        while not done(seen):
            seen.append(json.loads(await ws.recv()))
    return seen


def events(seen: list[dict[str, Any]], after: int = 0) -> list[tuple[int, str, Any]]:
    """Seq, type and text of the events (messages with a seq) after seq ``after``."""
    return [(m["seq"], m["type"], m.get("text")) for m in seen if "seq" in m and m["seq"] > after]


async def publish(node: ServeProcess) -> tuple[Any, dict[str, Any], RTCPeerConnection]:
    ws = await open_ws(node)
    welcome = await hello(ws, "publisher")
    assert welcome["type"] == "welcome", welcome
    pc = RTCPeerConnection(RTCConfiguration(iceServers=[]))
    await offer_media(ws, pc, MediaPlayer(str(SPEECH)))
    return ws, welcome, pc


async def test_viewers_on_two_nodes_get_the_same_events_and_one_resumes_across_nodes(redis_server, loopback_ice):
    async with nodes(redis_server.url) as (a, b):
        viewer_a, viewer_b, roamer = await open_ws(a), await open_ws(b), await open_ws(b)
        publisher, welcome, pc = await publish(a)
        try:
            # B checks the viewer token against the directory's digest of it
            refused = await hello(await open_ws(b), "viewer", session=welcome["session"], token="not-the-token")
            assert (refused["type"], refused["code"]) == ("error", "unauthorized")
            unknown = await hello(await open_ws(b), "viewer", session="no-such-session", token="x")
            assert (unknown["type"], unknown["code"]) == ("error", "no_such_session")
            assert (await view(viewer_a, welcome, options={"snapshot": False}))["type"] == "welcome"
            assert (await view(viewer_b, welcome, resume_from=0))["type"] == "welcome"
            assert (await view(roamer, welcome, resume_from=0))["type"] == "welcome"
            reading_a = asyncio.ensure_future(read_until(viewer_a, ended))
            reading_b = asyncio.ensure_future(read_until(viewer_b, ended))
            roamed = await read_until(roamer, spoken_finals(1))
            roamer.transport.abort()  # cut off without a goodbye; it comes back on the other node
            back = await open_ws(a)
            welcome_back = await view(back, welcome, resume_from=roamed[-1]["seq"])
            assert welcome_back["options"]["resume_from"] == roamed[-1]["seq"]
            reading_back = asyncio.ensure_future(read_until(back, ended))
            await read_until(await watch_from_start(b, welcome), spoken_finals(3))
            await send_json(publisher, {"type": "end"})
            seen_a, seen_b, seen_back = await asyncio.gather(reading_a, reading_b, reading_back)
        finally:
            await pc.close()
    on_a = events(seen_a)
    assert spoken_finals(3)(seen_a) and on_a[-1][1] == "session.ended"
    assert events(seen_b, after=on_a[0][0] - 1) == on_a  # same seqs, same types, same text
    assert events(roamed) and events(seen_back) and spoken_finals(3)(seen_b)
    assert events(roamed) + events(seen_back) == events(seen_b)  # no gap, no duplicate
    assert not [m for m in seen_a + seen_b if m["type"] == "error"]


async def watch_from_start(node: ServeProcess, welcome: dict[str, Any]) -> Any:
    ws = await open_ws(node)
    assert (await view(ws, welcome, resume_from=0))["type"] == "welcome"
    return ws


@pytest.mark.slow
async def test_a_killed_node_is_reported_to_viewers_on_another_node(redis_server, loopback_ice):
    async with nodes(redis_server.url, STREAMTWIN_NODE_EXPIRY_S="3") as (a, b):
        publisher, welcome, pc = await publish(a)
        try:
            viewer = await watch_from_start(b, welcome)
            before = await read_until(viewer, spoken_finals(1))
            a.kill()
            after = await read_until(viewer, ended)
        finally:
            await pc.close()
        errors = [m for m in after if m["type"] == "error"]
        assert [(e["code"], e["fatal"]) for e in errors] == [("node_lost", True)]
        assert after[-1]["stats"] == {"lost": True}
        assert after.index(errors[0]) == len(after) - 2  # node_lost, then session.ended, then nothing
        # Everything A said before it died stays readable, on B, for a viewer coming later.
        late = await watch_from_start(b, welcome)
        log = await read_until(late, ended)
        assert spoken_finals(1)(log) and events(log) == events(before) + events(after)
        try:
            async with asyncio.timeout(10):
                await late.recv()
        except ConnectionClosed as closed:
            assert closed.rcvd is not None and closed.rcvd.code == 1000


@pytest.mark.redis
@pytest.mark.slow
async def test_redis_killed_and_restarted_under_two_nodes_loses_nothing(tmp_path, loopback_ice):
    """A's own viewers go on while Redis is down (told once, ``store_unavailable``); B's viewer and a later one
    read the whole session from the log once Redis is back: what A buffered is appended, in order."""
    redis = RedisServer(tmp_path, persist=True)  # restarted with its append-only file: nothing acknowledged is lost
    redis.start()
    try:
        async with nodes(redis.url) as (a, b):
            publisher, welcome, pc = await publish(a)
            try:
                viewer_a, viewer_b = await open_ws(a), await open_ws(b)
                assert (await view(viewer_a, welcome, options={"snapshot": False}))["type"] == "welcome"  # live
                assert (await view(viewer_b, welcome, resume_from=0))["type"] == "welcome"  # from the log
                reading_b = asyncio.ensure_future(read_until(viewer_b, ended))
                seen_a = await read_until(viewer_a, spoken_finals(1))
                redis.kill()
                seen_a += await read_until(viewer_a, spoken_finals(2))  # while Redis is down
                redis.start()
                seen_a += await read_until(viewer_a, spoken_finals(2))
                await send_json(publisher, {"type": "end"})
                seen_a += await read_until(viewer_a, ended)
                seen_b = await reading_b
            finally:
                await pc.close()
            later = await read_until(await watch_from_start(b, welcome), ended)
    finally:
        redis.kill()
    errors = [m for m in seen_a if m["type"] == "error"]
    assert [(e["code"], e["fatal"]) for e in errors] == [("store_unavailable", False)]
    assert spoken_finals(5)(seen_a)
    first = events(seen_a)[0][0]
    assert events(seen_b, after=first - 1) == events(seen_a)  # the log is complete
    assert events(later) == events(seen_b)
