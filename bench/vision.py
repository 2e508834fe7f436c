"""How much the video stage costs: frames per second it analyses, and CPU per live 30 fps stream.

Run from the repository root:  python -m bench.vision [--seconds 10]

1. features: compute_features() alone on a 64x48 RGB image.
2. throughput: offer() on pre-decoded frames as fast as possible, every frame analysed
   (max_rate far above the input rate), at 640x480, 1280x720 and 3840x2160.
3. live: frames fed at 30 fps in real time for --seconds, CPU time / wall time of this
   process (time.process_time), with the default max_rate and with every frame analysed.

The input is generated (moving testsrc2, then a zooming mandelbrot: changing content with a
cut), decoded up front so decoding is not counted.  Ends with one JSON line.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

import av
import numpy as np

from streamtwin.config import Config
from streamtwin.vision.frames import FEATURE_HEIGHT, FEATURE_WIDTH, compute_features
from streamtwin.vision.vision_stage import VisionStage
from tests.media import decoded_frames, lavfi_video

INPUT_FPS = 30
SIZES = {"640x480": (640, 480), "1280x720": (1280, 720), "3840x2160": (3840, 2160)}
LIVE_SIZES = ("640x480", "1280x720")
EVERY_FRAME = 1000.0  # a max_rate no input reaches


def decode_clip(folder: Path, size: tuple[int, int], seconds: float) -> list[av.VideoFrame]:
    path = lavfi_video(
        folder / f"{size[0]}x{size[1]}.mp4", ["testsrc2", "mandelbrot"], seconds / 2, fps=INPUT_FPS, size=size
    )
    return [frame for frame, _ in decoded_frames(path)]


def bench_features(repeats: int = 2000) -> float:
    """CPU microseconds per compute_features() call on random (worst-case colourful) images."""
    images = np.random.default_rng(0).integers(0, 256, (8, FEATURE_HEIGHT, FEATURE_WIDTH, 3), dtype=np.uint8)
    previous = None
    start = time.process_time()
    for index in range(repeats):
        previous = compute_features(images[index % len(images)], previous)
    return (time.process_time() - start) / repeats * 1e6


def bench_throughput(frames: list[av.VideoFrame]) -> dict[str, float]:
    """offer() on every frame back to back, each one analysed: wall time per call and CPU per frame."""
    stage = VisionStage(Config(), lambda event: None, max_rate=EVERY_FRAME)
    costs = []
    cpu_start = time.process_time()
    for index, frame in enumerate(frames):
        start = time.perf_counter()
        stage.offer(frame, index / INPUT_FPS, speaking=True)
        costs.append(time.perf_counter() - start)
    cpu = time.process_time() - cpu_start
    costs_ms = sorted(cost * 1000 for cost in costs)
    return {
        "frames": len(frames),
        "fps": round(len(costs) / sum(costs), 1),
        "cpu_ms_per_frame": round(cpu / len(frames) * 1000, 3),
        "median_ms": round(statistics.median(costs_ms), 3),
        "p95_ms": round(costs_ms[int(0.95 * (len(costs_ms) - 1))], 3),
        "max_ms": round(costs_ms[-1], 3),
        "kept": stage.stats.kept,
    }


def bench_live(frames: list[av.VideoFrame], seconds: float, max_rate: float) -> dict[str, float]:
    """Feed frames at INPUT_FPS in real time; CPU share of one core used meanwhile."""
    stage = VisionStage(Config(), lambda event: None, max_rate=max_rate)
    count = round(seconds * INPUT_FPS)
    wall_start = time.perf_counter()
    cpu_start = time.process_time()
    for index in range(count):
        due = wall_start + index / INPUT_FPS
        delay = due - time.perf_counter()
        if delay > 0:
            time.sleep(delay)
        stage.offer(frames[index % len(frames)], index / INPUT_FPS, speaking=True)
    wall = time.perf_counter() - wall_start
    cpu = time.process_time() - cpu_start
    return {
        "max_rate": max_rate,
        "frames": count,
        "analysed": stage.stats.analysed,
        "kept": stage.stats.kept,
        "cpu_percent_of_core": round(100 * cpu / wall, 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=10.0, help="length of each live run")
    args = parser.parse_args()

    results: dict[str, object] = {"features_us": round(bench_features(), 1), "throughput": {}, "live": {}}
    print(f"compute_features: {results['features_us']} us of CPU per frame")
    with tempfile.TemporaryDirectory() as folder:
        for name, size in SIZES.items():
            clip_seconds = 1.0 if name == "3840x2160" else 4.0  # 4K frames are 12 MB each decoded
            frames = decode_clip(Path(folder), size, clip_seconds)
            row = bench_throughput(frames)
            results["throughput"][name] = row
            print(
                f"throughput {name}: {row['fps']} fps, CPU {row['cpu_ms_per_frame']} ms/frame, "
                f"median {row['median_ms']} ms, p95 {row['p95_ms']} ms, max {row['max_ms']} ms "
                f"({row['kept']} kept of {row['frames']})"
            )
            if name in LIVE_SIZES:
                for max_rate in (10.0, EVERY_FRAME):
                    live = bench_live(frames, args.seconds, max_rate)
                    label = "every frame" if max_rate == EVERY_FRAME else f"max_rate {max_rate:g}"
                    results["live"][f"{name}@{label}"] = live
                    print(
                        f"live {name} 30 fps, {label}: {live['cpu_percent_of_core']}% of a core "
                        f"({live['analysed']} analysed, {live['kept']} kept of {live['frames']})"
                    )
    print(json.dumps({"bench": "vision", **results}))


if __name__ == "__main__":
    main()
