"""The real-voice speaker set (samples/voices/): its shape, and that the generator rebuilds it bit for bit."""

from __future__ import annotations

import hashlib
import json
import shutil
import sys
from pathlib import Path

import pytest

SAMPLES = Path(__file__).resolve().parent.parent / "samples"
VOICES = SAMPLES / "voices"


def golds(split: str) -> list[dict]:
    return [json.loads(p.read_text()) for p in sorted((VOICES / split).glob("*.json"))]


def test_the_mixed_conversations_are_what_the_issue_asks_for():
    conversations = golds("dev") + golds("test")
    assert len(conversations) >= 12
    readers = {split: {s["reader"] for g in golds(split) for s in g["speakers"].values()} for split in ("dev", "test")}
    assert len(readers["dev"] | readers["test"]) >= 20
    assert not readers["dev"] & readers["test"]  # tuning on dev tells nothing of the test voices
    for gold in conversations:
        assert 2 <= len(gold["speakers"]) <= 5
        assert {line["speaker"] for line in gold["lines"]} == set(gold["speakers"])
        if len(gold["speakers"]) == 2:
            assert len({s["gender"] for s in gold["speakers"].values()}) == 1, gold["name"]
        for line in gold["lines"]:
            assert 1.0 <= line["end"] - line["start"] <= 20.0
        for before, after in zip(gold["lines"], gold["lines"][1:]):
            assert before["end"] - after["start"] <= 0.5 + 1e-6  # overlaps of 0.5 s at most
        assert (VOICES / gold["split"] / gold["audio"]).is_file()
    assert sum(b["start"] < a["end"] for g in conversations for a, b in zip(g["lines"], g["lines"][1:])) >= 12


def test_the_recorded_excerpts_have_two_or_more_speakers_and_times():
    for gold in golds("recorded"):
        assert len(gold["speakers"]) >= 2 and gold["lines"]
        assert all(0 <= line["start"] < line["end"] <= gold["duration"] + 0.01 for line in gold["lines"])


@pytest.mark.skipif(shutil.which("ffmpeg") is None, reason="needs ffmpeg")
def test_the_generator_rebuilds_a_conversation_bit_for_bit():
    sys.path.insert(0, str(SAMPLES))
    try:
        import make_voices
        from voices_set import CONVERSATIONS
    finally:
        sys.path.remove(str(SAMPLES))
    samples, lines = make_voices.mix(CONVERSATIONS["dev"]["pair_m"])
    gold = json.loads((VOICES / "dev" / "pair_m.json").read_text())
    assert hashlib.sha256(samples.tobytes()).hexdigest() == gold["sha256"]
    assert lines == gold["lines"]
