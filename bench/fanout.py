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
The last line of output is one JSON object.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import multiprocessing
import time
from typing import Any

import numpy as np

TARGET_TOKENS_PER_S = 1_000_000
TARGET_P99_MS = 50.0


def viewer_process(url: str, session_id: str, token: str, viewers: int, conn: Any) -> None:
    """Run ``viewers`` websocket viewers; send back, per viewer, (arrival, chars so far) per delta frame."""
    asyncio.run(_viewers(url, session_id, token, viewers, conn))


async def _viewers(url: str, session_id: str, token: str, viewers: int, conn: Any) -> None:
    from websockets.asyncio.client import connect

    ready = asyncio.Barrier(viewers + 1)

    async def one() -> dict[str, Any]:
        frames: list[tuple[float, int]] = []
        chars = 0
        dropped = 0
        async with connect(url, proxy=None, max_size=None, compression=None) as ws:
            await ws.send(json.dumps({"type": "hello", "role": "viewer", "session": session_id, "token": token}))
            welcome = json.loads(await ws.recv())
            assert welcome["type"] == "welcome", welcome
            await ready.wait()
            async for raw in ws:
                now = time.time()
                message = json.loads(raw)
                kind = message["type"]
                if kind == "assistant.delta":
                    chars += len(message["text"])
                    frames.append((now, chars))
                elif kind == "notice":
                    dropped += message.get("dropped_chars", 0)
                    chars += message.get("dropped_chars", 0)
                elif kind == "assistant.done":
                    break
        return {"frames": frames, "dropped_chars": dropped}

    tasks = [asyncio.ensure_future(one()) for _ in range(viewers)]
    await ready.wait()
    conn.send("ready")
    conn.send(await asyncio.gather(*tasks))


async def run(viewers: int, seconds: float, token_chars: int, burst: int) -> dict[str, Any]:
    from pipeline.config import Config
    from pipeline.events import AssistantDelta, AssistantDone, AssistantStarted
    from pipeline.server import Server

    # No publisher ever offers here: the offer timeout must not end the bench's session.
    config = Config(llm="none", vision=False, host="127.0.0.1", port=0, max_viewers=max(32, viewers), offer_timeout_s=3600)
    server = Server(config)
    await server.start()
    live = server.open_session(source="bench")
    bus = live.session.bus
    parent, child = multiprocessing.get_context("spawn").Pipe()
    process = multiprocessing.get_context("spawn").Process(
        target=viewer_process, args=(f"ws://127.0.0.1:{server.port}/ws", live.id, live.viewer_token, viewers, child), daemon=True
    )
    process.start()
    loop = asyncio.get_running_loop()
    while not parent.poll():
        await asyncio.sleep(0.01)
    assert parent.recv() == "ready"

    token = "x" * token_chars
    bus.emit(AssistantStarted(generation=1, trigger="bench"))
    burst_starts: list[float] = []
    emitted = 0
    began = time.time()
    deadline = time.perf_counter() + seconds
    while time.perf_counter() < deadline:
        burst_starts.append(time.time())
        for _ in range(burst):
            bus.emit(AssistantDelta(generation=1, text=token))
        emitted += burst
        await asyncio.sleep(0)
    emit_s = time.time() - began
    bus.emit(AssistantDone(generation=1, tokens=emitted))

    while not parent.poll():
        await asyncio.sleep(0.05)
    results = await loop.run_in_executor(None, parent.recv)
    process.join(10)
    live.finish()
    await server.close()

    starts = np.asarray(burst_starts)
    latencies = []
    delivered = 0
    last_arrival = began
    dropped = 0
    frames = 0
    for result in results:
        dropped += result["dropped_chars"]
        previous = 0
        for arrival, chars in result["frames"]:
            first, end = previous // token_chars, chars // token_chars
            previous = chars
            if end <= first:
                continue
            frames += 1
            indices = np.arange(first, end) // burst  # the burst each token came from
            latencies.append(arrival - starts[indices])
            delivered += end - first
            last_arrival = max(last_arrival, arrival)
    delivered -= dropped // token_chars
    all_latencies = np.concatenate(latencies) * 1000 if latencies else np.zeros(1)
    wall = last_arrival - began
    return {
        "viewers": viewers,
        "token_chars": token_chars,
        "emitted_tokens": emitted,
        "emit_tokens_per_s": round(emitted / emit_s),
        "delivered_tokens": int(delivered),
        "delivered_tokens_per_s": round(delivered / wall),
        "dropped_chars": int(dropped),
        "frames": frames,
        "mean_tokens_per_frame": round(delivered / max(frames, 1), 1),
        "added_latency_ms": {
            "p50": round(float(np.percentile(all_latencies, 50)), 2),
            "p99": round(float(np.percentile(all_latencies, 99)), 2),
            "max": round(float(all_latencies.max()), 2),
        },
        "wall_s": round(wall, 3),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--viewers", type=int, default=10)
    parser.add_argument("--seconds", type=float, default=5.0, help="how long the synthetic model streams")
    parser.add_argument("--token-chars", type=int, default=4, help="characters per token (English averages ~4)")
    parser.add_argument("--burst", type=int, default=256, help="tokens emitted between yields to the loop")
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    result = asyncio.run(run(args.viewers, args.seconds, args.token_chars, args.burst))
    latency = result["added_latency_ms"]
    print(
        f"{result['viewers']} viewers: {result['delivered_tokens_per_s']:,} tokens/s delivered in aggregate "
        f"(model emitted {result['emit_tokens_per_s']:,} tokens/s), "
        f"{result['mean_tokens_per_frame']} tokens per frame, dropped {result['dropped_chars']} chars; "
        f"added latency p50 {latency['p50']} ms, p99 {latency['p99']} ms"
    )
    result.update(
        bench="fanout",
        target_tokens_per_s=TARGET_TOKENS_PER_S,
        target_p99_ms=TARGET_P99_MS,
        ok=result["delivered_tokens_per_s"] >= TARGET_TOKENS_PER_S and latency["p99"] < TARGET_P99_MS,
    )
    print(json.dumps(result))


if __name__ == "__main__":
    main()
