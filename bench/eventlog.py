"""Event-log benchmark: what a session's events cost on their way through Redis to another node.

    python -m bench.eventlog [--redis redis://127.0.0.1:6379/0] [--seconds 5] [--tokens-per-frame 2000]
                             [--frames-per-s 500]

Without ``--redis`` a redis-server is started on a free loopback port (persistence off).  One node's
:class:`~streamtwin.eventlog.writer.LogWriter` appends ``assistant.delta`` frames (``--tokens-per-frame``
tokens of 4 characters, as the session's coalescer merges them; ``--frames-per-s`` of them, 0: as fast as
Redis takes them), while a second node (another client, in this process) follows the session's log with
``XREAD BLOCK``.  The defaults are the target: 500 frames of 2,000 tokens a second, 1,000,000 tokens/s.
Reported: frames and tokens per second received by the follower, the added latency of each frame
(submitted on one node to received on the other), p50/p99, and exact resume over 100 forced reconnects
(lost and duplicated events).  Figures from one process on a shared machine: indicative.
The last line of output is one JSON object.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
import time
from pathlib import Path
from typing import Any

from streamtwin.eventlog.follow import follow
from streamtwin.eventlog.redis_store import RedisStore
from streamtwin.eventlog.writer import LogWriter
from streamtwin.events import AssistantDelta, encode
from streamtwin.eventlog.resume import ResumeFeed

SESSION = "bench"


def frame(seq: int, tokens: int) -> bytes:
    delta = AssistantDelta(session=SESSION, seq=seq, wall=time.time(), generation=1, text="tok " * tokens)
    return encode(delta.to_dict())


async def throughput(url: str, seconds: float, tokens: int, rate: float) -> dict[str, Any]:
    writer_store, follower_store = RedisStore(url), RedisStore(url)
    writer = LogWriter(writer_store)
    await writer_store.register(SESSION, "node-a", time.time())
    sent: dict[int, float] = {}
    latencies: list[float] = []
    received = 0

    async def follower() -> None:
        nonlocal received
        async for entry in follow(follower_store, SESSION, poll_s=1.0):
            latencies.append(time.perf_counter() - sent[entry.seq])
            received += 1

    following = asyncio.ensure_future(follower())
    start = time.perf_counter()
    seq = 0
    while (now := time.perf_counter()) - start < seconds:
        due = int((now - start) * rate) + 1 if rate else seq + 50  # the frames due by now (a burst when unpaced)
        while seq < due:
            seq += 1
            sent[seq] = time.perf_counter()
            writer.submit(SESSION, seq, frame(seq, tokens))
        while not rate and writer.queue.waiting > 500:  # unpaced: Redis's pace
            await asyncio.sleep(0.001)
        await asyncio.sleep(0.001 if rate else 0)
    await writer.flushed()
    while received < seq:
        await asyncio.sleep(0.01)
    elapsed = time.perf_counter() - start
    following.cancel()
    await writer.close()
    await writer_store.end(SESSION)
    await writer_store.close()
    await follower_store.close()
    latencies.sort()
    return {
        "frames_per_s": round(received / elapsed),
        "tokens_per_s": round(received * tokens / elapsed),
        "frame_bytes": len(frame(1, tokens)),
        "added_latency_p50_ms": round(1000 * latencies[len(latencies) // 2], 2),
        "added_latency_p99_ms": round(1000 * latencies[int(0.99 * (len(latencies) - 1))], 2),
    }


async def resume(url: str, reconnects: int = 100, events: int = 3000) -> dict[str, Any]:
    writer_store = RedisStore(url)
    seqs = list(range(1, events + 1))
    for first in range(0, events, 500):
        await writer_store.append_many([("resume", s, frame(s, 1), s - 1 if s > 1 else None)
                                        for s in seqs[first:first + 500]])
    await writer_store.close()
    got: list[int] = []
    for attempt in range(reconnects):
        store = RedisStore(url)  # a new connection each time
        feed = ResumeFeed(got[-1] if got else 0)
        page = await store.read_after("resume", feed.cursor, limit=max(1, events // reconnects))
        got += [entry.seq for entry in feed.backlog(page, complete=False)]
        await store.close()
    store = RedisStore(url)
    feed = ResumeFeed(got[-1] if got else 0)
    got += [entry.seq for entry in feed.backlog(await store.read_after("resume", feed.cursor, 100_000))]
    await store.close()
    return {"reconnects": reconnects, "events": events, "lost": len(set(seqs) - set(got)),
            "duplicated": len(got) - len(set(got))}


async def main_async(args: argparse.Namespace) -> dict[str, Any]:
    server = None
    url = args.redis
    if not url:
        from tests.redis_server import RedisServer

        server = RedisServer(Path(tempfile.mkdtemp()))
        server.start()
        url = server.url
    try:
        result = await throughput(url, args.seconds, args.tokens_per_frame, args.frames_per_s)
        result.update(await resume(url))
    finally:
        if server is not None:
            server.kill()
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--redis", default="", metavar="URL", help="an existing Redis (default: start one)")
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--tokens-per-frame", type=int, default=2000)
    parser.add_argument("--frames-per-s", type=float, default=500.0, help="0: as fast as Redis takes them")
    result = asyncio.run(main_async(parser.parse_args()))
    for key, value in result.items():
        print(f"{key:>24}: {value}")
    print(json.dumps(result))


if __name__ == "__main__":
    main()
