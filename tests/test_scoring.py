import json
from pathlib import Path

from bench.scoring import Score, answer_is_right, owner_matches, score_conversation, score_twin
from streamtwin.twin.model import empty_state

GOLD = json.loads((Path(__file__).resolve().parent.parent / "samples" / "eval" / "dev" / "corrections.json").read_text(
    encoding="utf-8"))


def perfect_state() -> dict:
    return {
        **empty_state(),
        "people": [{"name": "Karen"}, {"name": "Steve"}, {"name": "Paul"}],
        "action_items": [
            {"id": "a1", "text": "Order the moving boxes", "owner": "Steve", "due": "Friday"},
            {"id": "a2", "text": "Rent the truck", "owner": "Paul", "due": "19th of May"},
            {"id": "a3", "text": "Hire a cleaning company", "owner": "Steve", "due": "next Monday"},
        ],
        "decisions": ["The move is on the 19th of May", "The new office opens on the 20th of May"],
    }


def test_a_perfect_twin_scores_full_marks():
    score = score_twin(GOLD, perfect_state())
    assert (score.action_items.precision, score.action_items.recall, score.action_items.f1) == (1.0, 1.0, 1.0)
    assert score.decisions.recall == 1.0 and score.people.precision == 1.0


def test_a_missing_item_lowers_recall_and_a_wrong_owner_does_not_match():
    state = perfect_state()
    state["action_items"] = state["action_items"][:2]
    assert score_twin(GOLD, state).action_items.recall == 2 / 3
    state["action_items"][0]["owner"] = "Karen"  # the correction gave it to Steve
    score = score_twin(GOLD, state)
    assert score.action_items.recall == 1 / 3 and score.action_items.precision == 1 / 2


def test_an_invented_owner_shown_at_any_time_is_counted():
    invented = perfect_state()
    invented["action_items"][1]["owner"] = "John"
    score = score_conversation(GOLD, perfect_state(), [invented, perfect_state()], [("Friday", 2.0), ("", None)])
    assert score.invented_owners == ["John"]
    assert score_conversation(GOLD, perfect_state(), [perfect_state()], [("", None)] * 2).invented_owners == []
    said_but_no_person = perfect_state()
    said_but_no_person["action_items"][0]["owner"] = "Supplier"  # "The supplier is closed": a word, not a person
    assert score_conversation(GOLD, said_but_no_person, [said_but_no_person], [("", None)] * 2).invented_owners == [
        "Supplier"
    ]


def test_answers_need_every_fact_and_an_empty_answer_scores_zero():
    assert answer_is_right("Steve orders the boxes on Friday.", [["friday"]]) == (True, 1)
    assert answer_is_right("On Thursday.", [["friday"]]) == (False, 0)
    assert answer_is_right("", [["friday"]]) == (False, 0)
    assert answer_is_right("We spend $20,000 on online ads.", [["twenty", "20,000"], ["online"]]) == (True, 2)
    score = score_conversation(GOLD, perfect_state(), [], [("Friday.", 3.0), ("I could not find that.", 4.0)])
    assert (score.questions, score.correct, score.qa_accuracy) == (2, 1, 0.5)


def recalls(counts: dict) -> dict:
    return {tag: (c.matched_gold, c.gold) for tag, c in counts.items()}


def test_recall_is_kept_per_said_as_and_owner_by_tag():
    score = score_twin(GOLD, perfect_state())
    assert recalls(score.said_as) == {"imperative": (1, 1), "x_will": (1, 1), "reassigned": (1, 1)}
    assert recalls(score.owner_by) == {"address": (2, 2), "name": (1, 1)}
    state = perfect_state()
    state["action_items"][2]["owner"] = "Karen"  # the reassignment missed: Steve hires the cleaners
    missed = score_twin(GOLD, state)
    assert recalls(missed.said_as) == {"imperative": (1, 1), "x_will": (1, 1), "reassigned": (0, 1)}
    assert recalls(missed.owner_by) == {"address": (2, 2), "name": (0, 1)}
    total = Score()
    total.add(score)
    total.add(missed)
    assert recalls(total.said_as) == {"imperative": (2, 2), "x_will": (2, 2), "reassigned": (1, 2)}
    assert total.said_as["reassigned"].recall == 0.5


def test_accents_do_not_count_in_owners_and_answers():
    assert owner_matches("Jose", "José") and owner_matches("Björn", "Bjorn") and owner_matches("Soren", "Søren")
    assert not owner_matches("Josh", "José")
    assert answer_is_right("Zoe updates the checklist.", [["zoë"]]) == (True, 1)
    assert answer_is_right("Zoë updates the checklist.", [["zoe"]]) == (True, 1)
    assert answer_is_right("Hannah does.", [["zoë"]]) == (False, 0)


def test_non_items_the_twin_holds_anyway_are_counted_by_their_target():
    gold = {**GOLD, "non_items": [
        {"line": 1, "text": "Paul, can you see my screen?", "target": "action_item", "why": "question",
         "keywords": ["see", "screen"]},
        {"line": 2, "text": "Did we decide to ship in June?", "target": "decision", "why": "not_decided",
         "keywords": ["ship", "june"]},
    ]}
    assert (score_twin(gold, perfect_state()).non_items, score_twin(gold, perfect_state()).non_items_taken) == (2, [])
    state = perfect_state()
    state["action_items"].append({"id": "a4", "text": "See the shared screen", "owner": "Paul", "due": ""})
    assert score_twin(gold, state).non_items_taken == ["Paul, can you see my screen?"]
    state["action_items"][-1]["text"] = "Ship it in June"  # an item, not a decision: this non-item is about decisions
    assert score_twin(gold, state).non_items_taken == []
    state["decisions"].append("We ship in June")
    assert score_twin(gold, state).non_items_taken == ["Did we decide to ship in June?"]
