"""A session's event log inside one process (no Redis: the embedded default, the same code path): it
holds exactly what the session's viewers got, frames included, in seq order, and a viewer resumes from
it with no gap and no duplicate."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from streamtwin.eventlog.follow import log_snapshot
from streamtwin.events import AssistantDelta, AssistantDone, AssistantStarted, TranscriptFinal
from streamtwin.service.server import Server
from tests.live import hello, open_ws, send_json, view
from tests.redis_server import RedisServer, redis_server  # noqa: F401  (the fixture)
from tests.test_server import get, publish


async def logged(server: Server, session: str) -> list[bytes]:
    assert server.log is not None
    assert await server.log.writer.flushed(10)
    return [entry.data for entry in await server.log.store.read_after(session, 0, limit=100_000)]


async def read_raw_until_ended(ws: Any) -> list[bytes]:
    """Every event message (those with a seq), as the bytes that came, up to ``session.ended``."""
    out: list[bytes] = []
    async with asyncio.timeout(30):
        while True:
            message = await ws.recv(decode=False)
            body = json.loads(message)
            if "seq" in body:
                out.append(message)
            if body["type"] == "session.ended":
                return out


def emit_a_conversation(bus: Any, tokens: int = 2000) -> list[Any]:
    emitted = [bus.emit(TranscriptFinal(text="Good morning.", start=0.0, end=1.0))]
    emitted.append(bus.emit(AssistantStarted(generation=1, trigger="final")))
    emitted += [bus.emit(AssistantDelta(generation=1, text=f" t{i}")) for i in range(tokens)]
    emitted.append(bus.emit(AssistantDone(generation=1, tokens=tokens)))
    return emitted


async def test_the_log_holds_what_viewers_got_in_seq_order(make_server):
    server = await make_server()
    publisher, welcome, live = await publish(server)
    viewer = await open_ws(server)
    assert (await view(viewer, welcome, options={"snapshot": False}))["type"] == "welcome"
    first = emit_a_conversation(live.session.bus)[0]
    await send_json(publisher, {"type": "end"})
    received = await read_raw_until_ended(viewer)
    entries = await logged(server, welcome["session"])
    seqs = [json.loads(data)["seq"] for data in entries]
    assert seqs == sorted(set(seqs))
    since_viewer = [data for data in entries if json.loads(data)["seq"] >= first.seq]
    assert since_viewer == received  # the same bytes, frames merged the same way
    deltas = [json.loads(data) for data in entries if b'"assistant.delta"' in data]
    assert "".join(d["text"] for d in deltas) == "".join(f" t{i}" for i in range(2000))
    assert len(deltas) < 2000  # frames, not one entry per token
    assert server.log is not None and await server.log.sealed(10)
    record = await server.log.record(welcome["session"])
    assert record is not None and record.state == "ended"
    assert record.viewer_key and welcome["viewer_token"] not in record.viewer_key


@pytest.mark.redis
async def test_redis_killed_and_back_under_a_session_leaves_its_viewers_unaffected_and_the_log_whole(
    make_server, tmp_path
):
    redis = RedisServer(tmp_path, persist=True)  # an append-only file: a restart keeps what was acknowledged
    redis.start()
    try:
        server = await make_server(redis=redis.url)
        publisher, welcome, live = await publish(server)
        viewer = await open_ws(server)
        assert (await view(viewer, welcome, options={"snapshot": False}))["type"] == "welcome"
        assert (await get(server, "/healthz"))[2] == b'{"status":"ok"}\n'
        bus = live.session.bus
        first = bus.emit(TranscriptFinal(text="before", start=0, end=0.5))
        redis.kill()
        texts = [f"said {i}" for i in range(5)]
        for i, text in enumerate(texts):
            bus.emit(TranscriptFinal(text=text, start=1 + i, end=1.5 + i))
        seen: list[dict[str, Any]] = []
        async with asyncio.timeout(30):
            while "said 4" not in final_texts(seen) or not any(m["type"] == "error" for m in seen):
                seen.append(json.loads(await viewer.recv()))
        errors = [m for m in seen if m["type"] == "error"]
        assert [(e["code"], e["fatal"]) for e in errors] == [("store_unavailable", False)]
        assert str(redis.port) not in errors[0]["message"]  # where the store is stays in the server's log
        assert final_texts(seen) == ["before", *texts]  # the viewers did not wait for the store
        assert (await get(server, "/healthz"))[2] == b'{"status":"degraded"}\n'

        redis.start()
        assert server.log is not None
        async with asyncio.timeout(30):
            while server.log.degraded or not await server.log.writer.flushed(1):
                await asyncio.sleep(0.1)
        assert (await get(server, "/healthz"))[2] == b'{"status":"ok"}\n'
        bus.emit(TranscriptFinal(text="after", start=9.0, end=9.5))
        await send_json(publisher, {"type": "end"})
        seen += await events_until(viewer, lambda m: m["type"] == "session.ended")
        assert [m for m in seen if m["type"] == "error"] == errors  # once per outage
        logged_seqs = [json.loads(data)["seq"] for data in await logged(server, welcome["session"])]
        assert [seq for seq in logged_seqs if seq >= first.seq] == [m["seq"] for m in seen]  # all of it, in order
    finally:
        redis.kill()


async def events_until(ws: Any, done: Any, timeout: float = 30) -> list[dict[str, Any]]:
    """Messages until ``done(message)`` is true (that one included)."""
    out: list[dict[str, Any]] = []
    async with asyncio.timeout(timeout):
        while not out or not done(out[-1]):
            out.append(json.loads(await ws.recv()))
    return out


def final_texts(messages: list[dict[str, Any]]) -> list[str]:
    return [m["text"] for m in messages if m["type"] == "transcript.final"]


async def test_a_viewer_resumes_with_no_gap_and_no_duplicate(make_server):
    server = await make_server()
    publisher, welcome, live = await publish(server)
    bus = live.session.bus
    viewer = await open_ws(server)
    assert (await view(viewer, welcome, options={"snapshot": False}))["type"] == "welcome"
    for i in range(10):
        bus.emit(TranscriptFinal(text=f"before {i}", start=i, end=i + 0.5))
    got = await events_until(viewer, lambda m: m.get("text") == "before 4")
    last_seq = got[-1]["seq"]
    await viewer.close()  # it missed before 5..9 and what follows while it is away
    for i in range(10):
        bus.emit(TranscriptFinal(text=f"away {i}", start=10 + i, end=10.5 + i))
    back = await open_ws(server)
    welcome_back = await view(back, welcome, resume_from=last_seq)
    assert welcome_back["options"]["resume_from"] == last_seq
    backlog = await events_until(back, lambda m: m.get("text") == "away 9")
    for i in range(3):
        bus.emit(TranscriptFinal(text=f"live {i}", start=30 + i, end=30.5 + i))
    await send_json(publisher, {"type": "end"})
    rest = await events_until(back, lambda m: m["type"] == "session.ended")
    resumed = backlog + rest
    seqs = [m["seq"] for m in resumed]
    logged_seqs = [json.loads(data)["seq"] for data in await logged(server, welcome["session"])]
    assert seqs == [seq for seq in logged_seqs if seq > last_seq]  # exactly the rest: no gap, no duplicate
    expected = [f"before {i}" for i in range(5, 10)] + [f"away {i}" for i in range(10)]
    expected += [f"live {i}" for i in range(3)]
    assert final_texts(resumed) == expected


async def welcomed_at_the_snapshots_seq_then_resumed(node: Server, viewer_node: Server) -> None:
    """A viewer of ``node``'s session joins on ``viewer_node``: its welcome says the seq its snapshot is as
    of (``resume_from``), and a viewer resuming from that seq gets exactly the later events, none twice."""
    publisher, welcome, live = await publish(node)
    bus = live.session.bus
    for i in range(5):
        bus.emit(TranscriptFinal(text=f"before {i}", start=i, end=i + 0.5))
    bus.emit(AssistantStarted(generation=1, trigger="final"))
    last = [bus.emit(AssistantDelta(generation=1, text=f" t{i}")) for i in range(20)][-1]  # still being merged
    assert node.log is not None
    if viewer_node is not node:  # the viewer reads the log: let it hold what the session sent
        last = bus.emit(AssistantDone(generation=1, tokens=20))
        assert await node.log.writer.flushed(10)
    viewer = await open_ws(viewer_node)
    joined = await view(viewer, welcome)
    seq = joined["resume_from"]
    assert seq == last.seq
    snapshot = await events_until(viewer, lambda m: m.get("text") == "before 4")
    assert final_texts(snapshot) == [f"before {i}" for i in range(5)]
    assert all(m["seq"] <= seq for m in snapshot)
    assert await node.log.writer.flushed(10)
    assert (await log_snapshot(node.log.store, welcome["session"]))[1] == seq  # as a reader of the log folds it
    await viewer.close()  # before any event after the snapshot came
    for i in range(3):
        bus.emit(TranscriptFinal(text=f"after {i}", start=10 + i, end=10.5 + i))
    back = await open_ws(viewer_node)
    assert (await view(back, welcome, resume_from=seq))["resume_from"] == seq
    bus.emit(TranscriptFinal(text="live", start=20, end=20.5))
    await send_json(publisher, {"type": "end"})
    resumed = await events_until(back, lambda m: m["type"] == "session.ended")
    logged_seqs = [json.loads(data)["seq"] for data in await logged(node, welcome["session"])]
    assert [m["seq"] for m in resumed] == [s for s in logged_seqs if s > seq]  # no gap, no duplicate
    assert final_texts(resumed) == ["after 0", "after 1", "after 2", "live"]


async def test_a_viewers_welcome_says_its_snapshots_seq_and_a_resume_from_it_gets_exactly_the_rest(make_server):
    server = await make_server()
    await welcomed_at_the_snapshots_seq_then_resumed(server, server)


async def test_a_viewer_fed_from_the_log_on_another_node_is_welcomed_with_its_snapshots_seq_too(
    make_server, redis_server: RedisServer
) -> None:
    node_a = await make_server(redis=redis_server.url)
    node_b = await make_server(redis=redis_server.url)
    await welcomed_at_the_snapshots_seq_then_resumed(node_a, node_b)


async def test_a_resume_the_log_no_longer_holds_gets_resume_gap_and_the_snapshot(make_server):
    server = await make_server(log_maxlen=5)
    publisher, welcome, live = await publish(server)
    bus = live.session.bus
    for i in range(20):
        bus.emit(TranscriptFinal(text=f"said {i}", start=i, end=i + 0.5))
    assert server.log is not None and await server.log.writer.flushed(10)
    viewer = await open_ws(server)
    await view(viewer, welcome, resume_from=1)
    got = await events_until(viewer, lambda m: m.get("text") == "said 19")
    assert got[0]["type"] == "error" and got[0]["code"] == "resume_gap" and got[0]["fatal"] is False
    assert "said 19" in final_texts(got[1:])  # the snapshot follows
    bus.emit(TranscriptFinal(text="live", start=30, end=30.5))
    assert final_texts(await events_until(viewer, lambda m: m.get("text") == "live")) == ["live"]
    await publisher.close()


async def test_a_malformed_resume_from_is_refused_and_the_viewer_may_say_hello_again(make_server):
    server = await make_server()
    publisher, welcome, live = await publish(server)
    viewer = await open_ws(server)
    for bad in ("7", -1, True, 1.5, [], 2**64):
        reply = await view(viewer, welcome, resume_from=bad)
        assert reply["type"] == "error" and reply["code"] == "bad_hello" and not reply["fatal"], (bad, reply)
        assert "resume_from" in reply["message"]
    reply = await hello(publisher_probe := await open_ws(server), "publisher", resume_from=3)
    assert reply["code"] == "bad_hello"
    await publisher_probe.close()
    assert (await view(viewer, welcome, resume_from=0))["type"] == "welcome"
    await publisher.close()


async def test_a_long_backlog_goes_at_the_viewers_pace_and_is_not_dropped(make_server):
    server = await make_server()
    publisher, welcome, live = await publish(server)
    bus = live.session.bus
    texts = [f"said {i}" for i in range(3000)]  # three times what a viewer's outbox holds
    for i, text in enumerate(texts):
        bus.emit(TranscriptFinal(text=text, start=i, end=i + 0.5))
    viewer = await open_ws(server)
    assert (await view(viewer, welcome, resume_from=0))["type"] == "welcome"
    got = await events_until(viewer, lambda m: m.get("text") == "said 2999")
    assert final_texts(got) == texts
    await publisher.close()


async def test_the_viewer_limit_holds_across_nodes(make_server, redis_server: RedisServer) -> None:
    """Viewers of one session on two nodes count together against --max-viewers (told at each heartbeat)."""
    node_a = await make_server(redis=redis_server.url, max_viewers=2)
    node_b = await make_server(redis=redis_server.url, max_viewers=2)
    publisher = await open_ws(node_a)
    welcome = await hello(publisher, "publisher")
    assert node_a.log is not None and node_b.log is not None
    on_a, on_b = await open_ws(node_a), await open_ws(node_b)
    assert (await view(on_a, welcome))["type"] == "welcome"
    assert (await view(on_b, welcome))["type"] == "welcome"
    await node_a.log.keeper.beat()
    await node_b.log.keeper.beat()
    third = await open_ws(node_b)
    refused = await view(third, welcome)
    assert (refused["type"], refused["code"]) == ("error", "too_many_viewers")
    await on_a.close()
    await asyncio.sleep(0.1)  # the server sees the viewer go
    await node_a.log.keeper.beat()
    again = await open_ws(node_b)
    assert (await view(again, welcome))["type"] == "welcome"
