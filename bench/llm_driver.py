"""What the pipeline itself adds around the LLM, and what prefix reuse buys on a CPU model.

Run from the repository root:  python -m bench.llm_driver [--iterations 3000] [--deltas 50]
                                                           [--local qwen|smollm2|PATH.gguf]

1. synthetic: a backend of unbounded speed (yields N deltas with no delay) behind the
   real Assistant on a real EventBus.  Measured with perf_counter:
   - trigger to request: a transcript.final emitted on the bus -> backend.stream() running;
   - token to event: the backend yields a delta -> the assistant.delta carrying its text reaches a
     bus subscriber (a model's tokens ready in one event-loop turn travel as one delta).
   Each generation runs to the end before the next final (no preemption), twin updates
   off.  With the default 1M-token context the window keeps everything, so late
   iterations render a prompt of a megabyte or more, as brute-forcing the whole context
   would; a smaller --context-tokens also exercises eviction and summary folds.
2. local (optional): time to first token with llama.cpp through LocalBackend, for a
   prompt whose front is already in the KV cache (one new transcript line since the last
   call) versus a cold prompt of about the same length (a different first line), using
   the real prompt layout.

Ends with one JSON line.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import statistics
import time
from pathlib import Path
from typing import Any, AsyncIterator

import numpy as np

from streamtwin.assistant.builder import build_assistant
from streamtwin.assistant.prompts import COMMENT_INSTRUCTION, SYSTEM_PROMPT
from streamtwin.bus import EventBus
from streamtwin.config import Config
from streamtwin.events import AssistantDelta, AssistantDone, Event, TranscriptFinal
from streamtwin.llm.backend import ChatRequest, Delta, Finished, LLMError, StreamItem
from streamtwin.assistant.context import ContextWindow

TARGET_P99_MS = 2.0
TOKEN = " token"
TARGET_REUSE_SPEEDUP = 5.0
MEETING = Path(__file__).resolve().parents[1] / "samples" / "meeting.txt"


class UnboundedBackend:
    """Answers instantly; records when each request started and when each delta was yielded."""

    name = "synthetic"
    model = "unbounded"
    max_in_flight = 1
    supports_images = False

    def __init__(self, deltas: int, context_tokens: int) -> None:
        self.deltas = deltas
        self.context_tokens = context_tokens
        self.request_started: list[float] = []
        self.yielded: list[float] = []

    async def stream(self, request: ChatRequest) -> AsyncIterator[StreamItem]:
        self.request_started.append(time.perf_counter())
        for _ in range(self.deltas):
            self.yielded.append(time.perf_counter())
            yield Delta(TOKEN)
        yield Finished(completion_tokens=self.deltas)

    async def aclose(self) -> None:
        pass


def percentiles_ms(samples: list[float]) -> dict[str, float]:
    values = np.array(samples) * 1000
    return {
        "p50": round(float(np.percentile(values, 50)), 4),
        "p99": round(float(np.percentile(values, 99)), 4),
        "max": round(float(values.max()), 4),
        "n": len(samples),
    }


async def bench_synthetic(iterations: int, deltas: int, warmup: int, context_tokens: int) -> dict[str, Any]:
    backend = UnboundedBackend(deltas, context_tokens)
    bus = EventBus("bench")
    received: list[tuple[float, int]] = []  # (when, how many tokens the delta carried)
    done = asyncio.Event()

    def subscriber(event: Event) -> None:
        if isinstance(event, AssistantDelta):
            received.append((time.perf_counter(), len(event.text) // len(TOKEN)))
        elif isinstance(event, AssistantDone):
            done.set()

    bus.subscribe(subscriber)
    assistant = build_assistant(Config(llm_heartbeat_s=1e9), backend, bus.emit, twin_updates=False)
    bus.subscribe(assistant.on_event)
    await assistant.start()

    trigger_to_request: list[float] = []
    token_to_event: list[float] = []
    lines = MEETING.read_text().splitlines()
    started = time.perf_counter()
    for i in range(warmup + iterations):
        done.clear()
        received.clear()
        backend.yielded.clear()
        text = f"{lines[i % len(lines)].split(': ', 1)[-1]} ({i})"
        triggered = time.perf_counter()
        bus.emit(TranscriptFinal(text=text, start=i * 4.0, end=i * 4.0 + 3.5, utterance=i + 1, utterance_end=True))
        await done.wait()
        if i >= warmup:
            # A summary fold may have used the backend first: the answer is the last request.
            trigger_to_request.append(backend.request_started[-1] - triggered)
            arrivals = [at for at, count in received for _ in range(count)]
            if len(arrivals) == deltas:  # answers to questions are checked, then shown whole: not streamed
                token_to_event += [got - sent for sent, got in zip(backend.yielded[-deltas:], arrivals, strict=True)]
    elapsed = time.perf_counter() - started
    window_tokens = assistant.window.front_tokens
    await assistant.close()
    return {
        "iterations": iterations,
        "deltas_per_generation": deltas,
        "trigger_to_request_ms": percentiles_ms(trigger_to_request),
        "token_to_event_ms": percentiles_ms(token_to_event),
        "pipeline_tokens_per_s": round((warmup + iterations) * deltas / elapsed),
        "context_tokens": context_tokens,
        "window_tokens_at_end": window_tokens,
        "summary_folds": len(backend.request_started) - warmup - iterations,
    }


async def time_to_first_token(backend: Any, messages: list[dict[str, Any]]) -> tuple[float, Finished]:
    began = time.perf_counter()
    first: float | None = None
    finished = Finished()
    async for item in backend.stream(ChatRequest(messages, max_tokens=4)):
        if isinstance(item, Delta) and first is None:
            first = time.perf_counter() - began
        elif isinstance(item, Finished):
            finished = item
    return (first if first is not None else time.perf_counter() - began), finished


async def bench_local(model: str, rounds: int, front_tokens: int) -> dict[str, Any]:
    try:
        from streamtwin.llm.local_backend import LocalBackend
    except ImportError as exc:
        print(f"local: skipped, LocalBackend does not import ({exc})")
        return {"skipped": f"LocalBackend does not import: {exc}"}
    backend = LocalBackend(model, n_ctx=4096)
    try:
        await backend.start()
    except LLMError as exc:
        print(f"local: skipped, {exc.message}")
        return {"skipped": exc.message}
    lines = [line.split(": ", 1)[-1] for line in MEETING.read_text().splitlines()]
    cold_ms: list[float] = []
    reused_ms: list[float] = []
    cold_prompt_tokens: list[int] = []
    reused_prompt_tokens: list[int] = []
    cached_tokens: list[int] = []
    try:
        for round_number in range(rounds):
            # A different first line each round: nothing but the chat template's first tokens is cached.
            window = ContextWindow(8 * front_tokens, system_prompt=f"Session {round_number}. {SYSTEM_PROMPT}")
            i = 0
            while window.front_tokens < front_tokens:
                window.add(i * 4.0, lines[i % len(lines)])
                i += 1
            ttft, finished = await time_to_first_token(backend, window.render(COMMENT_INSTRUCTION).messages)
            cold_ms.append(ttft * 1000)
            cold_prompt_tokens.append(finished.prompt_tokens)
            # The next call: one more final, the same front.
            window.add(i * 4.0, lines[i % len(lines)])
            ttft, finished = await time_to_first_token(backend, window.render(COMMENT_INSTRUCTION).messages)
            reused_ms.append(ttft * 1000)
            reused_prompt_tokens.append(finished.prompt_tokens)
            cached_tokens.append(finished.cached_tokens)
            print(
                f"local round {round_number}: cold {cold_ms[-1]:.0f} ms ({cold_prompt_tokens[-1]} tokens), "
                f"reused {reused_ms[-1]:.0f} ms ({reused_prompt_tokens[-1]} tokens, {cached_tokens[-1]} cached)"
            )
    finally:
        await backend.aclose()
    cold, reused = statistics.median(cold_ms), statistics.median(reused_ms)
    return {
        "model": model,
        "rounds": rounds,
        "cold_ttft_ms": round(cold, 1),
        "reused_ttft_ms": round(reused, 1),
        "cold_prompt_tokens": int(statistics.median(cold_prompt_tokens)),
        "reused_prompt_tokens": int(statistics.median(reused_prompt_tokens)),
        "reused_cached_tokens": int(statistics.median(cached_tokens)),
        "speedup": round(cold / reused, 2),
        "target_speedup": TARGET_REUSE_SPEEDUP,
        "ok": cold / reused >= TARGET_REUSE_SPEEDUP,
    }


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=3000)
    parser.add_argument("--deltas", type=int, default=50, help="deltas per synthetic generation")
    parser.add_argument("--warmup", type=int, default=100)
    parser.add_argument("--context-tokens", type=int, default=1_000_000, help="the synthetic model's context")
    parser.add_argument("--local", metavar="MODEL", help="qwen, smollm2 or a .gguf path: also measure prefix reuse")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--front-tokens", type=int, default=700, help="approximate prompt size for --local")
    args = parser.parse_args()

    gc.collect()
    synthetic = await bench_synthetic(args.iterations, args.deltas, args.warmup, args.context_tokens)
    print(
        "synthetic: trigger->request p50 {p50} ms p99 {p99} ms; ".format(**synthetic["trigger_to_request_ms"])
        + "token->event p50 {p50} ms p99 {p99} ms; ".format(**synthetic["token_to_event_ms"])
        + f"{synthetic['pipeline_tokens_per_s']} tokens/s through the pipeline, "
        f"window {synthetic['window_tokens_at_end']} tokens at the end, {synthetic['summary_folds']} summary folds"
    )
    worst_p99 = max(synthetic["trigger_to_request_ms"]["p99"], synthetic["token_to_event_ms"]["p99"])
    result: dict[str, Any] = {
        "bench": "llm_driver",
        "synthetic": synthetic,
        "target_p99_ms": TARGET_P99_MS,
        "ok": worst_p99 < TARGET_P99_MS,
    }
    if args.local:
        result["local"] = await bench_local(args.local, args.rounds, args.front_tokens)
    print(json.dumps(result))


if __name__ == "__main__":
    asyncio.run(main())
