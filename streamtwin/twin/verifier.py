"""The twin's verifier: which candidate state to show, and what of it the transcript supports.

With several candidates (``--samples``) or revisions (``--refine``), the :class:`Verifier` scores
each one on schema validity, grounding in what was heard (the session-long index) and consistency
with the previous state; its scores travel with the patch (``TwinPatch.why``) so anyone can see
why a candidate won.  The winner is then pruned: an invented fact never reaches a viewer.

Plain module: no I/O, no clock.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Sequence

from streamtwin.twin.heard import UNASSIGNED, HeardIndex, jaccard, key_words, support
from streamtwin.twin.model import TwinModel
from streamtwin.twin.vote import vote

@dataclass(frozen=True)
class _Claim:
    """A person, action item or decision: must be grounded, and should not vanish without a reason."""

    label: str
    text: str  # what identifies it across versions
    evidence: str  # what the transcript must support (an action item's owner and due date too)


def _claims(state: dict[str, Any]) -> list[_Claim]:
    claims = [_Claim(f"person: {p['name']}", p["name"], p["name"]) for p in state["people"]]
    claims += [
        _Claim(f"action item: {a['text']}", a["text"], " ".join(filter(None, (a["text"], a["due"]))))
        for a in state["action_items"]
    ]
    claims += [_Claim(f"decision: {d}", d, d) for d in state["decisions"]]
    return claims


@dataclass
class CandidateScore:
    index: int
    valid: bool
    score: float = 0.0
    grounding: float = 0.0
    consistency: float = 0.0
    coverage: float = 0.0
    grounded: int = 0
    ungrounded: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


@dataclass
class Verdict:
    """The winning state (None when no candidate was valid) and every candidate's scores."""

    winner: int | None
    state: dict[str, Any] | None
    scores: list[CandidateScore]
    voters: int = 0  # valid samples the state was voted from (0: the winner alone)

    @property
    def why(self) -> dict[str, Any]:
        why: dict[str, Any] = {"winner": self.winner, "candidates": [asdict(score) for score in self.scores]}
        if self.voters:
            why["voters"] = self.voters
        return why


class Verifier:
    """Scores candidate twin states; weights favour grounding over everything else."""

    def __init__(
        self,
        support_threshold: float = 0.5,
        weights: tuple[float, float, float] = (0.6, 0.25, 0.15),
    ) -> None:
        self.support_threshold = support_threshold
        self.weights = weights

    def pick(self, candidates: Sequence[str | Any], model: TwinModel, heard: HeardIndex | str) -> Verdict:
        """Repair and score raw candidates against ``model.state`` and what was ``heard``
        (the session-long index; a plain transcript text is indexed first)."""
        heard = heard if isinstance(heard, HeardIndex) else HeardIndex.of(heard)
        states, scores = self._judge(candidates, model, heard)
        winner = self._winner(scores)
        return Verdict(winner, None if winner is None else self.prune(states[winner], heard), scores)

    def vote(self, candidates: Sequence[str | Any], model: TwinModel, heard: HeardIndex) -> Verdict:
        """Several samples of one update: what most valid samples hold (:func:`streamtwin.twin.vote.vote`, the
        best-scored one giving summary, topics and scene), pruned to what was heard."""
        states, scores = self._judge(candidates, model, heard)
        winner = self._winner(scores)
        valid = [state for state in states if state is not None]
        if winner is None or len(valid) < 2:
            return Verdict(winner, None if winner is None else self.prune(states[winner], heard), scores)
        best = [i for i, state in enumerate(states) if state is not None].index(winner)
        return Verdict(winner, self.prune(vote(valid, best), heard), scores, voters=len(valid))

    @staticmethod
    def _winner(scores: list[CandidateScore]) -> int | None:
        valid = [s for s in scores if s.valid]
        return max(valid, key=lambda s: (s.score, s.grounded, -s.index)).index if valid else None

    def _judge(
        self, candidates: Sequence[str | Any], model: TwinModel, heard: HeardIndex
    ) -> tuple[list[dict[str, Any] | None], list[CandidateScore]]:
        states: list[dict[str, Any] | None] = []
        scores: list[CandidateScore] = []
        for index, raw in enumerate(candidates):
            state, errors = model.repair_verbose(raw)
            states.append(state)
            if state is None:
                scores.append(CandidateScore(index, valid=False, errors=errors[:5]))
            else:
                scores.append(self._score(index, state, model.state, heard))
        most_grounded = max((s.grounded for s in scores if s.valid), default=0)
        for score in scores:
            if score.valid:
                score.coverage = score.grounded / most_grounded if most_grounded else 1.0
                grounding_w, consistency_w, coverage_w = self.weights
                total = grounding_w * score.grounding + consistency_w * score.consistency + coverage_w * score.coverage
                score.score = round(total, 4)
        return states, scores

    def prune(self, state: dict[str, Any] | None, heard: HeardIndex) -> dict[str, Any] | None:
        """Drop the winner's people, action items and decisions the transcript does not support,
        and unassign owners nobody named: a small model invents names, and an invented fact
        must never reach a viewer."""
        if state is None:
            return None
        grounded = dict(state)
        grounded["people"] = [self._person(p, heard) for p in state["people"] if heard.mentions(p["name"])]
        grounded["action_items"] = [
            {**a, "owner": a["owner"] if self._owner_grounded(a, heard) else UNASSIGNED}
            for a in state["action_items"]
            if self._supported(" ".join(filter(None, (a["text"], a["due"]))), heard.vocabulary)
        ]
        grounded["decisions"] = [d for d in state["decisions"] if self._supported(d, heard.vocabulary)]
        return grounded

    @staticmethod
    def _owner_grounded(item: dict[str, str], heard: HeardIndex) -> bool:
        """The owner is a person who was named, and what was said ties them to this task (a small model
        gives a task to someone who only spoke nearby)."""
        return heard.mentions(item["owner"]) and heard.owner_said_with(item["owner"], item["text"])

    def _person(self, person: dict[str, str], heard: HeardIndex) -> dict[str, str]:
        """A role nobody said is dropped, the person kept."""
        if "role" in person and not self._supported(person["role"], heard.vocabulary):
            return {"name": person["name"]}
        return person

    def _supported(self, claim: str, vocabulary: set[str]) -> bool:
        return support(claim, vocabulary) >= self.support_threshold

    def critique(self, score: CandidateScore) -> str:
        """What a revision should fix, as instructions ("" when there is nothing to fix)."""
        lines = []
        if score.errors:
            lines.append("The JSON does not match the schema: " + "; ".join(score.errors))
        if score.ungrounded:
            lines.append("Not supported by the transcript, remove or correct: " + "; ".join(score.ungrounded))
        if score.removed:
            lines.append("Dropped although nothing said they are finished, restore: " + "; ".join(score.removed))
        return "\n".join(f"- {line}" for line in lines)

    def _score(self, index: int, state: dict[str, Any], previous: dict[str, Any], heard: HeardIndex) -> CandidateScore:
        claims = _claims(state)
        ungrounded = [
            c.label
            for c in claims
            if not (heard.mentions(c.text) if c.label.startswith("person: ") else self._supported(c.evidence, heard.vocabulary))
        ]
        ungrounded += [
            f"owner {a['owner']} of: {a['text']}"
            for a in state["action_items"]
            if a["owner"] != UNASSIGNED and not self._owner_grounded(a, heard)
        ]
        grounded = max(0, len(claims) - len(ungrounded))
        kept = [key_words(c.text) for c in claims]
        removed = []
        previous_claims = _claims(previous)
        for claim in previous_claims:
            words = key_words(claim.text)
            still_there = any(jaccard(words, other) >= 0.5 for other in kept)
            explained = any(support(claim.text, line) >= self.support_threshold for line in heard.completion_lines)
            if not still_there and not explained:
                removed.append(claim.label)
        return CandidateScore(
            index,
            valid=True,
            grounding=round(grounded / (len(claims) or 1), 4) if claims else 1.0,
            consistency=round(1 - len(removed) / len(previous_claims), 4) if previous_claims else 1.0,
            grounded=grounded,
            ungrounded=ungrounded,
            removed=removed,
        )
