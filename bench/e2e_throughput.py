"""End to end: a model of unbounded speed streams through the whole live path to 1, 10 and 100 viewers.

    python -m bench.e2e_throughput [--viewers 1,10,100] [--tokens 4000000] [--burst 256] [--token-chars 4]
                                   [--rate TOKENS_PER_S]

Each viewer count runs in a fresh server process (so its peak RSS is its own).
There the backend's raw rate is measured alone first: its stream consumed by a
bare ``async for`` (the fastest of three tries of up to a million tokens).  Then a session is opened on a real server, the viewers join
from a second process (the other core) over loopback websockets, and one
``transcript.final`` on the session's bus makes the real assistant start a
commentary: the backend streams ``--tokens`` tokens in bursts of ``--burst``
(what one socket read of a fast provider holds; it yields to the event loop
between bursts) through the assistant, the session's event stream, the
server's frame coalescing, each viewer's outbox and websocket.  Viewers decode
every frame and check the text (CRC-32).

Reported per viewer count: tokens/s delivered per viewer (mean and slowest) and
in aggregate; the ratio of the per-viewer rate to the raw rate; added latency
p50/p99 (a token's burst produced -> the frame holding it parsed by a viewer);
CPU seconds per million delivered tokens (server and viewer processes); peak
RSS (the server process includes the speech model every session loads).
Targets: 1 viewer >= 1,000,000 tokens/s with p99 <= 10 ms; 100 viewers >=
10,000,000 tokens/s in aggregate with p99 <= 50 ms and no viewer starved; the
pipeline >= 50% of the raw rate.  The last line of output is one JSON object.

Flat out, the backend takes every cycle the server's core has left, so with many
viewers both cores saturate and latency is the time text waits in buffers.
``--rate`` caps the backend (tokens/s, paced per burst) to measure latency at a
given load instead, e.g. the 100-viewer target's 10 M tokens/s in aggregate;
the ratio to the raw rate means nothing then and is not judged.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import subprocess
import sys
import time
import zlib
from typing import Any, AsyncIterator

from bench.viewers import ViewerProcess, account, cpu_s, peak_rss_mb
from streamtwin.llm.backend import ChatRequest, Delta, Finished, StreamItem
from streamtwin.assistant.prompt_layout import content_text
from streamtwin.twin.model import empty_state
from streamtwin.assistant.prompts import COMMENT_INSTRUCTION

TARGET_ONE_VIEWER_TOKENS_PER_S = 1_000_000
TARGET_ONE_VIEWER_P99_MS = 10.0
TARGET_HUNDRED_AGGREGATE_TOKENS_PER_S = 10_000_000
TARGET_HUNDRED_P99_MS = 50.0
TARGET_RATIO_TO_RAW = 0.5
STARVED_BELOW = 0.5  # a viewer getting less than half the mean rate is starved
VOCABULARY = 1024  # distinct tokens the model cycles through, so the CRC sees order


class FastBackend:
    """Streams commentary as fast as the loop lets it (or at most ``rate`` tokens/s), ``burst`` tokens per
    loop turn; records when each burst began.  Anything else (the twin, summaries) gets a short valid reply."""

    name = "synthetic"
    model = "fast"
    max_in_flight = 1
    supports_images = False

    def __init__(self, burst: int, token_chars: int, reply_tokens: int, rate: float | None = None) -> None:
        self.burst = burst
        self.rate = rate
        # The assistant keeps a quarter of the context, and room for a twin reply of twice the
        # commentary's, beside its window: a window of 16k tokens next to this run's long reply.
        self.context_tokens = (16_384 + reply_tokens) * 4 // 3 + 1
        self.vocabulary = [f"{i:x}".rjust(token_chars) for i in range(VOCABULARY)]
        self.burst_starts: list[float] = []
        self.finished_at = 0.0

    def text(self, tokens: int) -> str:
        cycle = "".join(self.vocabulary)
        return cycle * (tokens // VOCABULARY) + "".join(self.vocabulary[: tokens % VOCABULARY])

    async def stream(self, request: ChatRequest) -> AsyncIterator[StreamItem]:
        if COMMENT_INSTRUCTION not in content_text(request.messages[-1]["content"]):
            yield Delta(json.dumps(empty_state()) if request.response_format else "Nothing new.")
            yield Finished(completion_tokens=1)
            return
        vocabulary, burst = self.vocabulary, self.burst
        began = time.perf_counter()
        for start in range(0, request.max_tokens, burst):
            self.burst_starts.append(time.time())
            offset = start % VOCABULARY
            for token in vocabulary[offset : offset + burst]:
                yield Delta(token)
            ahead = (start + burst) / self.rate - (time.perf_counter() - began) if self.rate else 0.0
            await asyncio.sleep(max(0.0, ahead))
        self.finished_at = time.time()
        yield Finished(completion_tokens=request.max_tokens)

    async def aclose(self) -> None:
        pass


async def raw_rate(backend: FastBackend, tokens: int, tries: int = 3) -> dict[str, float]:
    """The backend alone, its stream consumed by a bare ``async for``: the fastest of ``tries``."""
    request = ChatRequest([{"role": "user", "content": COMMENT_INSTRUCTION}], max_tokens=tokens)
    best: dict[str, float] = {"tokens_per_s": 0}
    for _ in range(tries):
        cpu, began = cpu_s(), time.perf_counter()
        count = 0
        async for item in backend.stream(request):
            count += isinstance(item, Delta)
        tokens_per_s = count / (time.perf_counter() - began)
        if tokens_per_s > best["tokens_per_s"]:
            best = {"tokens_per_s": round(tokens_per_s), "cpu_s_per_m_tokens": round((cpu_s() - cpu) / count * 1e6, 3)}
    return best


async def run_one(viewers: int, tokens: int, burst: int, token_chars: int, rate: float | None) -> dict[str, Any]:
    from streamtwin.config import Config
    from streamtwin.events import TranscriptFinal
    from streamtwin.service.server import Server, make_session_factory

    tokens = -(-tokens // VOCABULARY) * VOCABULARY  # whole bursts (burst divides the vocabulary)
    backend = FastBackend(burst, token_chars, tokens, rate)
    config = Config(
        llm="none", vision=False, host="127.0.0.1", port=0, llm_max_tokens=tokens,
        max_viewers=viewers, max_connections=viewers + 16, max_connections_per_address=viewers + 16,
        offer_timeout_s=3600,  # no publisher ever offers here
    )
    server = Server(config, session_factory=make_session_factory(backend))
    await server.start()
    live = server.open_session(source="bench")
    await live.session.start()
    rss_before_mb = peak_rss_mb()
    raw = await raw_rate(FastBackend(burst, token_chars, tokens), min(tokens, 1_000_000))  # uncapped

    watching = ViewerProcess(f"ws://127.0.0.1:{server.port}/ws", live.id, live.viewer_token, viewers)
    await watching.start()
    cpu = cpu_s()
    live.session.bus.emit(TranscriptFinal(text="Let's plan the week.", start=0.0, end=1.5, utterance=1, utterance_end=True))
    report = await watching.report()
    server_cpu = cpu_s() - cpu
    live.finish()
    await server.close()

    delivery = account(report["viewers"], backend.burst_starts, burst, token_chars)
    began = backend.burst_starts[0]
    rates = [v["tokens"] / (v["last_arrival"] - began) for v in delivery["per_viewer"] if v["last_arrival"]]
    delivered = sum(v["tokens"] for v in delivery["per_viewer"])
    last_arrival = max(v["last_arrival"] or began for v in delivery["per_viewer"])
    expected_crc = zlib.crc32(backend.text(tokens).encode())
    per_viewer = sum(rates) / viewers
    return {
        "viewers": viewers,
        "tokens": tokens,
        "burst": burst,
        "token_chars": token_chars,
        "rate_cap": rate,
        "raw_tokens_per_s": raw["tokens_per_s"],
        "produced_tokens_per_s": round(tokens / (backend.finished_at - began)),
        "tokens_per_s_per_viewer": round(per_viewer),
        "slowest_viewer_tokens_per_s": round(min(rates, default=0)),
        "aggregate_tokens_per_s": round(delivered / (last_arrival - began)),
        "ratio_to_raw": round(per_viewer / raw["tokens_per_s"], 3),
        "added_latency_ms": delivery["added_latency_ms"],
        "starved_viewers": sum(rate < STARVED_BELOW * per_viewer for rate in rates) + viewers - len(rates),
        "viewers_with_text_intact": sum(v["crc32"] == expected_crc for v in report["viewers"]),
        "dropped_chars": sum(v["dropped_chars"] for v in report["viewers"]),
        "cpu_s_per_m_tokens": {
            "server": round(server_cpu / delivered * 1e6, 3),
            "viewers": round(report["cpu_s"] / delivered * 1e6, 3),
            "raw_backend_alone": raw["cpu_s_per_m_tokens"],
        },
        "peak_rss_mb": {"server": peak_rss_mb(), "server_before_streaming": rss_before_mb, "viewers": report["peak_rss_mb"]},
    }


def targets(runs: list[dict[str, Any]]) -> dict[str, bool]:
    by_viewers = {run["viewers"]: run for run in runs}
    met: dict[str, bool] = {}
    if 1 in by_viewers:
        one = by_viewers[1]
        met["one_viewer_tokens_per_s"] = one["tokens_per_s_per_viewer"] >= TARGET_ONE_VIEWER_TOKENS_PER_S
        met["one_viewer_p99"] = one["added_latency_ms"]["p99"] <= TARGET_ONE_VIEWER_P99_MS
    if 100 in by_viewers:
        hundred = by_viewers[100]
        met["hundred_viewers_aggregate"] = hundred["aggregate_tokens_per_s"] >= TARGET_HUNDRED_AGGREGATE_TOKENS_PER_S
        met["hundred_viewers_p99"] = hundred["added_latency_ms"]["p99"] <= TARGET_HUNDRED_P99_MS
        met["hundred_viewers_none_starved"] = hundred["starved_viewers"] == 0
    if all(run["rate_cap"] is None for run in runs):
        met["ratio_to_raw"] = all(run["ratio_to_raw"] >= TARGET_RATIO_TO_RAW for run in runs)
    return met


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--viewers", default="1,10,100", help="comma-separated viewer counts, one run each")
    parser.add_argument("--tokens", type=int, default=4_000_000, help="tokens in the generation of each run")
    parser.add_argument("--burst", type=int, default=256, choices=[2**i for i in range(11)],
                        help="tokens the backend has ready per event-loop turn")
    parser.add_argument("--token-chars", type=int, default=4, help="characters per token (English averages ~4)")
    parser.add_argument("--rate", type=float, default=None, help="cap the backend at this many tokens/s")
    parser.add_argument("--one", action="store_true", help=argparse.SUPPRESS)  # a single run, in this process
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    if args.one:
        run = run_one(int(args.viewers), args.tokens, args.burst, args.token_chars, args.rate)
        print(json.dumps(asyncio.run(run)))
        return
    runs = []
    for viewers in (int(v) for v in args.viewers.split(",")):
        command = [sys.executable, "-m", "bench.e2e_throughput", "--one", "--viewers", str(viewers),
                   "--tokens", str(args.tokens), "--burst", str(args.burst), "--token-chars", str(args.token_chars)]
        if args.rate:
            command += ["--rate", str(args.rate)]
        done = subprocess.run(command, capture_output=True, text=True, check=True)
        run = json.loads(done.stdout.strip().splitlines()[-1])
        runs.append(run)
        latency = run["added_latency_ms"]
        print(
            f"{viewers} viewers: {run['tokens_per_s_per_viewer']:,} tokens/s per viewer "
            f"(slowest {run['slowest_viewer_tokens_per_s']:,}), {run['aggregate_tokens_per_s']:,} in aggregate; "
            f"raw backend {run['raw_tokens_per_s']:,} tokens/s (ratio {run['ratio_to_raw']}); "
            f"added latency p50 {latency['p50']} ms, p99 {latency['p99']} ms; "
            f"text intact at {run['viewers_with_text_intact']}/{viewers}; "
            f"CPU s per M tokens: server {run['cpu_s_per_m_tokens']['server']}, "
            f"viewers {run['cpu_s_per_m_tokens']['viewers']}; peak RSS {run['peak_rss_mb']['server']} MB",
            flush=True,
        )
    met = targets(runs)
    print(json.dumps({"bench": "e2e_throughput", "runs": runs, "targets_met": met, "ok": all(met.values())}))


if __name__ == "__main__":
    main()
