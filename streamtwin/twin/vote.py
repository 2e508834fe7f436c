"""Many samples of one twin update, one state: what most of them say.

When the backend is fast enough to sample a twin update several times (the effort policy picks how many,
:mod:`streamtwin.assistant.effort`), an action item, a decision, an open question or a person is kept when
more than half the samples hold it; an item's owner and due date are the ones most of its samples give
(an owner only with a majority: a split vote leaves it unassigned, for what was said to settle).  What
is kept then still has to be grounded in what was heard (:mod:`streamtwin.twin.verifier`).  The summary,
topics and scene come from the best-scored sample.

Plain module: no I/O, no clock.
"""

from __future__ import annotations

import copy
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from streamtwin.twin.heard import UNASSIGNED, jaccard, key_words
from streamtwin.twin.item_ids import same_task

T = TypeVar("T")


def _clusters(samples: Sequence[Sequence[T]], alike: Callable[[T, T], bool]) -> list[list[tuple[int, T]]]:
    """Entries of every sample grouped with the alike entries of the others (at most one per sample)."""
    clusters: list[list[tuple[int, T]]] = []
    for index, entries in enumerate(samples):
        for entry in entries:
            home = next((c for c in clusters if all(i != index for i, _ in c) and alike(c[0][1], entry)), None)
            if home is None:
                clusters.append([(index, entry)])
            else:
                home.append((index, entry))
    return clusters


def _majority(values: list[str], of: int) -> str:
    """The value more than half of ``of`` voters gave, else ""."""
    if not values:
        return ""
    value, count = Counter(values).most_common(1)[0]
    return value if count * 2 > of else ""


def vote(states: Sequence[dict[str, Any]], best: int = 0) -> dict[str, Any]:
    """One state from ``states`` (repaired, valid), ``best`` giving what is not voted on."""
    if len(states) < 2:
        return copy.deepcopy(states[best])
    needed = len(states) // 2 + 1
    out = copy.deepcopy(states[best])

    def items_alike(a: dict[str, str], b: dict[str, str]) -> bool:
        return same_task({**a, "owner": UNASSIGNED}, {**b, "owner": UNASSIGNED}) >= 0.5

    items = []
    for cluster in _clusters([s["action_items"] for s in states], items_alike):
        if len(cluster) < needed:
            continue
        entries = [entry for _, entry in cluster]
        owners = [e["owner"] for e in entries if e["owner"] != UNASSIGNED]
        dues = [e["due"] for e in entries if e["due"]]
        chosen = next((e for i, e in cluster if i == best), entries[0])
        owner = _majority([o.lower() for o in owners], len(entries))
        items.append({
            **chosen,
            "owner": next((o for o in owners if o.lower() == owner), UNASSIGNED),
            "due": next((d for d in dues if d.lower() == _majority([d.lower() for d in dues], len(entries))), ""),
        })
    out["action_items"] = items

    def texts_alike(a: str, b: str) -> bool:
        return jaccard(key_words(a), key_words(b)) >= 0.4

    for kind in ("decisions", "open_questions"):
        kept = []
        for cluster in _clusters([s[kind] for s in states], texts_alike):
            if len(cluster) >= needed:
                kept.append(next((e for i, e in cluster if i == best), cluster[0][1]))
        out[kind] = kept
    people = [c for c in _clusters([s["people"] for s in states], lambda a, b: a["name"].lower() == b["name"].lower())
              if len(c) >= needed]
    out["people"] = [next((e for i, e in c if i == best), c[0][1]) for c in people]
    return out
