"""bench.asr_stream measures speech end -> final from where the sound stops, not from Whisper's aligned end."""

from __future__ import annotations

import json
from pathlib import Path

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
    from faster_whisper.audio import decode_audio

    root = Path(__file__).resolve().parent.parent / "samples"
    ends = SoundEnds(decode_audio(str(root / "meeting.wav"), RATE), RATE, hold_s=0.4)
    turns = json.loads((root / "meeting.json").read_text())["turns"]
    ended = [turn for turn, after in zip(turns, turns[1:]) if after["start"] - turn["end"] >= 0.4] + turns[-1:]
    assert len(ended) >= 9  # of 12 turns
    for turn in ended:
        assert ends.after(turn["end"] - 0.2) == pytest.approx(turn["end"], abs=0.015), turn


def test_commit_latency_counts_only_words_heard_right_from_their_spoken_end():
    from bench.spoken import timed_commits

    spoken = [("the", 1.0), ("design", 1.4), ("work", 1.7), ("cost", 2.0), ("more", 2.2)]
    # "design" misheard as "i'll", an extra "then", "more" never committed
    committed = [("then", 2.5), ("i'll", 2.6), ("work", 2.6), ("cost", 3.1)]
    assert timed_commits(committed, spoken) == pytest.approx([0.9, 1.1])
    assert timed_commits([], spoken) == []


@pytest.fixture
def word_times(monkeypatch):
    """samples/word_times.py (a script beside make_samples, which it imports; its worker processes import it too)."""
    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parent.parent / "samples"))
    import word_times

    return word_times


def test_word_ends_come_from_the_synthesizer_and_match_the_sample(word_times):
    """samples/word_times.py renders a turn again through libespeak-ng (checked bit for bit against the wav) and
    reads where each word ends: the words file it committed is what it makes today, the ends fall where the sound
    is, and every utterance's last word ends within 0.15 s of the turn's end in the script."""
    import tempfile

    from faster_whisper.audio import decode_audio

    root = Path(__file__).resolve().parent.parent / "samples"
    with tempfile.TemporaryDirectory() as tmp:
        words = word_times.sample_words("meeting", Path(tmp))
    assert words == json.loads((root / "meeting.words.json").read_text())["words"]
    turns = json.loads((root / "meeting.json").read_text())["turns"]
    assert len(words) == sum(len(t["text"].split()) for t in turns)  # every word of this sample is timed
    audio = decode_audio(str(root / "meeting.wav"), RATE)
    for word in words:
        turn = turns[word["turn"]]
        assert turn["start"] - 0.011 <= word["start"] < word["end"] <= turn["end"]
        inside = audio[int(word["start"] * RATE): int(word["end"] * RATE)]
        assert np.abs(inside).max() > 0.05, word  # the word is sound, not a pause
    for k, turn in enumerate(turns):
        last = [w for w in words if w["turn"] == k][-1]
        assert turn["end"] - 0.15 < last["end"], (turn, last)


def test_a_word_espeak_says_with_the_one_before_it_has_no_end(word_times):
    """espeak-ng gives "the" in "part of the body" no WORD event: "of" runs on into it, so neither is timed."""
    text = "part of the body"
    events = [(1, 1, 4, 0, b""), (1, 6, 2, 100, b""), (1, 13, 4, 300, b""), (7, 16, 0, 400, b"_:")]
    assert word_times.word_spans(text, events, 500) == [("part", 0, 100), ("body", 300, 400)]


def test_an_unknown_sample_name_is_one_clear_line_and_status_1(word_times, capsys):
    assert word_times.main(["no_such_sample"]) == 1
    assert "no sample 'no_such_sample'" in capsys.readouterr().err


def test_one_speakers_spoken_words_are_those_of_their_turns():
    """bench.rooms times each participant's words against that speaker's turns only."""
    from bench.spoken import spoken_word_ends

    script = json.loads(Path("samples/shared_mic.json").read_text())["turns"]
    everyone = spoken_word_ends("samples/shared_mic.wav")
    by_speaker = {
        name: spoken_word_ends("samples/shared_mic.wav", {i for i, t in enumerate(script) if t["speaker"] == name})
        for name in {t["speaker"] for t in script}
    }
    assert sorted(w for words in by_speaker.values() for w in words) == sorted(everyone)
    for name, words in by_speaker.items():
        turns = [t for t in script if t["speaker"] == name]
        assert words and all(any(t["start"] < end <= t["end"] + 0.15 for t in turns) for _, end in words)
