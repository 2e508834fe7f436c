"""Decisions, open questions and tasks restated to stand alone (streamtwin.twin.standalone): which entries lean on
context, the lines the model is shown, and which restatements may replace an entry."""

from __future__ import annotations

from streamtwin.twin.heard import HeardIndex, key_words
from streamtwin.twin.standalone import (
    Restatements, accepted, context_for, evidence, instruction, leans_on_context, owner_of, where_said,
)

LINES = [
    "[1.0s] Mona: Right, the van. Do we hire the big one for the festival or take two cars?",
    "[4.2s] Raj: Two cars is a nightmare to park.",
    "[6.0s] Mona: Big van, then.",
    "[7.5s] Raj: Fine. I'll ring the hire place.",
]
HEARD = set().union(*map(key_words, LINES))


def test_a_bare_pick_or_a_pointing_word_leans_on_context_and_a_whole_decision_does_not():
    assert leans_on_context("Big van")
    assert leans_on_context("Forty-two")
    assert leans_on_context("We're not sending it out")
    assert leans_on_context("Let's move that to Thursday")
    assert not leans_on_context("Hire the big van for the festival instead of taking two cars")


def test_the_line_that_said_an_entry_is_found_and_the_lines_around_it_are_its_evidence():
    assert where_said(LINES, "Big van, then") == 2
    context = context_for(LINES, 2)
    assert context[0] == "Mona: Right, the van. Do we hire the big one for the festival or take two cars?"
    assert context[-1] == "Raj: Fine. I'll ring the hire place."
    assert evidence(LINES, 2) == HEARD  # what a restatement may add: the words of those lines
    # The line that said it word for word, not a later one sharing a word ("van" is in the first line too).
    assert where_said(LINES[:3] + ["[9.0s] Raj: The van's keys are in the office."], "Big van") == 2
    assert where_said(LINES, "ring for the hire van") == 3  # none says it all: the latest of those saying most
    assert where_said(LINES, "Sofas") == -1
    task = instruction("decisions", "Big van", LINES[2])
    assert '"Big van" (from the line "Mona: Big van, then.")' in task


def test_a_restatement_that_names_what_was_settled_in_words_that_were_said_replaces_the_entry():
    said = accepted("decisions", "Big van", "The group decided to hire the big van for the festival.", HEARD)
    assert said == "Hire the big van for the festival"
    framed = accepted("decisions", "Big van", "Raj will ring, and the team agreed to hire the big van.", HEARD)
    assert framed == "Hire the big van"
    # One word of its own per two said is a paraphrase ("rent" for "hire").
    rented = "Rent the big van for the festival, not two cars."
    assert accepted("decisions", "Big van", rented, HEARD) == "Rent the big van for the festival, not two cars"
    assert accepted("decisions", "Big van", "Rent the big van for the festival.", HEARD) == ""  # one of one unsaid


def test_a_restatement_is_not_kept_when_it_brings_in_what_nobody_said_or_drops_the_entry():
    assert accepted("decisions", "Big van", "Hire the minibus from the school.", HEARD) == ""  # unheard
    assert accepted("decisions", "Big van", "Take two cars to the festival.", HEARD) == ""  # the pick is gone
    assert accepted("decisions", "Big van", "Big van.", HEARD) == ""  # nothing named that was not already
    assert accepted("decisions", "Big van", "Should we hire the big van for the festival?", HEARD) == ""
    assert accepted("decisions", "Big van", "Hire the big van.\nRaj rings the hire place.", HEARD) == ""
    # A reply that only echoes the request ("What is the question about?") names nothing.
    assert accepted("open_questions", "after the festival", "What is the question about after the festival?",
                    HEARD) == ""


def test_an_open_question_restated_stays_a_question():
    said = accepted("open_questions", "who rings them", "The group left open who rings the hire place for the van",
                    HEARD)
    assert said == "Who rings the hire place for the van?"


def test_each_entry_is_tried_once_and_the_rules_finding_it_again_find_the_restated_one():
    restatements = Restatements()
    state = {"decisions": ["Big van", "Raj rings the hire place about the festival van"], "open_questions": []}
    assert restatements.wanted(state) == [("decisions", "Big van")]
    restatements.record("decisions", "Big van", "Hire the big van for the festival")
    assert restatements.wanted(state) == []
    draft = restatements.apply({"decisions": ["Big van", "Hire the big van for the festival"], "open_questions": []})
    assert draft["decisions"] == ["Hire the big van for the festival"]  # one entry, not two
    assert restatements.wanted({"decisions": [], "open_questions": ["Can we do that?", "who rings them"]}) == [
        ("open_questions", "who rings them")]  # asked as a question, it stands as asked
    restatements.record("open_questions", "after that", "")  # not kept: tried, and left as it was
    assert restatements.wanted({"decisions": [], "open_questions": ["after that"]}) == []
    assert restatements.apply({"open_questions": ["after that"]})["open_questions"] == ["after that"]


def test_a_task_that_points_back_is_restated_once_and_the_restatement_is_a_task():
    restatements = Restatements()
    state = {"action_items": [{"text": "ring them", "owner": "Raj", "due": ""},
                              {"text": "book the big van for the festival", "owner": "Mona", "due": ""}]}
    assert restatements.wanted(state) == [("action_items", "ring them")]  # a whole task stands as said
    assert restatements.wanted({"action_items": [{"text": "chase him", "owner": "Raj", "due": ""}]}) == [
        ("action_items", "chase him")]
    said = accepted("action_items", "ring them", "Raj will ring the hire place about the big van.", HEARD)
    assert said == "ring the hire place about the big van"  # no owner before it, no full stop, a task's case
    assert accepted("action_items", "ring them", "Ring the minibus company.", HEARD) == ""  # nobody said that
    assert accepted("action_items", "ring them", "Should Raj ring the hire place?", HEARD) == ""
    # what a task's "them" stands for is never whoever does it
    assert accepted("action_items", "ring them", "Ring Raj about the big van.", HEARD, owner="Raj") == ""
    assert accepted("action_items", "ring them", "Ring the hire place about the van.", HEARD, owner="Raj") != ""
    assert accepted("action_items", "ring them", "Ring the hire place about Raj's van.", HEARD, owner="Raj") != ""
    assert owner_of(state, "action_items", "ring them") == "Raj"
    assert owner_of(state, "decisions", "ring them") == ""
    assert "task that says what is to be done" in instruction("action_items", "ring them", LINES[3])
    restatements.record("action_items", "ring them", said)
    assert restatements.wanted(state) == []
    shown = restatements.apply(state)["action_items"]
    assert shown[0] == {"text": "ring the hire place about the big van", "owner": "Raj", "due": ""}
    assert shown[1] == state["action_items"][1]


def test_a_restated_task_belongs_to_whoever_said_it_in_its_own_words():
    heard = HeardIndex()
    heard.add("Ana: The council has to hear about the parking suspension.", "Ana")
    heard.add("Bo: Typical, the week we move.", "Bo")
    heard.add("Ana: Somebody should tell them today.", "Ana")
    heard.add("Raj: I'll ring them first thing.", "Raj")
    restated = "ring the council about the parking suspension"
    assert heard.owner_said_with("Raj", "ring them")
    assert not heard.owner_said_with("Raj", restated)  # its new words were Ana's
    heard.restated(restated, "ring them")
    assert heard.owner_said_with("Raj", restated)
    assert not heard.owner_said_with("Ana", restated)
