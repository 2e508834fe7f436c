"""One evaluation conversation end to end (speech, SmolLM2, scoring) and heard perfectly (the gold
lines replayed, with names and without, the rule-based twin): the harness produces a complete score
in every mode.  No threshold: SmolLM2 is the fast, weak CI model, and the rules are what they are."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent


def run_standup(mode: str, *options: str) -> dict[str, Any]:
    """``bench.understanding`` on the dev standup in one mode: its table's first rows, then that mode's figures."""
    process = subprocess.run(
        [sys.executable, "-m", "bench.understanding", "--mode", mode, "--only", "standup", *options],
        cwd=ROOT, capture_output=True, text=True, timeout=900,
    )
    assert process.returncode == 0, process.stderr
    lines = process.stdout.strip().splitlines()
    assert lines[0].startswith(f"== {mode}:") and lines[1].split()[:2] == ["conversation", "AI-P"], lines[:2]
    assert lines[2].startswith("standup")
    result = json.loads(lines[-1])
    assert result["bench"] == "understanding" and result["split"] == "dev" and result["conversations"] == 1
    assert list(result["modes"]) == [mode]
    figures = result["modes"][mode]
    assert figures["questions"] == 2  # both questions to the assistant were looked for
    for key in ("action_item_f1", "action_item_recall", "qa_accuracy", "qa_fact_recall", "open_questions_recall"):
        assert isinstance(figures[key], float) and 0.0 <= figures[key] <= 1.0, key
    assert isinstance(figures["invented_owners"], int)
    assert set(figures["by_kind"]) == {"stand-up"} and figures["said_as_recall"]["i_will"]["items"] == 3
    return result


@pytest.mark.model
@pytest.mark.slow
@pytest.mark.xdist_group("llama")  # with the other llama.cpp tests (tests/test_llm_local.py)
def test_one_conversation_through_the_real_pipeline_gets_a_complete_score():
    result = run_standup("e2e", "--llm", "local", "--llm-model", "smollm2", "--asr-model", "tiny.en")
    assert result["llm"] == "local" and result["llm_model"] == "smollm2"
    assert result["modes"]["e2e"]["speech"] == "run"
    figures = result["modes"]["e2e"]
    assert figures["voices"] == 3 and 0 <= figures["voices_named_right"] + figures["voices_named_wrong"] <= 4


def test_a_voice_is_named_right_when_its_name_is_the_speaker_its_label_holds_most_words_of():
    from bench.understanding_report import voices_named

    words = [["S1", "Anna"]] * 5 + [["S2", "Tom"]] * 4 + [["S2", "Mike"]] + [["S3", "Mike"]] * 3
    detail = {"speaker_words": words, "voice_names": {"S1": "Anna", "S2": "Mike", "S3": "Mike"}}
    assert voices_named(detail) == (2, 1, 3)  # S2 holds Tom's words: Mike is wrong there
    assert voices_named({"speaker_words": [], "voice_names": {}}) == (0, 0, 0)


def test_the_gold_lines_replayed_with_and_without_names_get_a_complete_score():
    for mode in ("gold", "gold-anonymous"):
        result = run_standup(mode, "--llm", "none", "--replay-speed", "50")
        assert result["modes"][mode]["speaker_attribution"] is None  # nothing was heard, so no labels to score


def test_gold_lines_are_sent_as_a_room_sends_them_or_without_names():
    from bench.understanding import gold_transcript

    gold = {"lines": [{"speaker": "Anna", "text": "Tom, go first.", "start": 0.5, "end": 1.5},
                      {"speaker": "Tom", "text": "I'll fix the bug.", "start": 2.0, "end": 3.0}]}
    named = gold_transcript(gold, named=True)
    assert [(f.text, f.start, f.end, f.utterance, f.utterance_end) for f in named] == [
        ("Tom, go first.", 0.5, 1.5, 1, True), ("I'll fix the bug.", 2.0, 3.0, 2, True)]
    assert [(f.speaker, f.speaker_name) for f in named] == [("Anna", "Anna"), ("Tom", "Tom")]
    anonymous = gold_transcript(gold, named=False)
    assert [(f.text, f.speaker, f.speaker_name) for f in anonymous] == [
        ("Tom, go first.", "", ""), ("I'll fix the bug.", "", "")]


def test_replayed_finals_keep_their_utterances_and_speakers():
    from bench.understanding import recorded_finals

    gold = {"duration": 10.0}
    detail = {"finals": [["Tom, please", 0.0, 1.0, 1, False, "", ""], ["fix the bug.", 1.0, 2.0, 1, True, "S1", "Anna"]]}
    first, last = recorded_finals(gold, detail)
    assert (first.utterance, first.utterance_end, last.utterance, last.utterance_end) == (1, False, 1, True)
    assert (last.speaker, last.speaker_name) == ("S1", "Anna")
    older = recorded_finals(gold, {"finals": [["One.", 0.0, 1.0], ["Two.", 1.0, 2.0]]})
    assert [(f.utterance, f.utterance_end) for f in older] == [(1, True), (2, True)]


def test_a_replay_sends_each_revision_after_its_utterances_finals():
    from bench.understanding import recorded_transcript

    detail = {
        "finals": [["It beats our", 0.2, 0.9, 1, False, "S1", ""], ["own servant's", 0.9, 1.6, 1, False, "S1", ""],
                   ["", 2.1, 2.1, 1, True, "S1", ""],  # the utterance closed after its revision's audio ended
                   ["Next.", 2.0, 2.2, 2, True, "S2", ""]],
        "revisions": [["It beats around 70 times.", 0.2, 1.6, 1, 2.0, "S1", "", "It beats our own servant's"]],
    }
    said = recorded_transcript({"duration": 5.0}, detail)
    assert [(e.type, e.utterance) for e in said] == [
        ("transcript.final", 1), ("transcript.final", 1), ("transcript.final", 1), ("transcript.revised", 1),
        ("transcript.final", 2)]
    assert (said[3].text, said[3].speaker) == ("It beats around 70 times.", "S1")
    assert recorded_transcript({"duration": 5.0}, {"finals": detail["finals"]}) == said[:3] + said[4:]  # older runs
