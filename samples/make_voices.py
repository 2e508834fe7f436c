#!/usr/bin/env python3
"""Build the real-voice speaker set under samples/voices/ (deterministic, bit for bit from the committed clips).

Conversations mixed from recordings of real people (voices_set.py says who and why), in a ``dev`` split to
tune on and a ``test`` split that is only scored, plus recorded (not mixed) meeting excerpts:

  voices/src/CLIP.ogg            the source clips, as imported (Opus, 16 kHz mono, 24 kbit/s)
  voices/SPLIT/NAME.ogg          a mixed conversation (Opus, 16 kHz mono, 24 kbit/s)
  voices/SPLIT/NAME.json         its gold: name, split, kind "mixed", audio, duration, speakers {label: {reader,
                                 gender, corpus}}, lines [{speaker, start, end, clip, clip_start, clip_end}]
                                 (who spoke when: the speech of each turn, its silences trimmed), sha256 (of the
                                 16-bit PCM mixed), licence
  voices/recorded/NAME.{ogg,json}  a recorded meeting excerpt and its gold from the source's RTTM (kind "recorded")

How a conversation is drawn (``random.Random(seed).random()`` only): turns of 1-3 s (35%), 3-8 s (45%) or 8-20 s
(20%), at most 45% of what the reader says, each cut from their next speech at the pause nearest that length
(else at the quietest 10 ms near it); the next voice starts 0.15-1.0 s after the last one ended, or 0.1-0.5 s
before (30%: overlaps); with more than two people the next speaker is drawn among the others, weighted by the
speech they have left; every reader's level is set to -26 dBFS of active speech, then moved by -3..+3 dB.  A conversation ends when every reader's budget is spent.

Usage:
  python3 samples/make_voices.py                       rebuild every conversation from voices/src/
  python3 samples/make_voices.py --only pair_m,five     just these
  python3 samples/make_voices.py import LIBRI AMI       (once) encode the clips voices_set.py names, from a folder
      holding resemblyzer's audio_data/librispeech_* (LIBRI) and pyannote.audio's tests/data (AMI)
"""
from __future__ import annotations

import argparse
import hashlib
import json
import random
import subprocess
import tempfile
from pathlib import Path

import numpy as np

from voices_set import CONVERSATIONS, READERS, RECORDED

HERE = Path(__file__).resolve().parent
OUT = HERE / "voices"
SR = 16000
FRAME = 160  # 10 ms
LEAD_IN = 0.5
TAIL = 1.0
LEVEL_DBFS = -26.0
PAUSE_FRAMES = 15  # a pause: 150 ms below the speech threshold
MIN_TURN_S = 1.0
LICENCE = {
    "mixed": "LibriSpeech (Panayotov et al., openslr.org/12), CC BY 4.0; clips as kept in resemble-ai/Resemblyzer "
             "audio_data (Apache-2.0 repository)",
    "recorded": "AMI Meeting Corpus (groups.inf.ed.ac.uk/ami), CC BY 4.0; excerpts and RTTM as kept in "
                "pyannote/pyannote-audio tests/data (MIT repository)",
}


# --- audio i/o -----------------------------------------------------------------------------------

def decode(path: Path) -> np.ndarray:
    """16 kHz mono int16 samples of any file ffmpeg reads."""
    pcm = subprocess.run(
        ["ffmpeg", "-nostdin", "-hide_banner", "-loglevel", "error", "-i", str(path), "-f", "s16le", "-ac", "1",
         "-ar", str(SR), "-"], check=True, capture_output=True).stdout
    return np.frombuffer(pcm, dtype="<i2").copy()


def encode(samples: np.ndarray, target: Path) -> None:
    """Opus in Ogg at 24 kbit/s, bit-exact flags (the same input gives the same bytes)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile(suffix=".raw") as raw:
        raw.write(samples.astype("<i2").tobytes())
        raw.flush()
        subprocess.run(
            ["ffmpeg", "-nostdin", "-hide_banner", "-loglevel", "error", "-y", "-f", "s16le", "-ar", str(SR), "-ac",
             "1", "-i", raw.name, "-c:a", "libopus", "-b:a", "24k", "-map_metadata", "-1", "-fflags", "+bitexact",
             "-flags", "+bitexact", "-serial_offset", "1", str(target)], check=True)


# --- speech and pauses --------------------------------------------------------------------------

def frame_db(samples: np.ndarray) -> np.ndarray:
    """The level of every 10 ms frame, dBFS."""
    n = len(samples) // FRAME
    frames = samples[: n * FRAME].astype(np.float64).reshape(n, FRAME) / 32768
    return 10 * np.log10(np.mean(frames**2, axis=1) + 1e-10)


def speech_frames(db: np.ndarray) -> np.ndarray:
    """One bool per frame: louder than 25 dB under the clip's loud frames (its 90th percentile)."""
    return db > max(np.percentile(db, 90) - 25, -55)


def cut_points(speech: np.ndarray) -> list[int]:
    """Frames in the middle of every pause of PAUSE_FRAMES or more between speech."""
    points, run = [], 0
    for i, loud in enumerate(speech):
        if not loud:
            run += 1
            continue
        if run >= PAUSE_FRAMES and i - run > 0:
            points.append(i - run // 2)
        run = 0
    return points


def trim(speech: np.ndarray, a: int, b: int) -> tuple[int, int]:
    """Frames [a, b) without the silence at either end (5 frames kept around the speech)."""
    loud = np.flatnonzero(speech[a:b])
    if not len(loud):
        return a, a
    return max(a, a + int(loud[0]) - 5), min(b, a + int(loud[-1]) + 6)


class Reader:
    """One person's speech, handed out turn by turn, cut at pauses."""

    def __init__(self, clips: list[tuple[str, np.ndarray]], budget_s: float) -> None:
        self.clips = [(name, samples, frame_db(samples)) for name, samples in clips]
        self.index, self.frame = 0, 0
        self.left_s = budget_s
        # no turn above 45% of what the reader says: everyone gets turns, however short their clip
        self.longest_s = 0.45 * min(budget_s, sum(int(speech_frames(db).sum()) for _, _, db in self.clips) / 100)
        rms = [np.sqrt(np.mean((s[: len(f) * FRAME].reshape(-1, FRAME)[f].astype(np.float64) / 32768) ** 2))
               for _, s, f in ((n, s, speech_frames(db)) for n, s, db in self.clips)]
        self.level_db = 20 * np.log10(float(np.mean(rms)))

    @property
    def done(self) -> bool:
        return self.left_s < MIN_TURN_S or self.index >= len(self.clips)

    def take(self, wanted_s: float) -> tuple[str, np.ndarray, float, float]:
        """The next turn of about ``wanted_s`` seconds: (clip, samples, clip_start_s, clip_end_s)."""
        name, samples, db = self.clips[self.index]
        speech = speech_frames(db)
        wanted = int(min(wanted_s, self.left_s, max(self.longest_s, MIN_TURN_S)) * 100)
        end_of_clip = len(speech)
        lo, hi = self.frame + max(int(0.5 * wanted), 100), min(self.frame + int(1.6 * wanted), end_of_clip - 100)
        candidates = [p for p in cut_points(speech) if lo <= p <= hi]
        if end_of_clip - self.frame <= 1.6 * wanted:
            cut = end_of_clip
        elif candidates:
            cut = min(candidates, key=lambda p: abs(p - self.frame - wanted))
        elif hi > lo:  # no pause near: the quietest 10 ms in reach (a word boundary, most often)
            cut = lo + int(np.argmin(db[lo:hi]))
        else:
            cut = end_of_clip
        a, b = trim(speech, self.frame, cut)
        self.frame = cut
        if cut >= end_of_clip:
            self.index, self.frame = self.index + 1, 0
        self.left_s -= (b - a) / 100
        return name, samples[a * FRAME : b * FRAME], a / 100, b / 100


# --- conversations --------------------------------------------------------------------------------

def turn_length(u: float) -> float:
    if u < 0.35:
        return 1 + 2 * u / 0.35
    if u < 0.8:
        return 3 + 5 * (u - 0.35) / 0.45
    return 8 + 12 * (u - 0.8) / 0.2


def gap_after(u: float) -> float:
    return -(0.1 + 0.4 * u / 0.3) if u < 0.3 else 0.15 + 0.85 * (u - 0.3) / 0.7


def load_clip(name: str) -> np.ndarray:
    return decode(OUT / "src" / f"{name}.ogg")


def mix(spec: dict) -> tuple[np.ndarray, list[dict]]:
    """The conversation's 16-bit samples and its gold lines."""
    rng = random.Random(spec["seed"])
    readers = {label: Reader([(c, load_clip(c)) for c in READERS[reader][2]], spec["budget_s"])
               for label, reader in spec["speakers"].items()}
    gains = {label: LEVEL_DBFS - r.level_db + (6 * rng.random() - 3) for label, r in readers.items()}
    pieces, lines = [], []
    at, current = LEAD_IN, None
    while True:
        left = [label for label, r in readers.items() if not r.done]
        if not left:
            break
        others = [label for label in left if label != current] or left
        weights = np.array([readers[label].left_s for label in others])
        pick = rng.random() * weights.sum()
        label = others[min(int(np.searchsorted(np.cumsum(weights), pick, side="right")), len(others) - 1)]
        clip, samples, clip_start, clip_end = readers[label].take(turn_length(rng.random()))
        gap = gap_after(rng.random())
        if len(samples) < MIN_TURN_S * SR:  # too short to be a turn of its own: left out
            continue
        start = at if not pieces else max(LEAD_IN, at + (gap if label != current else abs(gap) + 0.4))
        pieces.append((start, samples.astype(np.float64) * 10 ** (gains[label] / 20)))
        end = start + len(samples) / SR
        lines.append({"speaker": label, "start": round(start, 3), "end": round(end, 3), "clip": clip,
                      "clip_start": clip_start, "clip_end": clip_end})
        at, current = max(at, end), label
    total = np.zeros(int(round((at + TAIL) * SR)))
    for start, samples in pieces:
        i = int(round(start * SR))
        total[i : i + len(samples)] += samples
    return np.clip(np.round(total), -32768, 32767).astype(np.int16), lines


def make(split: str, name: str, spec: dict) -> dict:
    samples, lines = mix(spec)
    encode(samples, OUT / split / f"{name}.ogg")
    gold = {
        "name": name,
        "split": split,
        "kind": "mixed",
        "audio": f"{name}.ogg",
        "duration": round(len(samples) / SR, 3),
        "speakers": {label: {"reader": r, "gender": READERS[r][0], "corpus": f"librispeech {READERS[r][1]}"}
                     for label, r in spec["speakers"].items()},
        "lines": lines,
        "sha256": hashlib.sha256(samples.tobytes()).hexdigest(),
        "licence": LICENCE["mixed"],
    }
    (OUT / split / f"{name}.json").write_text(json.dumps(gold, indent=2) + "\n")
    return gold


# --- import (once) ----------------------------------------------------------------------------------

def rttm_lines(path: Path, uri: str) -> list[dict]:
    lines = []
    for row in path.read_text(encoding="utf-8").splitlines():
        fields = row.split()
        if len(fields) >= 8 and fields[0] == "SPEAKER" and fields[1] == uri:
            start, duration = float(fields[3]), float(fields[4])
            lines.append({"speaker": fields[7], "start": start, "end": round(start + duration, 3)})
    return sorted(lines, key=lambda line: line["start"])


def import_sources(libri: Path, ami: Path) -> None:
    for reader, (_, subset, clips) in READERS.items():
        for clip in clips:
            found = list(libri.rglob(f"{clip}.flac"))
            if len(found) != 1:
                raise SystemExit(f"{clip}.flac: {len(found)} found under {libri}")
            encode(decode(found[0]), OUT / "src" / f"{clip}.ogg")
    for name, (wav, rttm, uri) in RECORDED.items():
        samples = decode(ami / wav)
        encode(samples, OUT / "recorded" / f"{name}.ogg")
        gold = {"name": name, "split": "recorded", "kind": "recorded", "audio": f"{name}.ogg",
                "duration": round(len(samples) / SR, 3), "source": f"pyannote.audio tests/data/{wav}",
                "lines": rttm_lines(ami / rttm, uri), "licence": LICENCE["recorded"]}
        gold["speakers"] = {s: {} for s in sorted({line["speaker"] for line in gold["lines"]})}
        (OUT / "recorded" / f"{name}.json").write_text(json.dumps(gold, indent=2) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("command", nargs="?", default="build", choices=("build", "import"))
    parser.add_argument("folders", nargs="*", type=Path, help="import: LIBRI AMI")
    parser.add_argument("--only", help="build these conversations (comma-separated names) and no others")
    args = parser.parse_args()
    if args.command == "import":
        if len(args.folders) != 2:
            parser.error("import takes two folders: LIBRI AMI")
        import_sources(*args.folders)
        return
    wanted = set(args.only.split(",")) if args.only else None
    for split, conversations in CONVERSATIONS.items():
        for name, spec in conversations.items():
            if wanted is None or name in wanted:
                gold = make(split, name, spec)
                overlaps = sum(b["start"] < a["end"] for a, b in zip(gold["lines"], gold["lines"][1:]))
                print(f"{split}/{name}: {gold['duration']} s, {len(gold['lines'])} turns, "
                      f"{len(gold['speakers'])} speakers, {overlaps} overlaps")


if __name__ == "__main__":
    main()
