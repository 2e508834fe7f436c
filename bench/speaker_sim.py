"""Speaker labels without speech recognition: a quick loop for tuning the clustering on the dev split.

    python -m bench.speaker_sim [--split dev] [--threshold 0.85] [--only NAME,...]

Silero VAD and the speech stage's Endpointer cut each conversation of samples/voices/SPLIT into utterances as the
speech stage does; each utterance is embedded whole (CAM++ in numpy, as 1.6 s partials) and labelled by the speaker stage's
pure policy (streamtwin.speakers.clusters), merges included.  The score is the share of speech under the right
label (10 ms frames where one true speaker talks, labels matched one to one), not of words: no Whisper, seconds of
CPU for the whole split.  The figures that count come from ``python -m bench.speakers``, which runs the pipeline.

``--heads 1.0,1.6``: also how each utterance's head (its first seconds, as the speaker stage embeds it before a
partial is whole) would be labelled before the utterance is added: a new voice's head should get a label no voice
holds yet (``new``), a known voice's the label that voice holds at the end (``known``); ``false new`` counts known
voices' heads taken for new ones.
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path
from typing import Any

import av
import numpy as np

from bench.speakers import attribution
from streamtwin.speakers.clusters import SpeakerClusters
from streamtwin.speakers.encoder import HOP, average, partial_starts, shared_encoder
from streamtwin.speakers.turns import DEFAULT_SPLIT_THRESHOLD, PARTIAL_S, change_points, segments
from streamtwin.speech.endpoint import Endpointer, SpeechEnd, SpeechStart
from streamtwin.speech.speech_stage import VAD_WINDOW, StreamingVAD

VOICES = Path(__file__).resolve().parent.parent / "samples" / "voices"
SR = 16000


def load(path: Path) -> np.ndarray:
    with av.open(str(path)) as container:
        resampler = av.AudioResampler(format="flt", layout="mono", rate=SR)
        chunks = [f.to_ndarray().reshape(-1) for frame in container.decode(audio=0) for f in resampler.resample(frame)]
        chunks += [f.to_ndarray().reshape(-1) for f in resampler.resample(None)]
    return np.concatenate(chunks).astype(np.float32)


def utterances(wav: np.ndarray) -> list[tuple[float, float]]:
    """(start, end) media seconds of each utterance, as the speech stage's endpointer finds them."""
    vad, endpointer = StreamingVAD(), Endpointer()
    n = len(wav) // VAD_WINDOW
    probs = vad(wav[: n * VAD_WINDOW].reshape(n, VAD_WINDOW))
    found, start = [], None
    for i, prob in enumerate(probs):
        edges = endpointer.push(float(prob), i * VAD_WINDOW / SR, (i + 1) * VAD_WINDOW / SR)
        for edge in edges:
            if isinstance(edge, SpeechStart):
                start = edge.time
            elif isinstance(edge, SpeechEnd) and start is not None:
                found.append((start, edge.time))
                start = None
    for edge in endpointer.finish(len(wav) / SR):
        if start is not None:
            found.append((start, edge.time))
    return found


def score(gold: dict[str, Any], spans: list[tuple[float, float]], labels: list[str]) -> dict[str, Any]:
    frames = int(gold["duration"] * 100) + 1
    talking: list[set[str]] = [set() for _ in range(frames)]
    for line in gold["lines"]:
        for f in range(int(line["start"] * 100), min(frames, int(line["end"] * 100))):
            talking[f].add(line["speaker"])
    pairs = []
    for (a, b), label in zip(spans, labels):
        for f in range(int(a * 100), min(frames, int(b * 100))):
            if len(talking[f]) == 1:
                pairs.append((label, next(iter(talking[f]))))
    share, mapping = attribution(pairs)
    return {"share": share, "labels": len(set(labels) - {""}), "speakers": len(gold["speakers"]), "mapping": mapping}


def speaker_at(gold: dict[str, Any], a: float, b: float) -> str:
    """Who speaks most between two media times."""
    said: dict[str, float] = {}
    for line in gold["lines"]:
        said[line["speaker"]] = said.get(line["speaker"], 0.0) + max(0.0, min(b, line["end"]) - max(a, line["start"]))
    return max(said, key=lambda k: said[k])


def run(gold: dict[str, Any], wav: np.ndarray, args: argparse.Namespace) -> dict[str, Any]:
    encoder = shared_encoder()
    clusters = SpeakerClusters(threshold=args.threshold, min_new_s=args.min_new_s, margin=args.margin,
                               prior=args.prior)
    spans = utterances(wav)
    relabels, pieces = 0, []
    heads: list[tuple[float, str, str, bool, bool]] = []  # (seconds, label, true speaker, heard before, label new)
    heard: set[str] = set()
    for k, (a, b) in enumerate(spans):
        for seconds in args.heads:
            if b - a >= seconds:
                head = encoder.embed_partials(wav[int(a * SR) : int((a + seconds) * SR)], [0])[0]
                who = speaker_at(gold, a, a + seconds)
                label = clusters.match(head)
                heads.append((seconds, label, who, who in heard, clusters.speaker(label) is None))
        piece = wav[int(a * SR) : int(b * SR)]
        starts = partial_starts(len(piece))
        partials = encoder.embed_partials(piece, starts)
        times = [a + s * HOP / SR for s in starts]
        points = change_points(partials, times, args.split_threshold) if args.split_threshold > 0 else []
        parts = []
        for lo, hi in segments(a, b, points):
            inside = [p for p, t in zip(partials, times) if lo <= t + PARTIAL_S / 2 < hi] or list(partials)
            parts.append((lo, hi, average(np.stack(inside))))
        relabels += len(clusters.add(k, parts).relabels)
        pieces.extend((k, lo, hi) for lo, hi, _ in parts)
        heard.update(speaker_at(gold, lo, hi) for lo, hi, _ in parts)
    by_time = {(s.utterance, s.start): s.label for s in clusters.segments}
    spans = [(lo, hi) for _, lo, hi in pieces]
    labels = [by_time[(k, lo)] for k, lo, _ in pieces]
    scored = score(gold, spans, labels)
    label_of = {truth: label for label, truth in scored["mapping"].items()}
    tally: dict[float, list[int]] = {}  # seconds -> [new right, new voices, known right, false new, known]
    for seconds, label, who, known, new in heads:
        row = tally.setdefault(seconds, [0, 0, 0, 0, 0])
        if known:
            row[2] += label == label_of.get(who)
            row[3] += new
            row[4] += 1
        else:
            row[0] += new
            row[1] += 1
    return {**scored, "relabels": relabels, "heads": tally}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--split", default="dev", help="dev | test | recorded (samples/voices/), or a folder")
    parser.add_argument("--only", default="")
    parser.add_argument("--threshold", type=float, default=SpeakerClusters().threshold)
    parser.add_argument("--split-threshold", type=float, default=DEFAULT_SPLIT_THRESHOLD, help="0: never split")
    parser.add_argument("--margin", type=float, default=SpeakerClusters().margin)
    parser.add_argument("--prior", type=float, default=SpeakerClusters().prior)
    parser.add_argument("--min-new-s", type=float, default=SpeakerClusters().min_new_s)
    parser.add_argument("--heads", type=lambda v: [float(x) for x in v.split(",") if x], default=[])
    args = parser.parse_args()
    results = {}
    folder = VOICES / args.split if args.split in ("dev", "test", "recorded") else Path(args.split)
    for path in sorted(folder.glob("*.json")):
        if args.only and path.stem not in args.only.split(","):
            continue
        gold = json.loads(path.read_text())
        result = run(gold, load(path.parent / gold["audio"]), args)
        results[path.stem] = result
        print(f"{path.stem:<14} {100 * result['share']:5.1f}%  labels {result['labels']} of {result['speakers']}, "
              f"{result['relabels']} relabelled")
    shares = [r["share"] for r in results.values()]
    right = sum(r["labels"] == r["speakers"] for r in results.values())
    for seconds in args.heads:
        rows = np.array([r["heads"].get(seconds, [0] * 5) for r in results.values()]).sum(axis=0)
        print(f"heads of {seconds:.1f} s: new voices {rows[0]} of {rows[1]} given a new label; known voices {rows[2]} "
              f"of {rows[4]} given theirs, {rows[3]} taken for new")
    print(f"mean {100 * float(np.mean(shares)):.1f}%, right number of labels in {right} of {len(results)}; "
          f"load average {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
