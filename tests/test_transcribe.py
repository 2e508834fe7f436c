"""The real speech model on the committed samples, through the same streaming path as live input."""

from __future__ import annotations

import json
import subprocess
import sys
import wave
from pathlib import Path

import pytest

from streamtwin.config import Config
from streamtwin.events import TranscriptFinal, TranscriptPartial
from streamtwin.media.ingest import MediaReader
from streamtwin.session import Session, run_reader
from streamtwin.speech.wer import normalise, word_error_rate
from tests.cli import run_main

pytestmark = [pytest.mark.model, pytest.mark.slow]

SAMPLES = Path(__file__).resolve().parent.parent / "samples"
MP4_S = json.loads((SAMPLES / "meeting_mp4.json").read_text())["duration"]  # meeting.mp4: the meeting's start


def reference(name: str) -> list[str]:
    return normalise((SAMPLES / name).read_text(), strip_speakers=True)


async def transcribe(path: Path, realtime: bool = False, language: str = "auto") -> list:
    session = Session(Config(asr_language=language), source=str(path), realtime=realtime)
    events: list = []
    session.bus.subscribe(events.append)
    assert await run_reader(session, MediaReader(str(path), realtime=realtime, video=False))
    return events


# meeting.wav and the other samples, streamed through base, are checked the same way by
# tests/test_stream_alignment.py, in the run it makes of each anyway.
@pytest.mark.parametrize("media, ref", [("meeting.mp4", "meeting_mp4.txt")])
async def test_sample_transcript_matches_reference(media, ref):
    events = await transcribe(SAMPLES / media)
    finals = [e for e in events if isinstance(e, TranscriptFinal)]
    text = " ".join(e.text for e in finals)
    wer = word_error_rate(reference(ref), normalise(text))
    assert wer <= 0.15, f"WER {wer:.1%}: {text}"
    # finals are ordered, non-overlapping, and carry word timings inside their span
    for before, after in zip(finals, finals[1:]):
        assert after.start >= before.end - 0.05
    for final in finals:
        assert all(final.start - 0.01 <= s <= e <= final.end + 0.01 for _, s, e in final.words)
    assert events[-1].type == "session.ended" and events[-1].stats["audio_s"] > 15


async def test_realtime_shows_partials_before_finals():
    # With --language auto nothing is decoded until 3 s of speech fix the language; a known language
    # shows the first partial within a second.
    events = await transcribe(SAMPLES / "meeting.mp4", realtime=True, language="en")
    kinds = [type(e) for e in events if isinstance(e, (TranscriptFinal, TranscriptPartial))]
    assert TranscriptPartial in kinds and TranscriptFinal in kinds
    assert kinds.index(TranscriptPartial) < kinds.index(TranscriptFinal)


def test_cli_jsonl_prints_only_events(capfd):
    result = run_main(capfd, "run", str(SAMPLES / "meeting.mp4"), "--format", "jsonl", "--llm", "none")
    assert result.returncode == 0, result.stderr
    events = [json.loads(line) for line in result.stdout.splitlines()]
    assert events[0]["type"] == "session.started" and events[-1]["type"] == "session.ended"
    finals = " ".join(e["text"] for e in events if e["type"] == "transcript.final")
    assert word_error_rate(reference("meeting_mp4.txt"), normalise(finals)) <= 0.15


def test_cli_reads_a_stream_on_stdin(tmp_path):
    """A process of its own: its standard input is the stream.  The mp4's stretch of the meeting (its first
    turns, which meeting_mp4.txt holds) as a WAV stream: a third of the audio, the same claim."""
    with wave.open(str(SAMPLES / "meeting.wav")) as source, wave.open(str(tmp_path / "turns.wav"), "wb") as clip:
        clip.setparams(source.getparams())
        clip.writeframes(source.readframes(round(MP4_S * source.getframerate())))
    with open(tmp_path / "turns.wav", "rb") as stdin:
        result = subprocess.run(
            [sys.executable, "-m", "streamtwin", "run", "-", "--fast", "--format", "jsonl", "--llm", "none"],
            stdin=stdin, capture_output=True, text=True, timeout=600,
        )
    assert result.returncode == 0, result.stderr
    events = [json.loads(line) for line in result.stdout.splitlines()]
    assert events[0]["source"] == "-"
    finals = " ".join(e["text"] for e in events if e["type"] == "transcript.final")
    assert word_error_rate(reference("meeting_mp4.txt"), normalise(finals)) <= 0.15
