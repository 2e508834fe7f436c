"""Memory over a long stream: one session hears a sample looped for N minutes; RSS must stay flat.

    python -m bench.asr_memory [--minutes 30] [--sample samples/meeting.wav] [--asr-model base]

The audio goes through the same streaming path as live input, as fast as the machine allows
(speech and the pauses between turns, so buffers fill and drain as they would live).  RSS is
sampled after every minute of audio; the slope is fitted over the minutes after warm-up (the
first 3).  The last line of output is one JSON object.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import sys
import time
from dataclasses import replace

import numpy as np
from faster_whisper import decode_audio

from streamtwin.media.audio import SAMPLE_RATE
from streamtwin.config import Config
from streamtwin.speech.engine import load_engine
from streamtwin.events import TranscriptFinal
from streamtwin.session import Session

WARM_UP_MIN = 3


def rss_mb() -> float:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


async def run(args: argparse.Namespace) -> dict:
    config = replace(Config.from_sources({"asr_model": args.asr_model}), llm="none", vision=False)
    load_engine(config)
    audio = decode_audio(args.sample)
    session = Session(config, source=args.sample, realtime=False)
    words = [0]
    session.bus.subscribe(lambda e: words.__setitem__(0, words[0] + len(e.words)) if isinstance(e, TranscriptFinal) else None)
    await session.start()
    chunk = SAMPLE_RATE // 50  # 20 ms, as WebRTC delivers it
    samples: list[tuple[float, float]] = []
    fed = 0
    next_mark = 60 * SAMPLE_RATE
    started = time.perf_counter()
    while fed < args.minutes * 60 * SAMPLE_RATE:
        for offset in range(0, len(audio), chunk):
            await session.push_audio(audio[offset : offset + chunk])
            fed += len(audio[offset : offset + chunk])
            if fed >= next_mark:
                samples.append((fed / SAMPLE_RATE / 60, rss_mb()))
                print(f"{samples[-1][0]:.0f} min of audio: RSS {samples[-1][1]:.1f} MB, {words[0]} words",
                      file=sys.stderr, flush=True)
                next_mark += 60 * SAMPLE_RATE
    await session.end()
    steady = [(m, r) for m, r in samples if m > WARM_UP_MIN]
    slope = float(np.polyfit([m for m, _ in steady], [r for _, r in steady], 1)[0]) if len(steady) >= 2 else None
    return {
        "bench": "asr_memory", "sample": args.sample, "asr_model": args.asr_model, "minutes": args.minutes,
        "words": words[0], "wall_s": round(time.perf_counter() - started, 1),
        "rss_mb": [round(r, 1) for _, r in samples],
        "slope_mb_per_10_min": round(slope * 10, 2) if slope is not None else None,
        "load_average": os.getloadavg()[0],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--minutes", type=int, default=30, help="minutes of audio to stream (default: 30)")
    parser.add_argument("--sample", default="samples/meeting.wav")
    parser.add_argument("--asr-model", default="base")
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    print(json.dumps(asyncio.run(run(args))))


if __name__ == "__main__":
    main()
