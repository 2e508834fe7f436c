"""Soak: one live session for a long time; is anything growing?

    python -m bench.soak [--minutes 30] [--every 10] [--llm none|local|groq|...] [--llm-model smollm2] [--flood]

The server runs in this process.  A publisher process (aiortc, loopback ICE only) streams
samples/meeting.mp4 in a loop (speech, pauses and video); viewers join and leave all along;
with ``--flood`` a third process opens and drops connections and sends malformed messages
without pause.  Every ``--every`` seconds the server's RSS, open descriptors, asyncio tasks,
event-loop lag and /healthz latency are sampled and logged, with the bytes of the live session's
event log (kept on purpose, up to ``log_max_bytes``) and the allocator's split of its memory into
blocks in use and blocks freed but held (growth in the first is something kept; in the second, the
allocator's high-water marks).  The allocator is the one ``serve`` gets: jemalloc when installed.
At the end: the slope of each (per 10 minutes, least squares over the samples after ``--warmup``
seconds; target: RSS < 1 MB per 10 minutes), lag and /healthz percentiles, and, as the last line,
one JSON object.
"""

from __future__ import annotations

import argparse
import asyncio
import ctypes
import json
import logging
import multiprocessing
import os
import random
import socket
import threading
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

log = logging.getLogger("bench.soak")

ROOT = Path(__file__).resolve().parent.parent
SOURCE = ROOT / "samples" / "meeting.mp4"
LAG_TICK_S = 0.05


class Figures:
    """Measurements kept in a buffer allocated (and touched) up front: a list of floats here grew by
    ~0.6 MB per 10 minutes (lag ticks and /healthz latencies), the bench's own growth inside the
    RSS it measures.  Past ``capacity`` the oldest are overwritten."""

    def __init__(self, capacity: int) -> None:
        self._values = np.full(max(1, capacity), np.nan)
        self._count = 0

    def append(self, value: float) -> None:
        self._values[self._count % len(self._values)] = value
        self._count += 1

    def __len__(self) -> int:
        return min(self._count, len(self._values))

    def values(self) -> np.ndarray:
        return self._values[: len(self)]


def publisher_process(url: str) -> None:
    """Publish the sample's speech in an endless loop, with a changing picture, until killed.

    aiortc's MediaPlayer(loop=True) restarts timestamps at every loop (and ended the session here),
    so the tracks are made here: 20 ms frames of the decoded sample with steadily growing timestamps."""
    from streamtwin.media.publisher import Publication
    from streamtwin.service.webrtc import use_loopback_candidates

    use_loopback_candidates()
    audio, video = looped_tracks()
    publication = Publication(url, audio, video, on_event=lambda event: None, label="soak")
    asyncio.run(publication.run())


def looped_tracks() -> tuple[Any, Any]:
    import fractions

    import av
    from aiortc.mediastreams import MediaStreamTrack, VideoStreamTrack

    resampler = av.AudioResampler(format="s16", layout="mono", rate=48000)
    with av.open(str(SOURCE)) as container:
        chunks = [out.to_ndarray().reshape(-1) for frame in container.decode(audio=0) for out in resampler.resample(frame)]
    speech = np.concatenate(chunks)

    class LoopedAudio(MediaStreamTrack):
        kind = "audio"

        def __init__(self) -> None:
            super().__init__()
            self.pts = 0
            self.started: float | None = None

        async def recv(self) -> av.AudioFrame:
            self.started = self.started or time.time()
            delay = self.started + self.pts / 48000 - time.time()
            if delay > 0:
                await asyncio.sleep(delay)
            offset = self.pts % len(speech)
            chunk = np.take(speech, range(offset, offset + 960), mode="wrap")
            frame = av.AudioFrame.from_ndarray(chunk.reshape(1, -1), format="s16", layout="mono")
            frame.sample_rate, frame.pts, frame.time_base = 48000, self.pts, fractions.Fraction(1, 48000)
            self.pts += 960
            return frame

    class ChangingPicture(VideoStreamTrack):
        """A new flat colour every 7 s with a moving bar: scene changes and motion for the vision stage."""

        async def recv(self) -> av.VideoFrame:
            pts, time_base = await self.next_timestamp()
            seconds = float(pts * time_base)
            image = np.full((240, 320, 3), (int(seconds / 7) * 67) % 256, dtype=np.uint8)
            bar = int(seconds * 40) % 300
            image[:, bar:bar + 20] = 255
            frame = av.VideoFrame.from_ndarray(image, format="rgb24")
            frame.pts, frame.time_base = pts, time_base
            return frame

    return LoopedAudio(), ChangingPicture()


def flood_process(url: str) -> None:
    """Connect, send junk, drop; over and over (20 at a time)."""
    asyncio.run(_flood(url))


async def _flood(url: str) -> None:
    from websockets.asyncio.client import connect

    junk = ["{", "[" * 2000 + "]" * 2000, '{"type": "dance"}', '{"type": "hello", "role": "king"}', b"\x00\x01"]
    rng = random.Random(11)

    async def one() -> None:
        try:
            async with connect(url, proxy=None, open_timeout=10) as ws:
                for _ in range(5):
                    await ws.send(rng.choice(junk))
                    await ws.recv()
        except Exception:  # refusals at the caps are part of the flood
            await asyncio.sleep(0.1)

    while True:
        await asyncio.gather(*(one() for _ in range(20)))


def start(target: Any, url: str) -> multiprocessing.Process:
    process = multiprocessing.get_context("spawn").Process(target=target, args=(url,), daemon=True)
    process.start()
    return process


class Healthz(threading.Thread):
    """GET /healthz every ``every_s`` from a thread (an HTTP client would be another process's job; a thread
    shares the GIL with the server, so these figures are if anything pessimistic)."""

    def __init__(self, port: int, seconds: float, every_s: float = 0.1):
        super().__init__(daemon=True)
        self.port = port
        self.every_s = every_s
        self.latencies = Figures(int(seconds / every_s))
        self.failures = 0
        self.stop = threading.Event()

    def run(self) -> None:
        request = f"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:{self.port}\r\n\r\n".encode()
        while not self.stop.wait(self.every_s):
            began = time.perf_counter()
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=5) as sock:
                    sock.sendall(request)
                    ok = sock.recv(64).startswith(b"HTTP/1.1 200")
            except OSError:
                ok = False
            if ok:
                self.latencies.append(time.perf_counter() - began)
            else:
                self.failures += 1


class LoopLag:
    """How late the event loop wakes from a short sleep: what every client waits on top of its work."""

    def __init__(self, seconds: float) -> None:
        self.all = Figures(int(seconds / LAG_TICK_S))
        self.window_max = 0.0

    async def run(self) -> None:
        while True:
            began = time.perf_counter()
            await asyncio.sleep(LAG_TICK_S)
            lag = time.perf_counter() - began - LAG_TICK_S
            self.all.append(lag)
            self.window_max = max(self.window_max, lag)

    def take_window_max(self) -> float:
        worst, self.window_max = self.window_max, 0.0
        return worst


class SessionLog:
    """Bytes of events the live session's log holds, read as it grows: kept on purpose (bounded by
    ``log_max_bytes``, 64 MB), so its share of the RSS slope is reported beside it, not mistaken for a leak."""

    def __init__(self, server: Any) -> None:
        self.server = server
        self.session = ""
        self.after = 0
        self.bytes = 0

    async def mb(self) -> float:
        if not self.server.sessions:
            return self.bytes / 2**20
        session = next(iter(self.server.sessions))
        if session != self.session:
            self.session, self.after, self.bytes = session, 0, 0
        while entries := await self.server.log.store.read_after(session, self.after):
            self.bytes += sum(len(entry.data) for entry in entries)
            self.after = entries[-1].seq
        return self.bytes / 2**20


async def viewers(server: Any, rng: random.Random) -> None:
    """Viewers join the running session and leave after a while, one to three at a time."""
    from websockets.asyncio.client import connect

    async def watch(seconds: float) -> None:
        if not server.sessions:
            return
        live = next(iter(server.sessions.values()))
        url = f"ws://127.0.0.1:{server.port}/ws"
        async with connect(url, proxy=None, max_size=None) as ws:
            await ws.send(json.dumps({"type": "hello", "role": "viewer", "session": live.id, "token": live.viewer_token}))
            async with asyncio.timeout(seconds):
                try:
                    async for _ in ws:
                        pass
                except TimeoutError:
                    pass

    while True:
        await asyncio.gather(*(watch(rng.uniform(5, 40)) for _ in range(rng.randint(1, 3))), return_exceptions=True)
        await asyncio.sleep(rng.uniform(1, 10))


class MallInfo2(ctypes.Structure):
    """glibc's ``struct mallinfo2`` (malloc.h): the allocator's own account of its memory."""

    _fields_ = [(name, ctypes.c_size_t) for name in (
        "arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks", "fordblks", "keepcost")]


def glibc_split(libc: Any | None) -> dict[str, float]:
    """RSS growth is either memory in use (a leak, a cache) or blocks malloc freed and still holds (its heaps'
    high-water marks): ``malloc_used_mb`` (heap blocks in use plus mapped blocks) and ``malloc_held_mb`` tell
    which.  Empty without glibc 2.33+."""
    if libc is None or not hasattr(libc, "mallinfo2"):
        return {}
    libc.mallinfo2.restype = MallInfo2
    info = libc.mallinfo2()
    return {"malloc_used_mb": round((info.uordblks + info.hblkhd) / 2**20, 1), "malloc_held_mb": round(info.fordblks / 2**20, 1)}


def jemalloc_split(symbols: Any) -> dict[str, float]:
    """The same split from jemalloc's statistics: bytes allocated, and resident bytes beyond them (pages freed
    and not purged yet, partly used pages, jemalloc's own metadata)."""
    epoch = ctypes.c_uint64(1)  # statistics are a snapshot, refreshed by writing the epoch
    symbols.mallctl(b"epoch", None, None, ctypes.byref(epoch), ctypes.c_size_t(ctypes.sizeof(epoch)))

    def read(name: bytes) -> int:
        value = ctypes.c_size_t(0)
        size = ctypes.c_size_t(ctypes.sizeof(value))
        if symbols.mallctl(name, ctypes.byref(value), ctypes.byref(size), None, ctypes.c_size_t(0)) != 0:
            raise OSError(f"mallctl {name.decode()} failed")
        return value.value

    allocated, resident = read(b"stats.allocated"), read(b"stats.resident")
    return {"malloc_used_mb": round(allocated / 2**20, 1), "malloc_held_mb": round((resident - allocated) / 2**20, 1)}


def malloc_split() -> dict[str, float]:
    """The split from whichever malloc serves this process (see :mod:`streamtwin.service.native_memory`); empty for others."""
    from streamtwin.service.native_memory import glibc, jemalloc

    symbols = jemalloc()
    return jemalloc_split(symbols) if symbols is not None else glibc_split(glibc())


def footprint() -> dict[str, float]:
    status = Path("/proc/self/status").read_text().splitlines()
    rss_kb = next(int(line.split()[1]) for line in status if line.startswith("VmRSS:"))
    return {"rss_mb": rss_kb / 1024, "fds": len(os.listdir("/proc/self/fd")), "tasks": len(asyncio.all_tasks()),
            **malloc_split()}


def slope_per_10min(samples: list[dict[str, float]], key: str) -> float | None:
    if len(samples) < 3 or key not in samples[0]:
        return None
    t = np.array([s["t"] for s in samples])
    y = np.array([s[key] for s in samples])
    return float(np.polyfit(t, y, 1)[0] * 600)


def pct(figures: Figures, q: float) -> float | None:
    return round(float(np.percentile(figures.values(), q)) * 1e3, 2) if len(figures) else None


async def run(minutes: float, every: float, warmup: float, llm: str, llm_model: str, flood: bool) -> dict[str, Any]:
    from bench.live_latency import serve_on_loopback
    from streamtwin.config import Config
    from streamtwin.speech.engine import load_engine

    # STREAMTWIN_* settings apply (e.g. STREAMTWIN_MALLOC_MMAP_THRESHOLD), as they would to serve.
    config = replace(Config.from_sources(), host="127.0.0.1", port=0, llm=llm, llm_model=llm_model)
    await asyncio.to_thread(load_engine, config)  # as serve does, before listening
    server, backend = await serve_on_loopback(config)
    url = f"ws://127.0.0.1:{server.port}/ws"
    processes = [start(publisher_process, url)] + ([start(flood_process, url)] if flood else [])
    lags = LoopLag(minutes * 60)
    helpers = [asyncio.ensure_future(lags.run()), asyncio.ensure_future(viewers(server, random.Random(11)))]
    probe = Healthz(server.port, minutes * 60)
    probe.start()
    session_log = SessionLog(server)
    samples: list[dict[str, float]] = []
    began = time.monotonic()
    try:
        while time.monotonic() - began < minutes * 60:
            await asyncio.sleep(every)
            sample = {"t": round(time.monotonic() - began, 1), **footprint(),
                      "log_mb": round(await session_log.mb(), 2),
                      "lag_max_ms": round(lags.take_window_max() * 1e3, 1), "sessions": len(server.sessions),
                      "load1": os.getloadavg()[0]}
            samples.append(sample)
            log.info("%s", json.dumps(sample))
    finally:
        probe.stop.set()
        for helper in helpers:
            helper.cancel()
        for process in processes:
            process.kill()
        await server.close()
        if backend is not None:
            await backend.aclose()
    steady = [s for s in samples if s["t"] >= warmup]
    return {
        "bench": "soak",
        "minutes": minutes,
        "llm": llm,
        "flood": flood,
        "samples": len(samples),
        "rss_mb_start": round(steady[0]["rss_mb"], 1) if steady else None,
        "rss_mb_end": round(samples[-1]["rss_mb"], 1) if samples else None,
        "rss_mb_per_10min": _round(slope_per_10min(steady, "rss_mb")),
        "malloc_used_mb_per_10min": _round(slope_per_10min(steady, "malloc_used_mb")),
        "malloc_held_mb_per_10min": _round(slope_per_10min(steady, "malloc_held_mb")),
        "fds_per_10min": _round(slope_per_10min(steady, "fds")),
        "tasks_per_10min": _round(slope_per_10min(steady, "tasks")),
        "log_mb_end": round(samples[-1]["log_mb"], 1) if samples else None,
        "log_mb_per_10min": _round(slope_per_10min(steady, "log_mb")),
        "loop_lag_ms_p99": pct(lags.all, 99),
        "loop_lag_ms_max": pct(lags.all, 100),
        "healthz_ms_p50": pct(probe.latencies, 50),
        "healthz_ms_p99": pct(probe.latencies, 99),
        "healthz_failures": probe.failures,
        "session_alive_at_end": bool(samples and samples[-1]["sessions"]),
        "finals": int(server.metrics.sample("streamtwin_events_total", type="transcript.final")),
        "load1_mean": round(float(np.mean([s["load1"] for s in samples])), 2) if samples else None,
    }


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 3)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--minutes", type=float, default=30.0)
    parser.add_argument("--every", type=float, default=10.0, help="seconds between samples")
    parser.add_argument("--warmup", type=float, default=60.0, help="seconds left out of the slopes")
    parser.add_argument("--llm", default="none")
    parser.add_argument("--llm-model", default="")
    parser.add_argument("--flood", action="store_true", help="also flood the server from another process")
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING, format="%(asctime)s %(name)s: %(message)s")
    log.setLevel(logging.INFO)
    logging.getLogger("streamtwin.service.native_memory").setLevel(logging.INFO)
    from streamtwin.config import Config
    from streamtwin.service.native_memory import use_allocator

    use_allocator(Config.from_sources().allocator)  # the server runs in this process: the allocator serve has
    result = asyncio.run(run(args.minutes, args.every, args.warmup, args.llm, args.llm_model, args.flood))
    for key, value in result.items():
        log.info("%-22s %s", key, value)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
