"""bench.rules_probe: the rules' draft of gold lines, scored as bench.understanding scores it."""

from __future__ import annotations

import json

from bench.rules_probe import score


def conversation(lines: list[tuple[str, str]], **gold) -> dict:
    return {"name": "probe", "lines": [{"speaker": who, "text": text} for who, text in lines],
            "people": sorted({who for who, _ in lines}), "decisions": [], "open_questions": [], "action_items": [],
            **gold}


def test_what_the_rules_read_is_found_and_what_they_miss_is_not(tmp_path):
    path = tmp_path / "one.json"
    path.write_text(json.dumps(conversation(
        [("Ana", "Should we move the quiz to Friday?"), ("Ben", "Yes, let's do that."),
         ("Ana", "Ben, please book the hall by Monday."), ("Ben", "Will do."),
         ("Ana", "The raffle is a whole other story.")],
        decisions=[{"text": "The quiz moves to Friday", "keywords": ["quiz", "friday", "move"]},
                   {"text": "No raffle this year", "keywords": ["raffle", "cancel", "year"]}],
        action_items=[{"owner": "Ben", "task": ["book", "hall", "monday"], "said_as": "", "due": "Monday"}])))
    result = score([str(path)], verbose=False)
    assert result["decisions"] == {"found": 1, "gold": 2, "shown": 1}
    assert result["items"]["found"] == 1 and result["items"]["f1"] == 1.0
    assert result["invented_owners"] == []


def test_restated_entries_are_scored_as_restated(tmp_path):
    from tests.fakes.scripted_backend import Reply, ScriptedBackend

    path = tmp_path / "one.json"
    path.write_text(json.dumps(conversation(
        [("Mona", "Right, the van. Do we hire the big van for the festival or take two cars?"),
         ("Raj", "Two cars is a nightmare to park."), ("Mona", "Okay. Big van, then.")],
        decisions=[{"text": "Hire the big van for the festival", "keywords": ["van", "festival", "hire"]}])))
    assert score([str(path)], verbose=False)["decisions"]["found"] == 0  # "Big van, then" alone says too little
    backend = ScriptedBackend([Reply("The group decided to hire the big van for the festival.")])
    assert score([str(path)], verbose=False, backend=backend)["decisions"] == {"found": 1, "gold": 1, "shown": 1}
    assert 'decided: "Big van, then"' in backend.requests[0].messages[-1]["content"]
