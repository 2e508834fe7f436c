"""Websocket viewers in a second process, and the accounting of what they received.

Shared by the fan-out benchmarks (bench/fanout.py, bench/e2e_throughput.py).  Each
viewer joins a session, decodes every message, and for the first generation it
sees records (arrival time, characters so far) per ``assistant.delta`` frame, the
characters announced as dropped, and a CRC-32 of the text, until that
generation's ``assistant.done``.  Tokens have a fixed length and the model
produces them in fixed bursts whose start times the benchmark keeps, so a
character position gives the token, and the token its burst's start time.
"""

from __future__ import annotations

import asyncio
import json
import multiprocessing
import resource
import time
import zlib
from typing import Any

import numpy as np


class ViewerProcess:
    """``viewers`` websocket viewers of one session in a second process (spawned: the other core)."""

    def __init__(self, url: str | list[str], session_id: str, token: str, viewers: int) -> None:
        """``url``: one node's /ws, or several: viewer ``i`` joins ``url[i % len(url)]``."""
        urls = [url] if isinstance(url, str) else url
        context = multiprocessing.get_context("spawn")
        self._conn, child = context.Pipe()
        self._process = context.Process(target=_run_viewers, args=(urls, session_id, token, viewers, child), daemon=True)

    async def start(self) -> None:
        """Start them; returns once every viewer has joined."""
        self._process.start()
        assert await self._next() == "ready"

    async def report(self) -> dict[str, Any]:
        """Once every viewer saw its generation's ``assistant.done``: what each received, the process's
        CPU seconds meanwhile and its peak RSS."""
        report = await self._next()
        self._process.join(30)
        return report

    async def _next(self) -> Any:
        while not self._conn.poll():
            await asyncio.sleep(0.01)
        return self._conn.recv()


def _run_viewers(urls: list[str], session_id: str, token: str, viewers: int, conn: Any) -> None:
    asyncio.run(_viewers(urls, session_id, token, viewers, conn))


async def _viewers(urls: list[str], session_id: str, token: str, viewers: int, conn: Any) -> None:
    from websockets.asyncio.client import connect

    ready = asyncio.Barrier(viewers + 1)

    async def one(url: str) -> dict[str, Any]:
        frames: list[tuple[float | None, int]] = []
        chars = dropped = crc = 0
        generation = None
        async with connect(url, proxy=None, max_size=None, compression=None, open_timeout=60) as ws:
            await ws.send(json.dumps({"type": "hello", "role": "viewer", "session": session_id, "token": token}))
            welcome = json.loads(await ws.recv())
            assert welcome["type"] == "welcome", welcome
            await ready.wait()
            async for raw in ws:
                message = json.loads(raw)
                now = time.time()  # parsed: what a page could show now
                kind = message["type"]
                if kind == "assistant.started" and generation is None:
                    generation = message["generation"]
                elif message.get("generation") != generation:
                    continue
                elif kind == "assistant.delta":
                    chars += len(message["text"])
                    crc = zlib.crc32(message["text"].encode(), crc)
                    frames.append((now, chars))
                elif kind == "notice":  # text lost here: its positions are skipped, not received
                    dropped += message.get("dropped_chars", 0)
                    chars += message.get("dropped_chars", 0)
                    frames.append((None, chars))
                elif kind == "assistant.done":
                    break
        return {"frames": frames, "dropped_chars": dropped, "crc32": crc}

    tasks = [asyncio.ensure_future(one(urls[i % len(urls)])) for i in range(viewers)]
    await ready.wait()
    conn.send("ready")
    cpu_before = cpu_s()
    results = await asyncio.gather(*tasks)
    conn.send({"viewers": results, "cpu_s": cpu_s() - cpu_before, "peak_rss_mb": peak_rss_mb()})


def cpu_s() -> float:
    """CPU seconds this process has used (user and system)."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def peak_rss_mb() -> float:
    """The largest resident set this process has had, in MB (VmHWM: unlike ru_maxrss, it does not
    carry over the parent's peak into a spawned child)."""
    with open("/proc/self/status") as status:
        kb = next(int(line.split()[1]) for line in status if line.startswith("VmHWM:"))
    return round(kb / 1024, 1)


def weighted_percentile(values: np.ndarray, weights: np.ndarray, q: float) -> float:
    """The ``q``-th percentile of ``values`` where each value counts ``weights`` times."""
    order = np.argsort(values)
    cumulative = np.cumsum(weights[order])
    index = int(np.searchsorted(cumulative, q / 100 * cumulative[-1]))
    return float(values[order][min(index, len(order) - 1)])


def account(viewers: list[dict[str, Any]], burst_starts: list[float], burst: int, token_chars: int) -> dict[str, Any]:
    """Per viewer: tokens received and when the last arrived; for all: each received token's latency
    from the start of the burst that produced it to its arrival, as weighted percentiles."""
    starts = np.asarray(burst_starts)
    per_viewer = []
    latencies: list[np.ndarray] = []
    weights: list[np.ndarray] = []
    for viewer in viewers:
        received = 0
        last_arrival = None
        previous_chars = 0
        frames = viewer["frames"]
        for arrival, chars in frames:
            first, end = previous_chars // token_chars, chars // token_chars
            previous_chars = chars
            if arrival is None or end <= first:
                continue
            # Tokens first..end-1, grouped by the burst each came from.
            first_burst, last_burst = first // burst, (end - 1) // burst
            bursts = np.arange(first_burst, last_burst + 1)
            counts = np.minimum((bursts + 1) * burst, end) - np.maximum(bursts * burst, first)
            latencies.append(arrival - starts[bursts])
            weights.append(counts)
            received += end - first
            last_arrival = arrival
        per_viewer.append({"tokens": int(received), "last_arrival": last_arrival})
    if latencies:
        values, counts = np.concatenate(latencies) * 1000, np.concatenate(weights)
        latency = {
            "p50": round(weighted_percentile(values, counts, 50), 2),
            "p99": round(weighted_percentile(values, counts, 99), 2),
            "max": round(float(values.max()), 2),
        }
    else:
        latency = {"p50": None, "p99": None, "max": None}
    return {"per_viewer": per_viewer, "added_latency_ms": latency}
