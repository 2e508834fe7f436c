"""``streamtwin mcp``'s ``ask`` over stdio: what the server adds to the model's own time.

Run from the repository root:  python -m bench.mcp_ask [--asks 30]

The server is a subprocess (``streamtwin mcp`` over stdio, as an agent starts it) over the 50 recordings of
samples/make_meetings.py, its model a loopback server in Groq's wire format that answers at once with a quote
(tests/fakes/openai_server.py).  The SDK's own client calls ``ask`` (all 50 meetings, whole; and one meeting);
for each call, the model's time is what the loopback server spent from reading the request to its last byte,
and the overhead is the client's wall time for the call minus that.  Target: overhead p99 <= 50 ms.

Ends with one JSON line.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from mcp import Client
from mcp.client.stdio import StdioServerParameters

from tests.fakes.openai_server import FakeLLMServer, Reply

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "samples"))
import make_meetings  # noqa: E402

TARGET_OVERHEAD_MS = 50.0
QUOTE = 'The launch moved [M29 00:14 Sam] "The Falcon launch moves to the fourth of November"'


class TimedLLM(FakeLLMServer):
    """The fake model, timing each request from its arrival (read whole) to the last byte of the answer."""

    def __init__(self, reply: Reply) -> None:
        super().__init__(reply)
        self.model_s: list[float] = []

    async def _respond(self, request, reader, writer):  # type: ignore[no-untyped-def]
        started = time.perf_counter()
        await super()._respond(request, reader, writer)
        self.model_s.append(time.perf_counter() - started)


def summary_ms(values: list[float]) -> dict[str, float]:
    ordered = sorted(v * 1000 for v in values)
    return {
        "p50": round(statistics.median(ordered), 2),
        "p99": round(ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))], 2),
        "max": round(ordered[-1], 2),
    }


async def run(asks: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as scratch:
        make_meetings.write(Path(scratch))
        async with TimedLLM(Reply(QUOTE)) as llm:
            env = {**os.environ, "GROQ_API_KEY": "fake", "GROQ_BASE_URL": llm.url}
            params = StdioServerParameters(command=sys.executable, cwd=str(ROOT), env=env,
                                           args=["-m", "streamtwin", "mcp", scratch, "--llm", "groq"])
            results: dict[str, Any] = {}
            async with Client(params) as client:
                for name, arguments in (("all", {}), ("one", {"session": "29_falcon_week15"})):
                    await client.call_tool("ask", {"question": "When is the Falcon launch?", **arguments})  # warm
                    llm.model_s.clear()
                    walls = []
                    for _ in range(asks):
                        started = time.perf_counter()
                        result = await client.call_tool("ask", {"question": "When is the Falcon launch?", **arguments})
                        walls.append(time.perf_counter() - started)
                        assert not result.is_error and result.structured_content["sources"], result
                    overhead = [wall - model for wall, model in zip(walls, llm.model_s, strict=True)]
                    results[name] = {
                        "meetings": len(result.structured_content["meetings"]),
                        "prompt_tokens": result.structured_content["prompt_tokens"],
                        "wall_ms": summary_ms(walls), "model_ms": summary_ms(llm.model_s),
                        "overhead_ms": summary_ms(overhead),
                    }
                    print(f"{name}: {results[name]}", flush=True)
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--asks", type=int, default=30)
    args = parser.parse_args()
    results = asyncio.run(run(args.asks))
    worst = max(r["overhead_ms"]["p99"] for r in results.values())
    print(json.dumps({"bench": "mcp_ask", **results, "target_overhead_ms": TARGET_OVERHEAD_MS,
                      "ok": worst <= TARGET_OVERHEAD_MS}))


if __name__ == "__main__":
    main()
