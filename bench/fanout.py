"""Fan-out benchmark: a synthetic LLM of unbounded speed streams through a session to websocket viewers.

    python -m bench.fanout [--viewers 10] [--seconds 5] [--token-chars 4]

The server runs in this process; a session is opened on it and a synthetic model
emits ``assistant.delta`` events on the session's bus as fast as it can (yielding
to the event loop every ``--burst`` tokens, as a streaming HTTP client would).
The viewers run in a second process (the other core) on loopback websockets and
timestamp every frame they receive.  Reported: tokens per second delivered to
all viewers together, and the added latency of each delivered token (from the
start of the burst that emitted it to its arrival at a viewer), p50/p99.
Target on 2 cores: >= 1,000,000 tokens/s in aggregate, p99 < 50 ms.

    python -m bench.fanout --nodes 2 [--redis redis://127.0.0.1:6379/0]

Across nodes: the session runs on this process (node A) with its event log in Redis (without
``--redis`` a redis-server is started on a free loopback port); the other nodes are ``streamtwin
serve --redis`` processes, and the viewers are spread over all of them (viewer i on node i mod N).
Viewers on another node read the session from Redis; their latency is also reported on its own
(``added_latency_ms_by_node``), the difference with node A's being the added latency across nodes.
``--rate TOKENS_PER_S`` caps the synthetic model (paced per burst), to measure the added latency at a
given throughput instead of at saturation (where it is the time text waits in buffers of busy cores).
The last line of output is one JSON object.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import tempfile
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from bench.nodes import ServeProcess
from bench.viewers import ViewerProcess, account

TARGET_TOKENS_PER_S = 1_000_000
TARGET_P99_MS = 50.0


@asynccontextmanager
async def redis_for(nodes: int, url: str) -> AsyncIterator[str]:
    """The Redis the nodes share: ``url``, or one started for the run; "" for a single node (in memory)."""
    if nodes < 2 or url:
        yield url
        return
    from tests.redis_server import RedisServer

    server = RedisServer(Path(tempfile.mkdtemp()))
    server.start()
    try:
        yield server.url
    finally:
        server.kill()


async def run(
    viewers: int, seconds: float, token_chars: int, burst: int, nodes: int = 1, redis: str = "",
    rate: float | None = None,
) -> dict[str, Any]:
    async with redis_for(nodes, redis) as url:
        return await run_nodes(viewers, seconds, token_chars, burst, nodes, url, rate)


async def run_nodes(
    viewers: int, seconds: float, token_chars: int, burst: int, nodes: int, redis: str, rate: float | None
) -> dict[str, Any]:
    from streamtwin.config import Config
    from streamtwin.events import AssistantDelta, AssistantDone, AssistantStarted
    from streamtwin.service.server import Server

    # No publisher ever offers here: the offer timeout must not end the bench's session.
    config = Config(
        llm="none", vision=False, host="127.0.0.1", port=0, max_viewers=max(32, viewers), offer_timeout_s=3600,
        redis=redis,
    )
    others = [ServeProcess("--llm", "none", "--redis", redis, "--max-viewers", str(max(32, viewers)))
              for _ in range(nodes - 1)]
    await asyncio.gather(*(node.start() for node in others))
    server = Server(config)
    await server.start()
    live = server.open_session(source="bench")
    if live.registered is not None:
        await live.registered  # in the directory before viewers on other nodes look it up
    bus = live.session.bus
    urls = [f"ws://127.0.0.1:{port}/ws" for port in [server.port, *(node.port for node in others)]]
    watching = ViewerProcess(urls, live.id, live.viewer_token, viewers)
    await watching.start()

    token = "x" * token_chars
    bus.emit(AssistantStarted(generation=1, trigger="bench"))
    burst_starts: list[float] = []
    emitted = 0
    began, paced_from = time.time(), time.perf_counter()
    deadline = paced_from + seconds
    while time.perf_counter() < deadline:
        burst_starts.append(time.time())
        for _ in range(burst):
            bus.emit(AssistantDelta(generation=1, text=token))
        emitted += burst
        ahead = emitted / rate - (time.perf_counter() - paced_from) if rate else 0.0
        await asyncio.sleep(max(0.0, ahead))
    emit_s = time.time() - began
    bus.emit(AssistantDone(generation=1, tokens=emitted))

    report = await watching.report()
    live.finish()
    await server.close()
    await asyncio.gather(*(node.stop() for node in others))

    delivery = account(report["viewers"], burst_starts, burst, token_chars)
    by_node = [
        account(report["viewers"][node::nodes], burst_starts, burst, token_chars)["added_latency_ms"]
        for node in range(nodes)
    ]
    delivered = sum(viewer["tokens"] for viewer in delivery["per_viewer"])
    last_arrival = max((viewer["last_arrival"] or began for viewer in delivery["per_viewer"]), default=began)
    frames = sum(sum(arrival is not None for arrival, _ in viewer["frames"]) for viewer in report["viewers"])
    wall = last_arrival - began
    return {
        "viewers": viewers,
        "nodes": nodes,
        "rate_cap": rate,
        "token_chars": token_chars,
        "emitted_tokens": emitted,
        "emit_tokens_per_s": round(emitted / emit_s),
        "delivered_tokens": int(delivered),
        "delivered_tokens_per_s": round(delivered / wall),
        "dropped_chars": sum(viewer["dropped_chars"] for viewer in report["viewers"]),
        "frames": frames,
        "mean_tokens_per_frame": round(delivered / max(frames, 1), 1),
        "added_latency_ms": delivery["added_latency_ms"],
        "added_latency_ms_by_node": by_node,
        "wall_s": round(wall, 3),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--viewers", type=int, default=10)
    parser.add_argument("--seconds", type=float, default=5.0, help="how long the synthetic model streams")
    parser.add_argument("--token-chars", type=int, default=4, help="characters per token (English averages ~4)")
    parser.add_argument("--burst", type=int, default=256, help="tokens emitted between yields to the loop")
    parser.add_argument("--nodes", type=int, default=1, help="serve nodes sharing the session through Redis")
    parser.add_argument("--redis", default="", metavar="URL", help="with --nodes 2+: their Redis (default: start one)")
    parser.add_argument("--rate", type=float, default=None, metavar="TOKENS_PER_S",
                        help="cap the synthetic model's rate (default: as fast as it can)")
    args = parser.parse_args()
    if args.nodes < 1:
        parser.error("--nodes is 1 or more")
    logging.basicConfig(level=logging.WARNING)
    result = asyncio.run(run(args.viewers, args.seconds, args.token_chars, args.burst, args.nodes, args.redis, args.rate))
    latency = result["added_latency_ms"]
    print(
        f"{result['viewers']} viewers: {result['delivered_tokens_per_s']:,} tokens/s delivered in aggregate "
        f"(model emitted {result['emit_tokens_per_s']:,} tokens/s), "
        f"{result['mean_tokens_per_frame']} tokens per frame, dropped {result['dropped_chars']} chars; "
        f"added latency p50 {latency['p50']} ms, p99 {latency['p99']} ms"
    )
    for node, node_latency in enumerate(result["added_latency_ms_by_node"][1:], start=1):
        p50, p99 = node_latency["p50"], node_latency["p99"]
        print(f"  viewers on node {node + 1} (through Redis): added latency p50 {p50} ms, p99 {p99} ms")
    result.update(
        bench="fanout",
        target_tokens_per_s=TARGET_TOKENS_PER_S,
        target_p99_ms=TARGET_P99_MS,
        ok=result["delivered_tokens_per_s"] >= TARGET_TOKENS_PER_S and latency["p99"] < TARGET_P99_MS,
    )
    print(json.dumps(result))


if __name__ == "__main__":
    main()
