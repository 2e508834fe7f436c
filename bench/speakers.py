"""Speaker attribution on a shared microphone, and what the labels cost.

    python -m bench.speakers [--set espeak|voices|recorded|all] [--split dev|test] [--only NAME,...]
                             [--asr-model base] [--language-hint en]

The sets: ``espeak`` (samples/*.json with ``turns`` and samples/eval/SPLIT/*.json: synthetic voices), ``voices``
(samples/voices/SPLIT: conversations mixed from recordings of real people, make_voices.py) and ``recorded``
(samples/voices/recorded: recorded meeting excerpts).  Tune on ``--split dev`` (the default); ``test`` is for the
report.  Each runs through the real pipeline as fast as the machine allows (``--speakers voice``, no LLM, no
video).  Each word of each final gets the label of its utterance (the label of the utterance's last final), then
whatever later ``speaker.turns`` events said of it (a split utterance, a re-clustering, a merge), and the true
speaker of the turn its middle falls in.  Labels are matched one to one to true speakers (most shared words
first); the score is the share of words whose label matched their speaker.  ``labels`` counts the labels left
at the end (right when it equals the speakers present).  ``new voice`` is, per true speaker, the media seconds
from their first turn's start to the first final that showed one of their words under the label they end with
(the final's ``media_time``: the audio heard when it was emitted); the table gives the worst per conversation.
The cost is the CPU time the embedding jobs took (their own thread) per second of audio, i.e.
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
from streamtwin.events import SpeakerNamed, SpeakerTurns
from streamtwin.speakers import encoder as ve

SAMPLES = Path(__file__).resolve().parent.parent / "samples"


def labelled_samples(only: set[str] | None, which: str, split: str) -> list[tuple[str, Path, list[dict[str, Any]]]]:
    """(name, audio, turns [{speaker, start, end}]) of every sample of the set that says who spoke when."""
    found = []
    if which in ("espeak", "all"):
        for meta_path in sorted(SAMPLES.glob("*.json")):
            meta = json.loads(meta_path.read_text())
            audio = meta_path.with_suffix(".wav")
            if "turns" in meta and audio.is_file():
                found.append((meta_path.stem, audio, meta["turns"]))
    folders = {"espeak": [SAMPLES / "eval" / split], "voices": [SAMPLES / "voices" / split],
               "recorded": [SAMPLES / "voices" / "recorded"]}
    folders["all"] = [f for key in ("espeak", "voices", "recorded") for f in folders[key]]
    for folder in folders[which]:
        for meta_path in sorted(folder.glob("*.json")):
            meta = json.loads(meta_path.read_text())
            tag = f"{folder.parent.name}/{folder.name}" if folder.parent.name == "voices" else f"eval/{folder.name}"
            found.append((f"{tag}/{meta_path.stem}", meta_path.parent / meta["audio"], meta["lines"]))
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


def label_timeline(events: list[Any]) -> list[tuple[list[Any], list[tuple[float | None, str]]]]:
    """Per word of every final: [utterance, middle] and each label it was shown under, in order, with the
    ``media_time`` of the event that showed it: the final's own label, the utterance end's (which holds for all
    of the utterance), then every ``speaker.turns`` that names it."""
    finals = [e for e in events if isinstance(e, streamtwin.TranscriptFinal)]
    words: list[tuple[list[Any], list[tuple[float | None, str]]]] = []
    by_utterance: dict[int, list[tuple[list[Any], list[tuple[float | None, str]]]]] = {}
    for event in events:
        if isinstance(event, streamtwin.TranscriptFinal):
            for w in event.words:
                word = ([event.utterance, (float(w[1]) + float(w[2])) / 2], [(event.media_time, event.speaker)])
                words.append(word)
                by_utterance.setdefault(event.utterance, []).append(word)
            if event.utterance_end:
                for _, shown in by_utterance.get(event.utterance, []):
                    shown.append((event.media_time, event.speaker))
        elif isinstance(event, SpeakerTurns):
            for turn in event.turns:
                for (_, middle), shown in by_utterance.get(turn["utterance"], []):
                    if turn["start"] <= middle < turn["end"]:
                        shown.append((event.media_time, turn["speaker"]))
    assert len(words) == sum(len(f.words) for f in finals)
    return words


def word_labels(events: list[Any]) -> list[tuple[float, str]]:
    """(middle, label) of every word of every final, as a viewer holds them once the session ended."""
    return [(place[1], shown[-1][1]) for place, shown in label_timeline(events)]


def new_voice_delays(events: list[Any], turns: list[dict[str, Any]], mapping: dict[str, str]) -> dict[str, Any]:
    """Per true speaker: media seconds from their first turn to the first event that showed one of their words
    under the label they end with (None: never)."""
    label_for = {truth: label for label, truth in mapping.items()}
    firsts: dict[str, float] = {}
    for (_, middle), shown in label_timeline(events):
        speaker = true_speaker(turns, middle)
        at = next((t for t, label in shown if label and label == label_for.get(speaker) and t is not None), None)
        if at is not None:
            firsts[speaker] = min(firsts.get(speaker, at), at)
    delays: dict[str, Any] = {}
    for speaker in sorted({t["speaker"] for t in turns}):
        first = min(t["start"] for t in turns if t["speaker"] == speaker)
        delays[speaker] = round(firsts[speaker] - first, 2) if speaker in firsts else None
    return delays


async def run_one(audio: Path, turns: list[dict[str, Any]], asr_model: str, language_hint: str = "") -> dict[str, Any]:
    events: list[Any] = []
    stats: dict[str, Any] = {}
    started = time.perf_counter()
    async for event in streamtwin.stream(
        str(audio), realtime=False, llm="none", vision=False, speakers="voice", asr_model=asr_model,
        language_hint=language_hint,
    ):
        if isinstance(event, (streamtwin.TranscriptFinal, SpeakerTurns, SpeakerNamed)):
            events.append(event)
        elif isinstance(event, streamtwin.SessionEnded):
            stats = event.stats
    finals = [e for e in events if isinstance(e, streamtwin.TranscriptFinal)]
    labelled = word_labels(events)
    words = [(label, true_speaker(turns, middle)) for middle, label in labelled]
    share, mapping = attribution(words)
    label_of = {f.utterance: f.speaker for f in finals if f.utterance_end}
    provisional = [f for f in finals if not f.utterance_end and f.speaker]
    agree = sum(f.speaker == label_of.get(f.utterance) for f in provisional)
    names: dict[str, str] = {}
    for event in events:
        if isinstance(event, SpeakerNamed):
            names[event.speaker] = event.name
    delays = new_voice_delays(events, turns, mapping)
    shown = {label for _, label in labelled} - {""}  # the labels a viewer holds at the end
    return {
        "words": len(words),
        "attributed": round(share, 4),
        "labels": sorted(shown),
        "speakers": sorted({t["speaker"] for t in turns}),
        "mapping": mapping,
        "names": {label: names[label] for label in sorted(names) if names[label] and label in shown},
        "named_right": sum(mapping.get(label) == name for label, name in names.items()),
        "new_voice_s": delays,
        "turn_events": sum(isinstance(e, SpeakerTurns) for e in events),
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
    print(f"{'sample':<26} {'words':>5} {'right':>6} {'labels':>6} {'true':>4} {'new voice':>9} {'names':<20} "
          f"{'cpu%':>5} {'hold90':>6} {'wall':>5}")
    for name, audio, turns in labelled_samples(only, args.set, args.split):
        result = await run_one(audio, turns, args.asr_model, args.language_hint)
        results[name] = result
        share = 100 * result["embed_cpu_s"] / result["audio_s"] if result["audio_s"] else 0.0
        delays = [d for d in result["new_voice_s"].values()]
        worst = "never" if None in delays else f"{max(delays):.1f}"
        names = ",".join(f"{label}={n}" for label, n in result["names"].items()) or "-"
        print(f"{name:<26} {result['words']:>5} {100 * result['attributed']:>5.1f}% {len(result['labels']):>6} "
              f"{len(result['speakers']):>4} {worst:>9} {names:<20} {share:>4.2f}% "
              f"{result['hold_p90_s'] or 0:>6.3f} {result['wall_s']:>5.0f}", flush=True)
    words = sum(r["words"] for r in results.values())
    right = sum(r["words"] * r["attributed"] for r in results.values())
    audio_s = sum(r["audio_s"] for r in results.values())
    embed_s = sum(r["embed_cpu_s"] for r in results.values())
    delays = [d for r in results.values() for d in r["new_voice_s"].values()]
    encoder = encoder_cost()
    load = os.getloadavg()
    summary = {
        "bench": "speakers",
        "set": args.set,
        "split": args.split,
        "asr_model": args.asr_model,
        "language_hint": args.language_hint,
        "attributed": round(right / words, 4) if words else None,
        "attributed_mean": round(float(np.mean([r["attributed"] for r in results.values()])), 4) if results else None,
        "words": words,
        "right_label_count": sum(len(r["labels"]) == len(r["speakers"]) for r in results.values()),
        "conversations": len(results),
        "new_voice_within_3s": sum(d is not None and d <= 3.0 for d in delays),
        "new_voices": len(delays),
        "new_voice_s_median": float(np.median([d for d in delays if d is not None])) if any(
            d is not None for d in delays) else None,
        "labels_cpu_core_share": round(embed_s / audio_s, 4) if audio_s else None,
        "hold_p90_s_max": max((r["hold_p90_s"] or 0.0 for r in results.values()), default=None),
        "encoder_cpu_s_per_audio_s": encoder["cpu_s_per_audio_s"],
        "load_average": [round(x, 2) for x in load],
        "samples": results,
    }
    print(f"ALL: {100 * summary['attributed']:.1f}% of {words} words attributed right (mean per conversation "
          f"{100 * summary['attributed_mean']:.1f}%); right number of labels in {summary['right_label_count']} of "
          f"{len(results)}; new voices labelled within 3 s: {summary['new_voice_within_3s']} of {len(delays)} "
          f"(median {summary['new_voice_s_median']} s); labels cost {100 * summary['labels_cpu_core_share']:.2f}% "
          f"of a core; encoder alone {1000 * encoder['cpu_s_per_audio_s']:.1f} ms CPU per audio second; "
          f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    return summary


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--set", default="all", choices=("espeak", "voices", "recorded", "all"))
    parser.add_argument("--split", default="dev", choices=("dev", "test"), help="never tune on test")
    parser.add_argument("--only", default="", help="comma-separated sample names (shared_mic, meeting, pair_m, ...)")
    parser.add_argument("--asr-model", default="base")
    parser.add_argument(
        "--language-hint", default="", metavar="LANG",
        help="as a page's hello or `run` on an English machine gives it (en): the first speaker's words come after "
        "1 s of speech, not 3 (default: none, the language detected from 3 s)",
    )
    args = parser.parse_args()
    print(json.dumps(asyncio.run(main_async(args))))


if __name__ == "__main__":
    main()
