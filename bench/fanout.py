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
import time
from typing import Any

from bench.viewers import ViewerProcess, account

TARGET_TOKENS_PER_S = 1_000_000
TARGET_P99_MS = 50.0


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
    watching = ViewerProcess(f"ws://127.0.0.1:{server.port}/ws", live.id, live.viewer_token, viewers)
    await watching.start()

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

    report = await watching.report()
    live.finish()
    await server.close()

    delivery = account(report["viewers"], burst_starts, burst, token_chars)
    delivered = sum(viewer["tokens"] for viewer in delivery["per_viewer"])
    last_arrival = max((viewer["last_arrival"] or began for viewer in delivery["per_viewer"]), default=began)
    frames = sum(sum(arrival is not None for arrival, _ in viewer["frames"]) for viewer in report["viewers"])
    wall = last_arrival - began
    return {
        "viewers": viewers,
        "token_chars": token_chars,
        "emitted_tokens": emitted,
        "emit_tokens_per_s": round(emitted / emit_s),
        "delivered_tokens": int(delivered),
        "delivered_tokens_per_s": round(delivered / wall),
        "dropped_chars": sum(viewer["dropped_chars"] for viewer in report["viewers"]),
        "frames": frames,
        "mean_tokens_per_frame": round(delivered / max(frames, 1), 1),
        "added_latency_ms": delivery["added_latency_ms"],
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
