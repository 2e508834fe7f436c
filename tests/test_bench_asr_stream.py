"""bench.asr_stream measures speech end -> final from where the sound stops, not from Whisper's aligned end."""

from __future__ import annotations

import numpy as np
import pytest

from bench.asr_stream import SoundEnds

RATE = 16_000


def tone_and_quiet(*spans: tuple[float, float], noise_db: float | None = None) -> np.ndarray:
    """3 s of audio: a tone over each (start, end) span, digital silence (or noise ``noise_db`` under it) else."""
    rng = np.random.default_rng(0)
    audio = np.zeros(3 * RATE, dtype=np.float32)
    if noise_db is not None:
        audio += (0.3 * 10 ** (-noise_db / 20) * rng.standard_normal(len(audio))).astype(np.float32)
    t = np.arange(len(audio)) / RATE
    for start, end in spans:
        inside = (t >= start) & (t < end)
        audio[inside] += 0.3 * np.sin(2 * np.pi * 220 * t[inside]).astype(np.float32)
    return audio


@pytest.mark.parametrize("noise_db", [None, 55.0])
def test_an_early_aligned_end_moves_to_where_the_sound_stops(noise_db):
    ends = SoundEnds(tone_and_quiet((0.0, 1.0), (2.0, 3.0), noise_db=noise_db), RATE, hold_s=0.4)
    assert ends.after(0.8) == pytest.approx(1.0, abs=0.011)


def test_a_late_aligned_end_moves_back_to_where_the_quiet_began():
    ends = SoundEnds(tone_and_quiet((0.0, 1.0), (2.0, 3.0)), RATE, hold_s=0.4)
    assert ends.after(1.15) == pytest.approx(1.0, abs=0.011)


def test_a_gap_shorter_than_the_wait_is_not_the_end():
    ends = SoundEnds(tone_and_quiet((0.0, 1.0), (1.1, 1.8)), RATE, hold_s=0.4)
    assert ends.after(0.9) == pytest.approx(1.8, abs=0.011)


def test_no_quiet_in_reach_keeps_the_aligned_end():
    ends = SoundEnds(tone_and_quiet((0.0, 3.0)), RATE, hold_s=0.4)
    assert ends.after(0.9) == 0.9


def test_an_aligned_end_in_a_short_gap_goes_on_to_the_real_end():
    ends = SoundEnds(tone_and_quiet((0.0, 1.0), (1.05, 1.6)), RATE, hold_s=0.4)
    assert ends.after(1.02) == pytest.approx(1.6, abs=0.011)


def test_the_sound_ends_where_the_meeting_script_says_each_turn_ends():
    """samples/meeting.json has each turn's end as rendered; an aligned end 0.2 s early finds it where a pause as
    long as the VAD's wait follows (after a shorter one, 25.041 -> 25.391 s, the utterance goes on)."""
    import json
    from pathlib import Path

    from faster_whisper.audio import decode_audio

    root = Path(__file__).resolve().parent.parent / "samples"
    ends = SoundEnds(decode_audio(str(root / "meeting.wav"), RATE), RATE, hold_s=0.4)
    turns = json.loads((root / "meeting.json").read_text())["turns"]
    ended = [turn for turn, after in zip(turns, turns[1:]) if after["start"] - turn["end"] >= 0.4] + turns[-1:]
    assert len(ended) >= 9  # of 12 turns
    for turn in ended:
        assert ends.after(turn["end"] - 0.2) == pytest.approx(turn["end"], abs=0.015), turn
