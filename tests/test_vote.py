"""Several samples of one twin update: an entry stays when most samples hold it, with the owner and due
date most of them give; what stays must still be grounded in what was heard."""

from __future__ import annotations

import json

from streamtwin.twin.heard import HeardIndex
from streamtwin.twin.model import TwinModel, empty_state
from streamtwin.twin.verifier import Verifier
from streamtwin.twin.vote import vote


def sample(items=(), decisions=(), questions=(), people=(), summary="") -> dict:
    state = empty_state()
    state.update(
        action_items=[{"text": t, "owner": o, "due": d} for t, o, d in items],
        decisions=list(decisions), open_questions=list(questions), people=[{"name": n} for n in people],
        summary=summary,
    )
    return state


def test_an_entry_two_samples_of_three_hold_stays_and_one_only_one_holds_goes():
    samples = [
        sample([("book the venue", "Ana", "Friday"), ("order pizza", "Ben", "")], ["launch in May"], people=["Ana"]),
        sample([("Book the venue for the party", "Ana", "Friday")], ["We launch in May"], people=["Ana", "Ben"]),
        sample([("hire a band", "Cy", "")], [], ["who pays for the band"], people=["Ana"]),
    ]
    voted = vote(samples, best=1)
    assert [(a["text"], a["owner"], a["due"]) for a in voted["action_items"]] == [
        ("Book the venue for the party", "Ana", "Friday")  # the best sample's words
    ]
    assert voted["decisions"] == ["We launch in May"] and voted["open_questions"] == []
    assert [p["name"] for p in voted["people"]] == ["Ana"]


def test_the_owner_and_due_most_samples_give_win_and_a_split_leaves_the_owner_open():
    agreed = vote([sample([("fix the heater", "Mo", "Monday")]), sample([("fix the heater", "Mo", "Tuesday")]),
                   sample([("fix the heater", "Lu", "Monday")])])
    assert [(a["owner"], a["due"]) for a in agreed["action_items"]] == [("Mo", "Monday")]
    split = vote([sample([("fix the heater", "Mo", "")]), sample([("fix the heater", "Lu", "")])])
    assert [(a["owner"], a["due"]) for a in split["action_items"]] == [("unassigned", "")]


def test_one_sample_is_itself():
    only = sample([("fix the heater", "Mo", "Monday")], summary="Heating.")
    assert vote([only]) == only


def test_the_verifier_votes_then_keeps_only_what_was_heard():
    heard = HeardIndex.of("[1.0s] Ana, please book the venue by Friday.\n[3.0s] Ben will order pizza.")
    invented = ("book the flights to Lisbon", "Ana", "")  # two samples agree on it, nobody said it
    raws = [json.dumps(sample([("book the venue", "Ana", "Friday"), invented])),
            json.dumps(sample([("book the venue", "Ana", "Friday"), ("order pizza", "Ben", ""), invented])),
            "not json at all"]
    verdict = Verifier().vote(raws, TwinModel(), heard)
    assert verdict.voters == 2 and verdict.why["voters"] == 2
    assert [(a["text"], a["owner"]) for a in verdict.state["action_items"]] == [("book the venue", "Ana")]
    assert verdict.scores[2].valid is False
