"""Fit the virtual clock's decode cost (bench/virtual_clock.py) on this machine: run it idle.

    python -m bench.decode_cost [--models base,tiny.en]

Times each part of a short-window decode (best of several runs, one thread): the
encoder at widths from 3 to 16 s of frames, the decoder for 1 to 30 generated tokens
(beam 2, and 5 for revisions), the alignment pass; then whole decodes of 1-8 s windows of samples/meeting.wav,
whose excess over the parts is the ``rest`` (features and Python, a line in the tokens).  Prints the fitted
``DecodeCost`` per model and, to check it, predicted against measured whole decodes.
The last line is one JSON object.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from typing import Any, Callable

import numpy as np
from faster_whisper.audio import decode_audio

from streamtwin.speech.asr_models import resolve_speech_model
from streamtwin.speech.whisper import HOP, ShortWindowWhisper, WindowJob, encoder_width

from .virtual_clock import DECODE_COST, DecodeCost

TEXT = (" And in the meeting today we need to discuss the new website and the launch date for the next"
        " quarter of the year, which is very important to everybody here")


def best(fn: Callable[[], Any], runs: int = 5) -> float:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        fn()
        times.append(time.perf_counter() - started)
    return min(times)


def fit(name: str, audio: np.ndarray) -> dict[str, Any]:
    model = ShortWindowWhisper(resolve_speech_model(name), threads=1, workers=1, beam_size=2)
    ct2 = model._fw.model
    window = audio[2 * 16000 : 10 * 16000]
    widths = [300, 500, 700, 900, 1100, 1300, 1600]
    encode = [best(lambda w=w: model._encode([window], w)) for w in widths]
    a, b = np.linalg.lstsq(np.array([[w, w * w] for w in widths], float), np.array(encode), rcond=None)[0]
    encoded = model._encode([window], 1000)
    tokenizer = model.tokenizer("en")
    start = [*tokenizer.sot_sequence, tokenizer.no_timestamps]
    counts = [1, 5, 10, 20, 30]

    def per_token(beam: int) -> tuple[float, float]:
        generate = [
            best(lambda n=n: ct2.generate(encoded, [start], beam_size=beam, max_length=len(start) + n,
                                          return_scores=True, return_no_speech_prob=True,
                                          suppress_blank=True, suppress_tokens=[-1]))
            for n in counts
        ]
        slope, at_zero = np.polyfit(counts, generate, 1)
        return float(at_zero), float(slope)

    g0, g1 = per_token(2)
    wide_beam = per_token(5)[1] / g1  # a revision's beam
    ids = tokenizer.encode(TEXT)
    aligned = [best(lambda n=n: ct2.align(encoded, tokenizer.sot_sequence, [ids[:n]], [800])) for n in (2, 10, 30)]
    a1, a0 = np.polyfit([2, 10, 30], aligned, 1)
    parts = DecodeCost(
        encode=(float(a), float(b)), generate=(float(g0), float(g1)), align=(float(a0), float(a1)), rest=(0.0, 0.0)
    )
    checks = []
    for seconds in (1, 2, 3, 4, 6, 8):
        job = WindowJob(audio[4 * 16000 : (4 + seconds) * 16000], "", "en")
        result = model.decode([job])[0]
        measured = best(lambda: model.decode([job]), runs=3)
        frames = encoder_width(len(job.audio) // HOP, int(model.tail_s * 100))
        checks.append((seconds, len(result.tokens), frames, measured))
    r1, r0 = np.polyfit([t for _, t, _, _ in checks], [m - parts.seconds(f, t, False) for _, t, f, m in checks], 1)
    fitted = DecodeCost(parts.encode, parts.generate, parts.align, (float(r0), float(r1)), round(wide_beam, 2))
    print(f"{name}: {fitted}")
    in_use = DECODE_COST.get(name)
    for seconds, tokens, frames, measured in checks:
        line = f"  {seconds} s window, {tokens} tokens: measured {measured:.3f} s, fitted {fitted.seconds(frames, tokens, False):.3f} s"
        print(line + (f", in use {in_use.seconds(frames, tokens, False):.3f} s" if in_use else ""))
    return {"model": name, "cost": fitted.__dict__, "checks": checks}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--models", default="base,tiny.en", help="comma-separated speech models (default: base,tiny.en)")
    args = parser.parse_args()
    audio = decode_audio("samples/meeting.wav", 16_000)
    load = os.getloadavg()[0]
    results = [fit(name, audio) for name in args.models.split(",")]
    print(json.dumps({"bench": "decode_cost", "load_average": load, "models": results}))


if __name__ == "__main__":
    main()
