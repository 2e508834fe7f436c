"""Orders and requests the rules' grammar read wrongly or not at all: everyday phrasings, each beside a lookalike
that must stay what it is (found reading probe 5 of samples/probes, written here in words of their own)."""

import pytest

from streamtwin.twin.due import task_and_due
from streamtwin.twin.extract import RuleExtractor


def owners_of(*said: tuple[str, str]) -> list[tuple[str, str, str]]:
    rules = RuleExtractor()
    for speaker, text in said:
        rules.add(text, speaker)
    return [(a["owner"], a["text"], a["due"]) for a in rules.draft()["action_items"]]


@pytest.mark.parametrize("task, words, due", [
    # A day the task moves something to is what it is about, not when it is due.
    ("move the meeting to Friday", "move the meeting to Friday", ""),
    ("swap onto Sunday morning", "swap onto Sunday morning", ""),
    ("push the review into next week", "push the review into next week", ""),
    ("move the meeting to Friday by tomorrow", "move the meeting to Friday", "tomorrow"),
    # a deadline stays one
    ("send the minutes on Friday", "send the minutes", "Friday"),
    ("get it to them by Friday", "get it to them", "Friday"),
])
def test_a_day_something_is_moved_to_stays_in_the_task(task, words, due):
    assert task_and_due(task) == (words, due)


@pytest.mark.parametrize("said, owned", [
    ("Priya, you take the minutes today.", [("Priya", "take the minutes", "today")]),
    ("And Kofi, you ring the landlord back once the plumber's been, yeah?",
     [("Kofi", "ring the landlord back once the plumber's been", "")]),
    ("Dana, you order the cake, right?", [("Dana", "order the cake", "")]),
    # remarks to someone named, not orders
    ("Priya, you look tired.", []),
    ("Priya, you know the answer to that.", []),
    ("Priya, you were right about the budget.", []),
])
def test_an_order_to_someone_named_may_say_you(said, owned):
    assert owners_of(("Ana", said)) == owned


@pytest.mark.parametrize("said, owned", [
    ("Omar, you did the booking last time, can you phone the coach firm?", [("Omar", "phone the coach firm", "")]),
    ("Lena, when you have a minute, could you check the stock list?", [("Lena", "check the stock list", "")]),
    # a remark before a question that asks nothing of them
    ("Omar, the printer's jammed again, can you believe it?", []),
])
def test_a_request_after_a_remark_to_the_same_person_is_theirs(said, owned):
    assert owners_of(("Ana", said)) == owned


@pytest.mark.parametrize("said", [
    "Cheaper, easier to carry, and it folds flat.",
    "Northfield, starting Monday, Sam's covering it.",
    "Harbour Road, finished last week.",
])
def test_a_word_before_a_comma_is_no_one_when_no_order_follows(said):
    assert owners_of(("Ana", "Which one then?"), ("Bo", said)) == []


@pytest.mark.parametrize("name, order", [("Tom", "bring the ladder"), ("Ana", "swing by the depot on the way back"),
                                         ("Bea", "string the lights up")])
def test_orders_whose_verb_ends_like_a_participle_are_still_orders(name, order):
    assert owners_of(("Ana", f"{name}, {order}.")) == [(name, order, "")]


@pytest.mark.parametrize("said", [
    "Can you pass me that rag, Mateo?",
    "Mateo, hand me those pliers.",
    "What I need to know is whether the hall is free on the sixteenth.",
    "I'd like to understand why the pump keeps tripping.",
])
def test_what_is_wanted_now_or_wondered_is_no_task(said):
    assert owners_of(("Ana", said)) == []


def test_passing_something_on_later_is_still_a_task():
    assert owners_of(("Ana", "Mateo, can you pass the keys to the new tenant on Friday?")) == [
        ("Mateo", "pass the keys to the new tenant", "Friday")
    ]
