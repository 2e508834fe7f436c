"""Speaker attribution on a shared microphone, and what the labels cost.

    python -m bench.speakers [--only NAME,...] [--asr-model base] [--no-eval]

Every sample with speaker labels (samples/*.json with ``turns``, samples/eval/dev/*.json with ``lines``) runs
through the real pipeline as fast as the machine allows (``--speakers voice``, no LLM, no video).  Each
word of each final gets the label of its utterance (the label of the utterance's last final, which holds
for all of it) and the true speaker of the turn its middle falls in.  Labels are matched one to one to
true speakers (most shared words first); the score is the share of words whose label matched their
speaker.  The cost is the CPU time the embedding jobs took (their own thread) per second of audio, i.e.
the share of one core labels take on a live stream; the encoder alone is also timed on 10 s of speech.
``hold`` is how long an utterance's last final waited for its label (p90 per sample; files run as fast as
possible, so the pool is busier than live).

Prints a table, the load average, then one JSON line.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import time
import wave
from pathlib import Path
from typing import Any

import numpy as np

import streamtwin
from streamtwin.speakers import encoder as ve

SAMPLES = Path(__file__).resolve().parent.parent / "samples"


def labelled_samples(only: set[str] | None, with_eval: bool) -> list[tuple[str, Path, list[dict[str, Any]]]]:
    """(name, audio, turns [{speaker, start, end}]) of every sample that says who spoke when."""
    found = []
    for meta_path in sorted(SAMPLES.glob("*.json")):
        meta = json.loads(meta_path.read_text())
        audio = meta_path.with_suffix(".wav")
        if "turns" in meta and audio.is_file():
            found.append((meta_path.stem, audio, meta["turns"]))
    if with_eval:
        for meta_path in sorted((SAMPLES / "eval" / "dev").glob("*.json")):  # never the test split
            meta = json.loads(meta_path.read_text())
            found.append((f"eval/{meta_path.stem}", meta_path.parent / meta["audio"], meta["lines"]))
    return [s for s in found if only is None or s[0] in only or s[0].split("/")[-1] in only]


def true_speaker(turns: list[dict[str, Any]], at: float) -> str:
    """The speaker of the turn ``at`` falls in, else of the nearest turn."""
    def distance(turn: dict[str, Any]) -> float:
        return max(turn["start"] - at, at - turn["end"], 0.0)

    return min(turns, key=distance)["speaker"]


def attribution(words: list[tuple[str, str]]) -> tuple[float, dict[str, str]]:
    """Share of (label, truth) words right under the best one-to-one label -> speaker match (greedy)."""
    counts: dict[tuple[str, str], int] = {}
    for label, truth in words:
        counts[(label, truth)] = counts.get((label, truth), 0) + 1
    mapping: dict[str, str] = {}
    for (label, truth), _ in sorted(counts.items(), key=lambda kv: -kv[1]):
        if label and label not in mapping and truth not in mapping.values():
            mapping[label] = truth
    right = sum(n for (label, truth), n in counts.items() if mapping.get(label) == truth)
    return (right / len(words) if words else 0.0), mapping


async def run_one(audio: Path, turns: list[dict[str, Any]], asr_model: str) -> dict[str, Any]:
    finals = []
    stats: dict[str, Any] = {}
    started = time.perf_counter()
    async for event in streamtwin.stream(
        str(audio), realtime=False, llm="none", vision=False, speakers="voice", asr_model=asr_model
    ):
        if isinstance(event, streamtwin.TranscriptFinal):
            finals.append(event)
        elif isinstance(event, streamtwin.SessionEnded):
            stats = event.stats
    label_of = {f.utterance: f.speaker for f in finals if f.utterance_end}
    words = [
        (label_of.get(f.utterance, ""), true_speaker(turns, (float(w[1]) + float(w[2])) / 2))
        for f in finals
        for w in f.words
    ]
    share, mapping = attribution(words)
    provisional = [f for f in finals if not f.utterance_end and f.speaker]
    agree = sum(f.speaker == label_of.get(f.utterance) for f in provisional)
    return {
        "words": len(words),
        "attributed": round(share, 4),
        "labels": sorted(set(label_of.values()) - {""}),
        "speakers": sorted({t["speaker"] for t in turns}),
        "mapping": mapping,
        "names": sorted({f.speaker_name for f in finals if f.speaker_name}),
        "provisional_agree": round(agree / len(provisional), 3) if provisional else None,
        "audio_s": stats.get("audio_s", 0.0),
        "embed_cpu_s": stats.get("speaker_embed_s", 0.0),
        "hold_p90_s": stats.get("speaker_hold_p90_s"),
        "wall_s": round(time.perf_counter() - started, 1),
    }


def encoder_cost(seconds: float = 10.0, repeats: int = 5) -> dict[str, float]:
    """The encoder alone on ``seconds`` of speech (all partials in one batch): CPU per audio second."""
    with wave.open(str(SAMPLES / "shared_mic.wav")) as f:
        wav = np.frombuffer(f.readframes(f.getnframes()), dtype="<i2").astype(np.float32) / 32768
    piece = wav[: int(seconds * 16000)]
    encoder = ve.shared_encoder()
    encoder.embed_utterance(piece)
    cpu = []
    for _ in range(repeats):
        began = time.process_time()
        encoder.embed_utterance(piece)
        cpu.append(time.process_time() - began)
    return {"cpu_s_per_audio_s": round(float(np.median(cpu)) / seconds, 4)}


async def main_async(args: argparse.Namespace) -> dict[str, Any]:
    only = set(args.only.split(",")) if args.only else None
    results: dict[str, Any] = {}
    print(f"{'sample':<18} {'words':>5} {'right':>6} {'labels':>6} {'true':>4} {'names':<18} {'cpu%':>5} {'hold90':>6} {'wall':>5}")
    for name, audio, turns in labelled_samples(only, not args.no_eval):
        result = await run_one(audio, turns, args.asr_model)
        results[name] = result
        share = 100 * result["embed_cpu_s"] / result["audio_s"] if result["audio_s"] else 0.0
        print(f"{name:<18} {result['words']:>5} {100 * result['attributed']:>5.1f}% {len(result['labels']):>6} "
              f"{len(result['speakers']):>4} {','.join(result['names']) or '-':<18} {share:>4.2f}% "
              f"{result['hold_p90_s'] or 0:>6.3f} {result['wall_s']:>5.0f}", flush=True)
    words = sum(r["words"] for r in results.values())
    right = sum(r["words"] * r["attributed"] for r in results.values())
    audio_s = sum(r["audio_s"] for r in results.values())
    embed_s = sum(r["embed_cpu_s"] for r in results.values())
    encoder = encoder_cost()
    load = os.getloadavg()
    summary = {
        "bench": "speakers",
        "asr_model": args.asr_model,
        "attributed": round(right / words, 4) if words else None,
        "words": words,
        "three_voice_labels": len(results.get("shared_mic", {}).get("labels", [])) or None,
        "labels_cpu_core_share": round(embed_s / audio_s, 4) if audio_s else None,
        "hold_p90_s_max": max((r["hold_p90_s"] or 0.0 for r in results.values()), default=None),
        "encoder_cpu_s_per_audio_s": encoder["cpu_s_per_audio_s"],
        "load_average": [round(x, 2) for x in load],
        "samples": results,
    }
    print(f"ALL: {100 * summary['attributed']:.1f}% of {words} words attributed right; labels cost "
          f"{100 * summary['labels_cpu_core_share']:.2f}% of a core; encoder alone "
          f"{1000 * encoder['cpu_s_per_audio_s']:.1f} ms CPU per audio second; load average "
          f"{load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    return summary


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", default="", help="comma-separated sample names (shared_mic, meeting, standup, ...)")
    parser.add_argument("--asr-model", default="base")
    parser.add_argument("--no-eval", action="store_true", help="leave out samples/eval/dev/")
    args = parser.parse_args()
    print(json.dumps(asyncio.run(main_async(args))))


if __name__ == "__main__":
    main()
