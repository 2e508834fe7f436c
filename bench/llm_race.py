"""Time to first token with racing and failover, against two loopback providers of different latency.

Run from the repository root:  python -m bench.llm_race [--calls 200] [--seed 7]

Two fake providers on 127.0.0.1 speak the real wire formats (tests/fakes/openai_server.py) and are
reached through the real SDKs: "groq" (Groq's SDK, Groq's format) is usually fast but congested now
and then, "openai" (the openai SDK, a plain OpenAI-compatible server) is slower and steady.  Each
call's provider delays are drawn once (seeded) and replayed in every mode, so the modes see the
same providers:

- each provider alone;
- ``--llm-race groq,openai``: both get every call, the first token wins, the other is cancelled;
- ``--llm groq --llm-fallback openai`` with Groq failing (HTTP 500) on some calls and stalling
  (no first token) on others: the cost of an error is one round trip, of a stall the
  first-token timeout.

Time to first token is measured where the pipeline reads the stream (``backend.stream()``), from
the call to its first delta.  Ends with one JSON line.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import random
import time
from typing import Any

import numpy as np

from streamtwin.llm.backend import Backend, ChatRequest, Delta
from streamtwin.llm.failover import FailoverBackend
from streamtwin.llm.groq_backend import GroqBackend
from streamtwin.llm.openai_backend import OpenAIBackend
from tests.fakes.openai_server import FakeLLMServer, Reply

MESSAGES = [{"role": "system", "content": "You follow a live meeting."}, {"role": "user", "content": "Go on."}]
TEXT = "Noted: the launch moves to Friday."


def draw_delays(calls: int, seed: int) -> list[tuple[float, float]]:
    """(groq, openai) seconds before each provider answers a call."""
    rng = random.Random(seed)
    delays = []
    for _ in range(calls):
        groq = rng.uniform(0.04, 0.10)
        if rng.random() < 0.15:  # congested: a queue in front of the model
            groq += rng.uniform(0.3, 1.2)
        delays.append((groq, rng.uniform(0.14, 0.20)))
    return delays


def percentiles_ms(values: list[float]) -> dict[str, float]:
    data = np.array(values) * 1000
    return {
        "p50": round(float(np.percentile(data, 50)), 1),
        "p90": round(float(np.percentile(data, 90)), 1),
        "p99": round(float(np.percentile(data, 99)), 1),
        "mean": round(float(data.mean()), 1),
        "n": len(values),
    }


async def ttft(backend: Backend) -> float:
    began = time.perf_counter()
    first = None
    async for item in backend.stream(ChatRequest(MESSAGES, max_tokens=32)):
        if first is None and isinstance(item, Delta):
            first = time.perf_counter() - began
    assert first is not None
    return first


async def run_mode(
    mode: str, delays: list[tuple[float, float]], groq: FakeLLMServer, openai: FakeLLMServer, failures: list[str]
) -> dict[str, Any]:
    def members() -> list[Backend]:
        return [GroqBackend("gsk-bench", base_url=groq.url), OpenAIBackend(openai.url, "bench-model", "sk-bench")]

    first_token_s = 0.5
    if mode == "groq alone":
        backend: Backend = members()[0]
    elif mode == "openai alone":
        backend = members()[1]
    elif mode == "race":
        backend = FailoverBackend(members(), race=2, first_token_s=first_token_s * 4)
    else:
        backend = FailoverBackend(members(), first_token_s=first_token_s)
    times: list[float] = []
    try:
        for (groq_delay, openai_delay), failure in zip(delays, failures):
            if isinstance(backend, FailoverBackend):
                backend.health.succeeded(0)  # every call starts on the primary: measure the failover itself
            groq_reply = Reply(TEXT, delay_s=groq_delay)
            if mode == "failover" and failure == "error":
                groq_reply = Reply(status=500, delay_s=groq_delay)
            elif mode == "failover" and failure == "stall":
                groq_reply = Reply(TEXT, stall=True)
            groq.script(groq_reply)
            openai.script(Reply(TEXT, delay_s=openai_delay))
            times.append(await ttft(backend))
            # A loser may still be on its way in: start each call with empty scripts.
            await asyncio.sleep(0)
            groq.replies.clear()
            openai.replies.clear()
    finally:
        await backend.aclose()
    return {"mode": mode, "ttft_ms": percentiles_ms(times), "times": times}


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--error-rate", type=float, default=0.1, help="failover mode: Groq answers HTTP 500")
    parser.add_argument("--stall-rate", type=float, default=0.05, help="failover mode: Groq sends no token")
    args = parser.parse_args()
    logging.basicConfig(level=logging.ERROR)  # each failover is logged as a warning: hundreds here

    delays = draw_delays(args.calls, args.seed)
    rng = random.Random(args.seed + 1)
    failures = []
    for _ in range(args.calls):
        roll = rng.random()
        stall = roll < args.error_rate + args.stall_rate
        failures.append("error" if roll < args.error_rate else "stall" if stall else "")
    results: dict[str, Any] = {}
    async with FakeLLMServer() as groq, FakeLLMServer() as openai:
        for mode in ("groq alone", "openai alone", "race", "failover"):
            result = await run_mode(mode, delays, groq, openai, failures)
            results[mode] = result
            stats = result["ttft_ms"]
            print(f"{mode:>13}: time to first token p50 {stats['p50']} ms, p90 {stats['p90']} ms, "
                  f"p99 {stats['p99']} ms, mean {stats['mean']} ms ({stats['n']} calls)")
        race_overhead = [
            race - min(groq_alone, openai_alone)
            for race, groq_alone, openai_alone in zip(
                results["race"]["times"], results["groq alone"]["times"], results["openai alone"]["times"]
            )
        ]
        aborted = (groq.aborted_streams, openai.aborted_streams)
    overhead = percentiles_ms(race_overhead)
    print(f"race minus the faster provider alone, same call: p50 {overhead['p50']} ms, p90 {overhead['p90']} ms; "
          f"streams cancelled mid-reply: groq {aborted[0]}, openai {aborted[1]}")
    summary = {mode: result["ttft_ms"] for mode, result in results.items()}
    print(json.dumps({
        "bench": "llm_race",
        "calls": args.calls,
        "seed": args.seed,
        "failover_groq_errors": failures.count("error"),
        "failover_groq_stalls": failures.count("stall"),
        "failover_first_token_timeout_s": 0.5,
        "ttft_ms": summary,
        "race_minus_faster_alone_ms": overhead,
    }))


if __name__ == "__main__":
    asyncio.run(main())
