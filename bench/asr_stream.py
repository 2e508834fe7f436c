"""Streaming speech benchmark: every sample, every model, in simulated real time: latency and accuracy.

    python -m bench.asr_stream                          # every samples/*.wav with a .txt, models base and tiny.en
    python -m bench.asr_stream samples/meeting.wav --models base
    python -m bench.asr_stream --models base --fast     # as fast as possible (no latency figures)
    python -m bench.asr_stream --models base --virtual  # real time on a virtual clock: same figures however busy

Per sample and model:

- word commit latency: for every committed word, the time its ``transcript.final``
  was emitted minus the moment the word's end was played (p50/p90).  Since 2026-12-05 the end is
  where the synthesizer ended the word (``samples/NAME.words.json``, made by ``samples/word_times.py``
  from espeak-ng's own word and phoneme events), for the words the transcript has right; before,
  it was the end Whisper aligned the committed word to (still printed: ``commit_from_aligned``),
  so the aligner's error counted as latency;
- speech end -> final: for every utterance, its closing final minus the moment its sound
  ended *and* the VAD's end-of-speech wait (``--vad-min-silence-ms``): what the engine adds
  once the endpointer has decided (p50/p90).  The sound ends where the audio after the last
  word falls 40 dB under the sample's speech level for that wait (:class:`SoundEnds`):
  Whisper aligns a last word's end 0.1-0.26 s before its sound stops on the samples here,
  so ``word_end_to_final`` (the same from the aligned end, as this bench measured until
  2026-12-05) counts that gap as latency;
- partial latency: how old the audio behind each partial is when it is shown;
- streaming WER next to the same model's offline WER (faster-whisper, 30 s windows, beam 5),
  and the revised WER: the transcript once each ``transcript.revised`` replaced its utterance's
  finals, with how long after the utterance's end (and the end-of-speech wait) the revision came;
- CPU seconds per audio second (the whole process: VAD, features, decodes).

English-only models skip samples in other languages (the sample's .json names its language).
The last line of output is one JSON object: ``runs`` (one per sample and model) and ``summary`` per model.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import resource
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
from faster_whisper.audio import decode_audio

from streamtwin.config import Config
from streamtwin.speech.engine import load_engine
from streamtwin.events import Event, TranscriptFinal, TranscriptPartial, TranscriptRevised
from streamtwin.media.ingest import AudioChunk, MediaReader
from streamtwin.speech.revision import revised_transcript
from streamtwin.session import Session
from streamtwin.speech.wer import normalise, word_error_rate

from .spoken import spoken_word_ends, timed_commits, word_key
from .virtual_clock import stream_virtual


class SoundEnds:
    """Where a word's sound really stops: the first 10 ms frame, at or after its aligned end, that starts
    ``hold_s`` of quiet (``QUIET_DB`` under the sample's loud speech, its 90th-percentile frame).

    An aligned end already inside the quiet moves back to where the quiet began; none found within
    ``MAX_SHIFT_S`` leaves the aligned end as it is.
    """

    FRAME_S = 0.01
    QUIET_DB = 40.0
    MAX_SHIFT_S = 1.0

    def __init__(self, samples: np.ndarray, rate: int, hold_s: float):
        size = int(rate * self.FRAME_S)
        frames = samples[: len(samples) // size * size].reshape(-1, size).astype(np.float64)
        level = 10 * np.log10(np.mean(frames**2, axis=1) + 1e-18)
        self._quiet = level < np.percentile(level, 90) - self.QUIET_DB if len(level) else level.astype(bool)
        self._hold = max(1, round(hold_s / self.FRAME_S))

    def after(self, aligned_end: float) -> float:
        quiet, shift = self._quiet, round(self.MAX_SHIFT_S / self.FRAME_S)
        first = start = min(int(aligned_end / self.FRAME_S), len(quiet))
        while 0 < start and first - start < shift and quiet[start - 1] and quiet[first:first + 1].all():
            start -= 1  # the aligned end lies in the quiet: look from where it began
        for frame in range(start, min(first + shift, len(quiet))):
            if quiet[frame : frame + self._hold].all():
                return frame * self.FRAME_S
        return aligned_end


def percentile(values: list[float], q: float) -> float | None:
    return round(float(np.percentile(values, q)), 3) if values else None


def default_samples() -> list[str]:
    return sorted(str(p) for p in Path("samples").glob("*.wav") if p.with_suffix(".txt").is_file())


def sample_language(path: str) -> str:
    meta = Path(path).with_suffix(".json")
    if meta.is_file():
        return json.loads(meta.read_text()).get("language", "en")
    return "en"


async def stream(path: str, config: Config, realtime: bool) -> tuple[list[tuple[float, Event]], Session]:
    session = Session(config, source=path, realtime=realtime)
    seen: list[tuple[float, Event]] = []
    origin: list[float] = []
    session.bus.subscribe(lambda e: seen.append((time.time() - origin[0] if origin else 0.0, e)))
    reader = MediaReader(path, realtime=realtime, video=False)
    await session.start()
    async for item in reader.items():
        if isinstance(item, AudioChunk):
            if not origin:
                origin.append(time.time() - item.time)
            await session.push_audio(item.samples)
    await session.end()
    return seen, session


def measure(path: str, config: Config, clock: str, workers: int = 2) -> dict[str, Any]:
    reference = normalise(Path(path).with_suffix(".txt").read_text(), strip_speakers=True)
    engine = load_engine(config)  # model load is not part of streaming latency
    realtime = clock != "fast"
    cpu_before = resource.getrusage(resource.RUSAGE_SELF)
    if clock == "virtual":
        seen, speech = asyncio.run(stream_virtual(decode_audio(path, 16_000), config, engine, workers))
    else:
        seen, session = asyncio.run(stream(path, config, realtime))
        speech = session.speech
    cpu_after = resource.getrusage(resource.RUSAGE_SELF)
    cpu = (cpu_after.ru_utime - cpu_before.ru_utime) + (cpu_after.ru_stime - cpu_before.ru_stime)

    finals = [(at, e) for at, e in seen if isinstance(e, TranscriptFinal)]
    aligned = [at - word[2] for at, e in finals for word in e.words]
    spoken = spoken_word_ends(path)
    commit = aligned if spoken is None else timed_commits(
        [(word_key(word[0]), at) for at, e in finals for word in e.words], spoken)
    end_wait = config.vad_min_silence_ms / 1000
    sound = SoundEnds(decode_audio(path, 16_000), 16_000, end_wait)
    speech_end: list[float] = []
    word_end: list[float] = []
    last_word_end: float | None = None
    for at, e in finals:
        if e.words:
            last_word_end = e.words[-1][2]
        if e.utterance_end and last_word_end is not None:
            speech_end.append(at - (sound.after(last_word_end) + end_wait))
            word_end.append(at - (last_word_end + end_wait))
            last_word_end = None
    partial = [
        at - e.media_time for at, e in seen if isinstance(e, TranscriptPartial) and e.text and e.media_time is not None
    ]
    text = " ".join(e.text for _, e in finals if e.text)
    revisions = [(at, e) for at, e in seen if isinstance(e, TranscriptRevised)]
    revised = revised_transcript(e for _, e in seen)
    closed_at = {e.utterance: e.words[-1][2] for _, e in finals if e.words}
    revision_delay = [
        at - (sound.after(closed_at[e.utterance]) + end_wait) for at, e in revisions if e.utterance in closed_at
    ]
    language = config.asr_language if config.asr_language != "auto" else sample_language(path)
    offline = engine.model.transcribe_offline(path, language=language)
    audio_s = speech.audio_seconds
    result = {
        "sample": path,
        "model": config.asr_model,
        "language": next((e.language for _, e in finals if e.language), ""),
        "audio_s": round(audio_s, 2),
        "words_committed": len(aligned),
        "words_timed": len(commit) if spoken is not None else None,  # committed right, with the synthesizer's end
        "commit_latency_p50_s": percentile(commit, 50) if realtime else None,
        "commit_latency_p90_s": percentile(commit, 90) if realtime else None,
        "commit_from_aligned_p50_s": percentile(aligned, 50) if realtime else None,
        "commit_from_aligned_p90_s": percentile(aligned, 90) if realtime else None,
        "speech_end_to_final_p50_s": percentile(speech_end, 50) if realtime else None,
        "speech_end_to_final_p90_s": percentile(speech_end, 90) if realtime else None,
        "word_end_to_final_p50_s": percentile(word_end, 50) if realtime else None,
        "word_end_to_final_p90_s": percentile(word_end, 90) if realtime else None,
        "partial_latency_p50_s": percentile(partial, 50) if realtime else None,
        "partial_latency_p90_s": percentile(partial, 90) if realtime else None,
        "wer_streaming": round(word_error_rate(reference, normalise(text)), 4),
        "wer_offline": round(word_error_rate(reference, normalise(offline)), 4),
        "wer_revised": round(word_error_rate(reference, normalise(revised)), 4),
        "revisions": len(revisions),
        "revision_delay_p50_s": percentile(revision_delay, 50) if realtime else None,
        "revision_delay_p90_s": percentile(revision_delay, 90) if realtime else None,
        "cpu_s_per_audio_s": round(cpu / audio_s, 3) if audio_s else None,
        "decodes": speech.decodes,
        "decode_s_per_audio_s": round(speech.decode_seconds / audio_s, 3) if audio_s else None,
    }
    print(f"  streamed: {text}", file=sys.stderr)
    print(f"  revised:  {revised}", file=sys.stderr)
    print(f"  offline:  {offline}", file=sys.stderr)
    return result


def summarise(runs: list[dict[str, Any]]) -> dict[str, Any]:
    by_model: dict[str, Any] = {}
    for model in sorted({r["model"] for r in runs}):
        mine = [r for r in runs if r["model"] == model]
        english = [r for r in mine if sample_language(r["sample"]) == "en"]
        by_model[model] = {
            "samples": len(mine),
            "worst_english_wer_gap_points": round(
                max((r["wer_streaming"] - r["wer_offline"]) * 100 for r in english), 2
            ) if english else None,
            "mean_wer_streaming": round(sum(r["wer_streaming"] for r in mine) / len(mine), 4),
            "mean_wer_offline": round(sum(r["wer_offline"] for r in mine) / len(mine), 4),
            "worst_english_revised_wer_gap_points": round(
                max((r["wer_revised"] - r["wer_offline"]) * 100 for r in english), 2
            ) if english else None,
            "mean_wer_revised": round(sum(r["wer_revised"] for r in mine) / len(mine), 4),
        }
    return by_model


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("samples", nargs="*", help="wav files with a .txt reference beside them (default: all)")
    parser.add_argument("--models", default="base,tiny.en", help="comma-separated speech models (default: base,tiny.en)")
    parser.add_argument("--fast", action="store_true", help="as fast as possible instead of in real time")
    parser.add_argument(
        "--virtual", action="store_true",
        help="real time on a virtual clock: each decode takes the time it takes on an idle 2-core machine of this "
             "kind (fitted by bench.decode_cost), so another process on the machine changes nothing (the tuning loop; "
             "check the figures with a real-time run on an idle machine)",
    )
    parser.add_argument(
        "--virtual-workers", type=int, default=2,
        help="decodes the virtual engine runs at once (default 2: a worker per core, as the real engine)",
    )
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    base = replace(Config.from_sources(), llm="none")
    runs = []
    clock = "virtual" if args.virtual else "fast" if args.fast else "real"
    for model in args.models.split(","):
        config = replace(base, asr_model=model.strip())
        multilingual = load_engine(config).model.multilingual
        for sample in args.samples or default_samples():
            if not multilingual and sample_language(sample) != "en":
                continue
            print(f"{model}: {sample}", file=sys.stderr, flush=True)
            result = measure(sample, config, clock, args.virtual_workers)
            runs.append(result)
            print(json.dumps(result), file=sys.stderr, flush=True)
    header = ("model", "sample", "commit p50", "p90", "from aligned end p90", "end->final p50", "p90",
              "from word end p90", "partial p50", "WER stream", "revised", "offline", "revision p50", "cpu/s")
    print(" | ".join(header))
    for r in runs:
        print(" | ".join(str(v) for v in (
            r["model"], Path(r["sample"]).name, r["commit_latency_p50_s"], r["commit_latency_p90_s"],
            r["commit_from_aligned_p90_s"],
            r["speech_end_to_final_p50_s"], r["speech_end_to_final_p90_s"], r["word_end_to_final_p90_s"],
            r["partial_latency_p50_s"],
            f"{r['wer_streaming']:.1%}", f"{r['wer_revised']:.1%}", f"{r['wer_offline']:.1%}",
            r["revision_delay_p50_s"], r["cpu_s_per_audio_s"],
        )))
    print(json.dumps({
        "bench": "asr_stream", "clock": clock, "load_average": os.getloadavg()[0],
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "runs": runs, "summary": summarise(runs),
    }))


if __name__ == "__main__":
    main()
