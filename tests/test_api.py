"""The Python API: `streamtwin.stream` and `streamtwin.PushSession` on real audio and the real speech model,
and the examples in examples/ run as a user would run them."""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import threading
import sys
import wave
from contextlib import aclosing
from pathlib import Path

import numpy as np
import pytest

import streamtwin
from streamtwin.media.ingest import IngestError
from streamtwin.speech.wer import normalise, word_error_rate

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "samples"
FAST = {"llm": "none", "asr_model": "tiny.en", "asr_language": "en"}


def reference(name: str) -> list[str]:
    return normalise((SAMPLES / name).read_text(), strip_speakers=True)


def read_wav(path: Path) -> np.ndarray:
    with wave.open(str(path)) as wav:
        return np.frombuffer(wav.readframes(wav.getnframes()), dtype=np.int16).astype(np.float32) / 32768


@pytest.mark.model
@pytest.mark.slow
def test_stream_yields_typed_events_from_start_to_end(meeting_events):
    # meeting_events (conftest.py) is `streamtwin.stream(samples/meeting.wav, ...)` collected.
    assert all(isinstance(event, streamtwin.Event) for event in meeting_events)
    assert isinstance(meeting_events[0], streamtwin.SessionStarted)
    assert isinstance(meeting_events[-1], streamtwin.SessionEnded)
    assert [e.seq for e in meeting_events] == list(range(1, len(meeting_events) + 1))
    assert {e.session for e in meeting_events} == {meeting_events[0].session}
    finals = [e for e in meeting_events if isinstance(e, streamtwin.TranscriptFinal)]
    heard = normalise(" ".join(f.text for f in finals))
    assert word_error_rate(reference("meeting.txt"), heard) <= 0.15, heard
    assert any(isinstance(e, streamtwin.TwinPatch) for e in meeting_events)  # the rules kept a twin


async def test_stream_raises_for_a_source_it_cannot_open(tmp_path):
    with pytest.raises(IngestError) as raised:
        async for _ in streamtwin.stream(tmp_path / "missing.wav", **FAST):
            pytest.fail("no event comes from a missing file")
    assert raised.value.code == "not_found"


async def test_a_misspelt_option_is_an_error():
    with pytest.raises(TypeError, match="asr_modle"):
        async for _ in streamtwin.stream(SAMPLES / "meeting.wav", asr_modle="tiny.en"):
            pass


@pytest.mark.model
async def test_closing_the_stream_early_stops_the_source():
    finals = 0
    async with aclosing(streamtwin.stream(SAMPLES / "meeting.wav", realtime=False, **FAST)) as events:
        async for event in events:
            if isinstance(event, streamtwin.TranscriptFinal) and event.text:
                finals += 1
                break
    assert finals == 1
    # The reader thread was told to stop and the session ended: nothing keeps reading the file.
    for _ in range(100):
        if not any(thread.name == "ingest" for thread in threading.enumerate()):
            break
        await asyncio.sleep(0.05)
    assert not any(thread.name == "ingest" for thread in threading.enumerate())


@pytest.mark.model
@pytest.mark.slow
async def test_push_session_takes_numpy_audio_and_frames():
    audio = read_wav(SAMPLES / "standup.wav")
    step = 8000  # 0.5 s
    events: list[streamtwin.Event] = []

    async def read(session: streamtwin.PushSession) -> None:
        async for event in session.events():
            events.append(event)

    async with streamtwin.PushSession(**FAST) as session:
        reader = asyncio.create_task(read(session))
        for offset in range(0, len(audio), step):
            seconds = offset / 16_000
            frame = np.zeros((120, 160, 3), dtype=np.uint8)
            frame[..., 0 if seconds < 10 else 2] = 200  # red, then blue from 10 s
            session.push_video(frame, seconds)
            await session.push_audio(audio[offset : offset + step])
        with pytest.raises(ValueError, match="1-D float"):
            await session.push_audio((audio[:step] * 32767).astype(np.int16))
        with pytest.raises(ValueError, match="1-D float"):
            await session.push_audio(np.stack([audio[:step], audio[:step]]))
    stats = await session.end()  # ending again is harmless and says the same
    await reader

    assert isinstance(events[0], streamtwin.SessionStarted) and isinstance(events[-1], streamtwin.SessionEnded)
    assert stats == events[-1].stats and stats["audio_s"] == pytest.approx(len(audio) / 16_000, abs=0.05)
    heard = normalise(" ".join(e.text for e in events if isinstance(e, streamtwin.TranscriptFinal)))
    assert word_error_rate(reference("standup.txt"), heard) <= 0.35, heard
    cuts = [e.media_time for e in events if isinstance(e, streamtwin.VisionObservation) and e.kind == "scene_change"]
    assert cuts and all(abs(cut - 10.0) <= 0.5 for cut in cuts), cuts


def test_push_session_must_start_before_media():
    session = streamtwin.PushSession(**FAST)
    with pytest.raises(RuntimeError, match="has not started"):
        session.push_video(np.zeros((8, 8, 3), dtype=np.uint8), 0.0)


def run_example(name: str, sample: str) -> str:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "STREAMTWIN_ASR_MODEL": "tiny.en", "STREAMTWIN_ASR_LANGUAGE": "en"}
    result = subprocess.run(
        [sys.executable, str(ROOT / "examples" / name), str(SAMPLES / sample)],
        capture_output=True, text=True, timeout=600, cwd=ROOT, env=env,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


@pytest.mark.model
@pytest.mark.slow
def test_example_transcribe_file_prints_a_paragraph_per_utterance():
    lines = run_example("transcribe_file.py", "meeting.wav").splitlines()
    paragraphs = [line for line in lines if re.match(r"^\[\d\d:\d\d\] \S", line)]
    assert len(paragraphs) >= 5 and lines[-1].startswith("(61.")
    heard = normalise(" ".join(line[8:] for line in paragraphs))
    assert word_error_rate(reference("meeting.txt"), heard) <= 0.15, heard


@pytest.mark.model
@pytest.mark.slow
def test_example_push_media_hears_the_audio_and_sees_the_cut():
    lines = run_example("push_media.py", "standup.wav").splitlines()
    said = [line.split("s  ", 1)[1] for line in lines if "[seen:" not in line]
    assert word_error_rate(reference("standup.txt"), normalise(" ".join(said))) <= 0.35
    assert any(re.match(r"^\s*10\.\d s  \[seen: scene_change\]$", line) for line in lines), lines


@pytest.mark.model
@pytest.mark.parametrize("hint, before_s", [("en-US", 2.5), ("", 99.0)])
async def test_a_language_hint_lets_the_first_words_come_after_one_second(hint, before_s):
    """A file's first speaker waited for 3 s of speech before language detection let any word be shown; with
    the hint a browser's hello (or `run`'s locale) gives, a real reader's first words come after about 1 s."""
    reader = SAMPLES / "voices" / "dev" / "pair_m.ogg"  # a LibriSpeech reader from 0.5 s
    options = {**FAST, "asr_model": "base", "asr_language": "auto", "speakers": "off", "language_hint": hint}
    async with aclosing(streamtwin.stream(reader, realtime=False, **options)) as events:
        async for event in events:
            if isinstance(event, streamtwin.TranscriptPartial) and event.text.strip():
                first = event.media_time
                break
    assert first < before_s and (hint or first >= 3.0)
