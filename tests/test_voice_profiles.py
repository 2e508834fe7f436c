"""Named voice profiles (--voices DIR) on real voices: a known voice is named from its first utterance; a bad
profile folder is one clear line and exit status 1."""

from __future__ import annotations

import asyncio
import json
import shutil
import subprocess
import sys
import wave
from pathlib import Path

import numpy as np
import pytest

from streamtwin.config import Config
from streamtwin.events import SpeakerNamed, TranscriptFinal
from streamtwin.speakers.profiles import ProfileError, VoiceProfile, _decode, load_profiles
from streamtwin.speakers.speaker_stage import SpeakerStage

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "samples" / "voices" / "src"  # LibriSpeech readers (CC BY 4.0): 1688 and 1998 are two women


def write_wav(path: Path, samples: np.ndarray) -> None:
    with wave.open(str(path), "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(16000)
        out.writeframes((np.clip(samples, -1, 1) * 32767).astype("<i2").tobytes())


def test_a_known_voice_is_named_from_its_first_utterance(tmp_path):
    shutil.copy(SRC / "1688-142285-0006.ogg", tmp_path / "Ann.ogg")
    emitted: list = []

    async def run() -> None:
        async def run_cpu(fn, *args):
            return await asyncio.to_thread(fn, *args)

        stage = SpeakerStage(Config(voices=str(tmp_path)), emitted.append, run_cpu)
        at = 0.0
        for k, clip in enumerate(["1998-15444-0001", "1688-142285-0003"]):  # another woman, then Ann again
            audio = _decode(SRC / f"{clip}.ogg")
            stage.push(audio)
            end = at + len(audio) / 16000
            stage.relay(TranscriptFinal(text="Words.", start=at, end=end - 0.1, words=[["Words.", at, end - 0.1]],
                                        utterance=k + 1, utterance_end=True))
            await stage.drain()
            at = end

    asyncio.run(run())
    finals = [e for e in emitted if isinstance(e, TranscriptFinal)]
    assert [(f.speaker, f.speaker_name) for f in finals] == [("S2", ""), ("S1", "Ann")]
    named = [e for e in emitted if isinstance(e, SpeakerNamed)]
    assert [(e.speaker, e.name, e.how, e.utterance) for e in named] == [("S1", "Ann", "profile", 2)]


def test_a_saved_profile_reads_back(tmp_path):
    vector = np.random.default_rng(1).normal(size=192)
    (tmp_path / "Raj.json").write_text(VoiceProfile("Raj", vector / np.linalg.norm(vector), 12.5).to_json())
    (profile,) = load_profiles(tmp_path)
    assert profile.name == "Raj" and profile.seconds == 12.5
    assert np.allclose(profile.embedding, vector / np.linalg.norm(vector), atol=1e-5)


@pytest.mark.parametrize("case, message", [
    ("silence", "Bob.wav has no speech in it"),
    ("short", "Bob.wav holds"),
    ("twice", "two profiles named bob: Bob.wav and bob.ogg"),
    ("not_audio", "Bob.wav is not audio"),
    ("bad_json", "Bob.json is not a voice profile"),
    ("old_encoder", "Bob.json holds 256 numbers, made by another speaker encoder"),
    ("empty", "no profiles in it"),
])
def test_a_profile_that_cannot_be_used_says_which_and_why(tmp_path, case, message):
    speech = _decode(SRC / "1688-142285-0006.ogg")
    if case == "silence":
        write_wav(tmp_path / "Bob.wav", np.zeros(48000))
    elif case == "short":
        write_wav(tmp_path / "Bob.wav", speech[: int(1.2 * 16000)])
    elif case == "twice":
        write_wav(tmp_path / "Bob.wav", speech)
        shutil.copy(SRC / "1998-15444-0001.ogg", tmp_path / "bob.ogg")
    elif case == "not_audio":
        (tmp_path / "Bob.wav").write_text("not a sound")
    elif case == "bad_json":
        (tmp_path / "Bob.json").write_text(json.dumps({"name": "Bob", "embedding": [0.0] * 192, "seconds": 9}))
    elif case == "old_encoder":  # saved before the encoder was CAM++ (resemblyzer gave 256 numbers)
        (tmp_path / "Bob.json").write_text(json.dumps({"name": "Bob", "embedding": [0.1] * 256, "seconds": 9}))
    with pytest.raises(ProfileError, match=message):
        load_profiles(tmp_path)


def test_run_with_a_bad_profile_folder_is_one_line_and_exit_1(tmp_path):
    write_wav(tmp_path / "Bob.wav", np.zeros(48000))
    done = subprocess.run(
        [sys.executable, "-m", "streamtwin", "run", str(ROOT / "samples" / "meeting.wav"), "--voices", str(tmp_path)],
        capture_output=True, text=True, timeout=120,
    )
    assert done.returncode == 1
    assert done.stderr.strip().splitlines() == ["streamtwin: error: --voices: Bob.wav has no speech in it"]


@pytest.mark.model
def test_voices_save_writes_the_named_voices_of_a_recording(tmp_path):
    """samples/shared_mic.wav: three espeak voices that introduce themselves (David, Priya, Tom)."""
    done = subprocess.run(
        [sys.executable, "-m", "streamtwin", "voices", "save", str(ROOT / "samples" / "shared_mic.wav"), str(tmp_path),
         "--asr-model", "tiny.en", "--language", "en"],
        capture_output=True, text=True, timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["David.json", "Priya.json", "Tom.json"]
    assert [p.name for p in load_profiles(tmp_path)] == ["David", "Priya", "Tom"]
