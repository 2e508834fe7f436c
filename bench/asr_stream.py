"""Streaming speech benchmark: feed a sample in simulated real time and measure latency and accuracy.

    python -m bench.asr_stream [samples/meeting.wav] [--reference samples/meeting.txt]

Word commit latency is, for every committed word, the time its ``transcript.final``
was emitted minus the moment the word's end was played (media time on the
wall clock).  Partial latency is how old the audio behind each partial is when
it is shown.  The last line of output is one JSON object with every figure.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import resource
import sys
import time
from pathlib import Path

import numpy as np

from pipeline.config import Config
from pipeline.events import Event, TranscriptFinal, TranscriptPartial
from pipeline.ingest import AudioChunk, MediaReader
from pipeline.session import Session
from pipeline.speech import load_whisper
from pipeline.wer import normalise, word_error_rate


def percentile(values: list[float], q: float) -> float | None:
    return round(float(np.percentile(values, q)), 3) if values else None


async def stream(path: str, config: Config) -> tuple[list[tuple[float, Event]], Session]:
    session = Session(config, source=path, realtime=True)
    seen: list[tuple[float, Event]] = []
    origin: list[float] = []
    session.bus.subscribe(lambda e: seen.append((time.time() - origin[0] if origin else 0.0, e)))
    reader = MediaReader(path, realtime=True, video=False)
    await session.start()
    async for item in reader.items():
        if isinstance(item, AudioChunk):
            if not origin:
                origin.append(time.time() - item.time)
            await session.push_audio(item.samples)
    await session.end()
    return seen, session


def offline_wer(path: str, config: Config, reference: list[str]) -> float:
    model = load_whisper(config.asr_model, config.threads)
    segments, _ = model.transcribe(path, language=config.asr_language, temperature=0.0)
    return word_error_rate(reference, normalise(" ".join(s.text for s in segments)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("sample", nargs="?", default="samples/meeting.wav")
    parser.add_argument("--reference", help="reference transcript (default: the sample's .txt)")
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    config = Config.from_sources()
    reference_path = Path(args.reference or Path(args.sample).with_suffix(".txt"))
    reference = normalise(reference_path.read_text(), strip_speakers=True)

    load_whisper(config.asr_model, config.threads)  # model load is not part of streaming latency
    seen, session = asyncio.run(stream(args.sample, config))

    commit_latency = [
        at - word[2] for at, e in seen if isinstance(e, TranscriptFinal) for word in e.words
    ]
    partial_latency = [
        at - e.media_time for at, e in seen if isinstance(e, TranscriptPartial) and e.text and e.media_time is not None
    ]
    first_partial = [at for at, e in seen if isinstance(e, TranscriptPartial) and e.text]
    text = " ".join(e.text for _, e in seen if isinstance(e, TranscriptFinal))
    streaming_wer = word_error_rate(reference, normalise(text))
    offline = offline_wer(args.sample, config, reference)
    audio_s = session.speech.audio_seconds
    result = {
        "sample": args.sample,
        "audio_s": round(audio_s, 2),
        "threads": config.threads,
        "words_committed": len(commit_latency),
        "commit_latency_p50_s": percentile(commit_latency, 50),
        "commit_latency_p90_s": percentile(commit_latency, 90),
        "partial_latency_p50_s": percentile(partial_latency, 50),
        "partial_latency_p90_s": percentile(partial_latency, 90),
        "first_partial_s": round(first_partial[0], 3) if first_partial else None,
        "decodes": session.speech.decodes,
        "rtf": round(session.speech.decode_seconds / audio_s, 3) if audio_s else None,
        "wer_streaming": round(streaming_wer, 4),
        "wer_offline": round(offline, 4),
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
    }
    print(f"streamed {audio_s:.1f} s of {args.sample} in real time on {config.threads} threads", file=sys.stderr)
    print(f"transcript: {text}", file=sys.stderr)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
