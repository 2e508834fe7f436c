"""What the model says a meeting settled: the reply format of its decisions call, and its replies joined.

The twin call (:mod:`streamtwin.twin.model`) carries the twin state it last gave and, on a small model, mostly
copies it: decisions said in a way the rules do not know are seldom added.  A second, short call reads the whole
transcript afresh and lists only what was decided (a few dozen tokens to generate, its front taken from the
cache the twin call left).  Its entries join the twin when most samples agree on them; what they may not say (a
person's task, something unknown or only imagined) is dropped later, with the rules' own entries
(:func:`streamtwin.twin.merge.decisions_not_tasks`), and a decision the transcript does not support is pruned by
the verifier like any other.

Plain module: no I/O, no clock.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from streamtwin.twin.heard import jaccard, key_words
from streamtwin.twin.merge import restates_a_task
from streamtwin.twin.model import MAX_ITEMS, MAX_TEXT, extract_json

DECISIONS_RESPONSE_FORMAT: dict[str, Any] = {
    "type": "json_schema",
    "json_schema": {
        "name": "decisions",
        "strict": False,
        "schema": {
            "type": "object",
            "required": ["decisions"],
            "properties": {"decisions": {"type": "array", "items": {"type": "string"}}},
        },
    },
}


def read_decisions(raw: str) -> list[str] | None:
    """The decisions of one reply, cut to the twin's limits; None when the reply holds no such list."""
    reply = extract_json(raw)
    if not isinstance(reply, dict) or not isinstance(reply.get("decisions"), list):
        return None
    said = [" ".join(d.split())[:MAX_TEXT] for d in reply["decisions"] if isinstance(d, str)]
    return [d for d in said if key_words(d)][:MAX_ITEMS]


def alike(a: str, b: str) -> bool:
    return jaccard(key_words(a), key_words(b)) >= 0.4


def agreed(replies: Sequence[list[str]]) -> list[str]:
    """The decisions more than half of the ``replies`` hold (each in the words of the first that said it)."""
    kept: list[str] = []
    for index, decisions in enumerate(replies):
        for decision in decisions:
            if any(alike(decision, k) for k in kept):
                continue
            holders = 1 + sum(any(alike(decision, d) for d in other) for j, other in enumerate(replies) if j != index)
            if holders * 2 > len(replies):
                kept.append(decision)
    return kept


def with_decisions(
    state: dict[str, Any], decisions: Sequence[str], tasks: Sequence[str] = ()
) -> dict[str, Any]:
    """``state`` with the ``decisions`` it lacks (one alike already there stands for it), but for those that say
    again what one of its action items or of ``tasks`` (the rules' items) says: a small model lists the tasks
    it heard as decisions too, and their place is the item ("Read chapter five by Monday" beside the
    item nobody owns yet)."""
    said = [key_words(task) for task in [*(item["text"] for item in state["action_items"]), *tasks]]
    have = list(state["decisions"])
    have += [d for d in decisions if not restates_a_task(d, said) and not any(alike(d, h) for h in have)]
    return {**state, "decisions": have[:MAX_ITEMS]}
