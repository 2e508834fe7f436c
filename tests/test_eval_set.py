"""The evaluation set (samples/eval/, made by samples/make_eval.py) is what its specs say, bit for bit,
and its gold is consistent: sizes of the splits, names, questions to the assistant, owners, tags.
A machine reads the test split here; no score is asserted (scores come from bench.understanding)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from bench.scoring import mentions_keywords, plain
from streamtwin.twin.heard import name_tokens

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "samples"
sys.path.insert(0, str(SAMPLES))
import make_eval  # noqa: E402 - samples/ is not a package

GOLDS = [json.loads(path.read_text(encoding="utf-8")) for path in sorted((SAMPLES / "eval").glob("*/*.json"))]
ORIGINAL_EIGHT = {"standup", "planning", "support", "interview", "lecture", "brainstorm", "corrections", "offtopic"}


def of_split(split: str) -> list[dict]:
    return [gold for gold in GOLDS if gold["split"] == split]


def test_a_dev_conversation_regenerates_bit_for_bit(tmp_path: Path):
    name = "helpdesk_printer"  # short, and with a name that is not ASCII
    subprocess.run([sys.executable, str(SAMPLES / "make_eval.py"), "--only", name, "--out", str(tmp_path)],
                   check=True, capture_output=True, timeout=300)
    for suffix in (".ogg", ".json"):
        made, committed = tmp_path / "dev" / f"{name}{suffix}", SAMPLES / "eval" / "dev" / f"{name}{suffix}"
        assert made.read_bytes() == committed.read_bytes(), suffix


def test_the_committed_files_are_the_specs_and_nothing_else():
    for split, specs in make_eval.SPLITS.items():
        folder = SAMPLES / "eval" / split
        assert {p.stem for p in folder.glob("*.json")} == set(specs) == {p.stem for p in folder.glob("*.ogg")}
        assert {gold["name"] for gold in of_split(split)} == set(specs)
    assert not set(make_eval.DEV) & set(make_eval.TEST)


def test_the_splits_are_big_enough_and_the_tuned_eight_are_dev():
    assert len(of_split("test")) >= 20 and len(GOLDS) >= 40
    assert ORIGINAL_EIGHT <= {gold["name"] for gold in of_split("dev")}


@pytest.mark.parametrize("gold", GOLDS, ids=lambda gold: f"{gold['split']}/{gold['name']}")
def test_a_conversation_is_consistent(gold: dict):
    speakers = list(gold["speakers"])
    assert 2 <= len(speakers) <= 5 and 6 <= len(gold["lines"]) <= 20
    assert {line["speaker"] for line in gold["lines"]} == set(speakers)
    # Names unique: no two people share a name (a first name, a surname, a title).
    tokens = [token for person in gold["people"] for token in set(name_tokens(plain(person)))]
    assert len(tokens) == len(set(tokens)), gold["people"]
    assert set(speakers) <= set(gold["people"])
    said = " ".join(line["text"] for line in gold["lines"])
    for question in gold["questions"]:
        line = gold["lines"][question["line"]]["text"]
        assert "Assistant," in line and line.endswith(question["text"]) and question["facts"], question
    for item in gold["action_items"]:
        owner = item["owner"]
        assert owner is None or (owner in gold["people"] and (owner in speakers or owner in said)), item
        assert item["said_as"] in make_eval.SAID_AS and item["owner_by"] in make_eval.OWNER_BY, item
    for non_item in gold["non_items"]:
        assert gold["lines"][non_item["line"]]["text"] == non_item["text"]
        # A right twin never holds one: its key words are not those of a gold item or decision.
        right = ([" ".join(item["task"]) for item in gold["action_items"]] if non_item["target"] == "action_item"
                 else [decision["text"] for decision in gold["decisions"]])
        assert not any(mentions_keywords(text, non_item["keywords"]) for text in right), non_item


@pytest.mark.parametrize("split", ["dev", "test", "holdout"])
def test_each_split_holds_every_way_of_asking_and_every_kind_of_non_item(split: str):
    golds = of_split(split)
    assert {item["said_as"] for gold in golds for item in gold["action_items"]} == set(make_eval.SAID_AS)
    assert {item["owner_by"] for gold in golds for item in gold["action_items"]} == set(make_eval.OWNER_BY)
    assert {n["why"] for gold in golds for n in gold["non_items"]} == set(make_eval.NON_ITEM_WHY)
    assert {n["target"] for gold in golds for n in gold["non_items"]} == set(make_eval.NON_ITEM_TARGETS)
    assert sum(bool(gold["questions"]) for gold in golds) >= 0.8 * len(golds)
