"""Scoring a twin and answers against a gold conversation (samples/eval/SPLIT/*.json).

Pure functions, no I/O: ``bench/understanding.py`` collects what the pipeline showed
and hands it here.  Matching is by key words (crudely stemmed, as the verifier does):
an action item counts when its owner is the gold owner (unassigned matches
unassigned) and at least half of the gold task's key words are in its text.  Accents
do not count (speech recognition writes "Jose" for José as often as not).  Recall is
also kept per gold item's ``said_as`` and ``owner_by`` tag, and the gold's non-items
(requests that were cancelled, hypothetical or only questions) that the twin holds anyway.
"""

from __future__ import annotations

import unicodedata
from dataclasses import asdict, dataclass, field
from typing import Any

from streamtwin.twin.heard import key_words, name_tokens, names_nobody


@dataclass
class Counts:
    """Matches and totals for one kind of item."""

    matched_predicted: int = 0
    predicted: int = 0
    matched_gold: int = 0
    gold: int = 0

    def add(self, other: Counts) -> None:
        self.matched_predicted += other.matched_predicted
        self.predicted += other.predicted
        self.matched_gold += other.matched_gold
        self.gold += other.gold

    @property
    def precision(self) -> float | None:
        return self.matched_predicted / self.predicted if self.predicted else None

    @property
    def recall(self) -> float | None:
        return self.matched_gold / self.gold if self.gold else None

    @property
    def f1(self) -> float | None:
        p, r = self.precision or 0.0, self.recall
        if r is None:
            return None
        return 2 * p * r / (p + r) if p + r else 0.0


@dataclass
class Score:
    action_items: Counts = field(default_factory=Counts)
    decisions: Counts = field(default_factory=Counts)
    open_questions: Counts = field(default_factory=Counts)
    people: Counts = field(default_factory=Counts)
    questions: int = 0
    correct: int = 0
    facts: int = 0
    facts_found: int = 0
    answer_seconds: list[float] = field(default_factory=list)
    invented_owners: list[str] = field(default_factory=list)
    # Gold action items (gold, matched_gold) per how they were asked for and how their owner is known.
    said_as: dict[str, Counts] = field(default_factory=dict)
    owner_by: dict[str, Counts] = field(default_factory=dict)
    non_items: int = 0
    non_items_taken: list[str] = field(default_factory=list)

    def add(self, other: Score) -> None:
        for name in ("action_items", "decisions", "open_questions", "people"):
            getattr(self, name).add(getattr(other, name))
        for name in ("said_as", "owner_by"):
            mine = getattr(self, name)
            for tag, counts in getattr(other, name).items():
                mine.setdefault(tag, Counts()).add(counts)
        self.non_items += other.non_items
        self.non_items_taken += other.non_items_taken
        self.questions += other.questions
        self.correct += other.correct
        self.facts += other.facts
        self.facts_found += other.facts_found
        self.answer_seconds += other.answer_seconds
        self.invented_owners += other.invented_owners

    @property
    def qa_accuracy(self) -> float | None:
        return self.correct / self.questions if self.questions else None

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


# Letters that Unicode does not decompose into a base letter and an accent.
_UNDECOMPOSED = str.maketrans({"ø": "o", "Ø": "O", "ł": "l", "Ł": "L", "đ": "d", "Đ": "D", "ß": "ss", "æ": "ae",
                               "Æ": "AE", "œ": "oe", "Œ": "OE", "þ": "th", "Þ": "Th", "ı": "i"})


def plain(text: str) -> str:
    """``text`` without accents: "Björn Søren" -> "Bjorn Soren"."""
    decomposed = unicodedata.normalize("NFKD", text.translate(_UNDECOMPOSED))
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def owner_matches(predicted: str, gold: str | None) -> bool:
    if gold is None:
        return names_nobody(predicted)
    if names_nobody(predicted):
        return False
    said, wanted = set(name_tokens(plain(predicted))), set(name_tokens(plain(gold)))
    return bool(said) and (said <= wanted or wanted <= said)


def mentions_keywords(text: str, keywords: list[str]) -> bool:
    """At least half of the gold key words (stemmed) are in ``text``."""
    wanted = key_words(plain(" ".join(keywords)))
    return bool(wanted) and len(wanted & key_words(plain(text))) * 2 >= len(wanted)


def _matched(predicted: list[Any], gold: list[Any], same) -> set[int]:  # noqa: ANN001 - a predicate
    """Greedy one-to-one matching in order; ``same(predicted, gold)`` says whether two match.  Returns the
    indices of the gold entries matched."""
    taken: set[int] = set()
    for p in predicted:
        for index, g in enumerate(gold):
            if index not in taken and same(p, g):
                taken.add(index)
                break
    return taken


def _counts(matched: set[int], predicted: list[Any], gold: list[Any]) -> Counts:
    return Counts(matched_predicted=len(matched), predicted=len(predicted), matched_gold=len(matched), gold=len(gold))


def _match(predicted: list[Any], gold: list[Any], same) -> Counts:  # noqa: ANN001 - a predicate
    return _counts(_matched(predicted, gold, same), predicted, gold)


def recall_by(gold_items: list[dict[str, Any]], matched: set[int], tag: str) -> dict[str, Counts]:
    """Gold items and matched ones per value of ``tag`` (a missing or null tag counts as "none")."""
    counts: dict[str, Counts] = {}
    for index, item in enumerate(gold_items):
        entry = counts.setdefault(str(item.get(tag) or "none"), Counts())
        entry.gold += 1
        entry.matched_gold += index in matched
    return counts


def non_items_taken(gold: dict[str, Any], state: dict[str, Any]) -> list[str]:
    """The gold's non-items that ``state`` holds anyway: an action item (or decision, by the non-item's target)
    that says their key words."""
    said = {"action_item": [item["text"] for item in state["action_items"]], "decision": state["decisions"]}
    return [
        non_item["text"] for non_item in gold["non_items"]
        if any(mentions_keywords(text, non_item["keywords"]) for text in said[non_item["target"]])
    ]


def score_twin(gold: dict[str, Any], state: dict[str, Any]) -> Score:
    """The final twin against the gold: action items (owner + task), decisions, open questions, people."""
    score = Score()
    matched = _matched(
        state["action_items"],
        gold["action_items"],
        lambda p, g: owner_matches(p["owner"], g["owner"]) and mentions_keywords(p["text"], g["task"]),
    )
    score.action_items = _counts(matched, state["action_items"], gold["action_items"])
    score.said_as = recall_by(gold["action_items"], matched, "said_as")
    score.owner_by = recall_by(gold["action_items"], matched, "owner_by")
    score.non_items = len(gold["non_items"])
    score.non_items_taken = non_items_taken(gold, state)
    for name in ("decisions", "open_questions"):
        setattr(score, name, _match(state[name], gold[name], lambda p, g: mentions_keywords(p, g["keywords"])))
    score.people = _match(
        [person["name"] for person in state["people"]], gold["people"], lambda p, g: owner_matches(p, g)
    )
    return score


def answer_is_right(answer: str, facts: list[list[str]]) -> tuple[bool, int]:
    """Right when one alternative of every fact is in the answer (an empty or off-topic answer has none)."""
    answer = plain(answer)
    words = set(name_tokens(answer)) | key_words(answer)
    lowered = answer.lower()
    found = 0
    for fact in facts:
        alternatives = [plain(alt) for alt in fact]
        if any((alt.lower() in lowered) if not alt.isalpha() else (alt.lower() in words or key_words(alt) & words)
               for alt in alternatives):
            found += 1
    return found == len(facts), found


def invented_owners(gold: dict[str, Any], shown_states: list[dict[str, Any]]) -> list[str]:
    """Owners any viewer was shown who are not people of the conversation (a word that was said,
    such as "Impressive", is not a person either)."""
    invented: list[str] = []
    for state in shown_states:
        for item in state["action_items"]:
            owner = item["owner"]
            person = any(owner_matches(owner, name) for name in gold["people"])
            if not names_nobody(owner) and not person and owner not in invented:
                invented.append(owner)
    return invented


def score_conversation(
    gold: dict[str, Any],
    final_state: dict[str, Any],
    shown_states: list[dict[str, Any]],
    answers: list[tuple[str, float | None]],
) -> Score:
    """``answers``: per gold question, in order, the answer shown ("" if none) and seconds to it."""
    score = score_twin(gold, final_state)
    score.invented_owners = invented_owners(gold, shown_states)
    for question, (answer, seconds) in zip(gold["questions"], answers, strict=True):
        right, found = answer_is_right(answer, question["facts"])
        score.questions += 1
        score.correct += right
        score.facts += len(question["facts"])
        score.facts_found += found
        if seconds is not None:
            score.answer_seconds.append(seconds)
    return score
