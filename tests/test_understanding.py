"""One evaluation conversation end to end (speech, SmolLM2, scoring): the harness
produces a complete score.  No threshold: SmolLM2 is the fast, weak CI model."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.model
@pytest.mark.slow
@pytest.mark.xdist_group("llama")  # with the other llama.cpp tests (tests/test_llm_local.py)
def test_one_conversation_through_the_real_pipeline_gets_a_complete_score():
    process = subprocess.run(
        [sys.executable, "-m", "bench.understanding", "--llm", "local", "--llm-model", "smollm2", "--only", "standup"],
        cwd=ROOT, capture_output=True, text=True, timeout=900,
    )
    assert process.returncode == 0, process.stderr
    lines = process.stdout.strip().splitlines()
    assert lines[0].split()[:2] == ["conversation", "AI-P"] and lines[1].startswith("standup")
    result = json.loads(lines[-1])
    assert result["bench"] == "understanding" and result["conversations"] == 1
    assert result["llm"] == "local" and result["llm_model"] == "smollm2"
    assert result["questions"] == 2  # both questions to the assistant were looked for
    for key in ("action_item_f1", "action_item_recall", "qa_accuracy", "qa_fact_recall", "open_questions_recall"):
        assert isinstance(result[key], float) and 0.0 <= result[key] <= 1.0, key
    assert isinstance(result["invented_owners"], int)


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
