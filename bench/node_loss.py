"""Node loss: how long after a node dies (SIGKILL) the viewers of its sessions on another node are told.

    python -m bench.node_loss [--runs 5] [--expiry 10]

Per run: a ``redis-server`` and two ``streamtwin serve --redis`` nodes (``--llm none``); a publisher opens a
session on node A (it says hello and never offers media: A's offer timeout is raised for the run), a viewer
watches it from node B; A is killed at a random moment of its heartbeat cycle.  Reported per run: seconds from
the kill to ``node_lost`` and to ``session.ended`` at B's viewer.  Nodes beat every ``node_expiry_s / 3`` s; a
node is dead once its last beat is ``node_expiry_s`` old and another node's beat sees it, so the time to be
told ranges over about one beat around ``node_expiry_s``.  Target: within the expiry (default 10 s).
The last line of output is one JSON object.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from websockets.asyncio.client import connect

from bench.nodes import ServeProcess


async def one_run(redis_url: str, expiry_s: float, rng: random.Random) -> dict[str, float]:
    env = {"STREAMTWIN_NODE_EXPIRY_S": str(expiry_s), "STREAMTWIN_OFFER_TIMEOUT_S": "3600"}
    a, b = (ServeProcess("--llm", "none", "--redis", redis_url, env=env) for _ in range(2))
    await asyncio.gather(a.start(), b.start())
    try:
        publisher = await connect(f"ws://127.0.0.1:{a.port}/ws", proxy=None)
        await publisher.send(json.dumps({"type": "hello", "role": "publisher"}))
        welcome = json.loads(await publisher.recv())
        viewer = await connect(f"ws://127.0.0.1:{b.port}/ws", proxy=None)
        await viewer.send(json.dumps({"type": "hello", "role": "viewer", "session": welcome["session"],
                                      "token": welcome["viewer_token"]}))
        assert json.loads(await viewer.recv())["type"] == "welcome"
        await asyncio.sleep(expiry_s + rng.uniform(0, expiry_s / 3))  # any point of A's heartbeat cycle
        a.kill()
        killed = time.monotonic()
        told: dict[str, float] = {}
        async with asyncio.timeout(expiry_s * 4):
            while "session.ended" not in told:
                message = json.loads(await viewer.recv())
                if message.get("code") == "node_lost" or message.get("type") == "session.ended":
                    told[message.get("code") or message["type"]] = time.monotonic() - killed
        return told
    finally:
        await asyncio.gather(a.stop(), b.stop())


async def run(runs: int, expiry_s: float, seed: int) -> dict[str, Any]:
    from tests.redis_server import RedisServer

    redis = RedisServer(Path(tempfile.mkdtemp()))
    redis.start()
    rng = random.Random(seed)
    try:
        results = [await one_run(redis.url, expiry_s, rng) for _ in range(runs)]
    finally:
        redis.kill()
    lost = [r["node_lost"] for r in results]
    return {
        "bench": "node_loss",
        "runs": runs,
        "node_expiry_s": expiry_s,
        "told_s": [round(value, 2) for value in lost],
        "told_s_median": round(statistics.median(lost), 2),
        "told_s_max": round(max(lost), 2),
        "ended_s_max": round(max(r["session.ended"] for r in results), 2),
        "ok": max(lost) <= expiry_s,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--expiry", type=float, default=10.0, help="node_expiry_s of both nodes (default 10)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    result = asyncio.run(run(args.runs, args.expiry, args.seed))
    print(f"node killed -> its viewers on another node told (node_lost): {result['told_s']} s; "
          f"median {result['told_s_median']} s, max {result['told_s_max']} s (expiry {args.expiry:g} s)")
    print(json.dumps(result))


if __name__ == "__main__":
    main()
