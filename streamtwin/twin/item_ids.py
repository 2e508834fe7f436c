"""Stable ids for action items: a reworded or corrected task keeps its id across twin updates, so a viewer's
item is patched in place instead of removed and added again.

Plain module: no I/O, no clock.
"""

from __future__ import annotations

from streamtwin.twin.heard import UNASSIGNED, jaccard, key_words

ITEM_ID_PREFIX = "a"


def id_number(item_id: str) -> int:
    """The number in an item id ("a12" -> 12), 0 for an id of another form."""
    digits = item_id[len(ITEM_ID_PREFIX) :]
    return int(digits) if item_id.startswith(ITEM_ID_PREFIX) and digits.isdigit() else 0


def same_task(a: dict[str, str], b: dict[str, str]) -> float:
    """How surely two action items are one task: word overlap, helped by a shared named owner."""
    overlap = jaccard(key_words(a["text"]), key_words(b["text"]))
    same_owner = a["owner"].lower() == b["owner"].lower() and a["owner"] != UNASSIGNED
    return overlap + (0.25 if same_owner else 0.0)


def assign_ids(items: list[dict[str, str]], previous: list[dict[str, str]], last_id: int) -> list[dict[str, str]]:
    """Give every item a stable id: the id of the previous item it continues (a reworded
    or corrected task keeps its id), else a new one after ``last_id``.  Near-duplicates
    within ``items`` merge into one (the later owner and due date win: that is what a
    correction looks like).  Items come back ordered by id, so an update patches in place."""
    merged: list[dict[str, str]] = []
    for item in items:
        twin = next((m for m in merged if same_task(m, item) >= 0.6), None)
        if twin is None:
            merged.append(dict(item))
            continue
        if item["owner"] != UNASSIGNED:
            twin["owner"] = item["owner"]
        if item["due"]:
            twin["due"] = item["due"]
    by_id = {p["id"]: p for p in previous if "id" in p}
    pairs = []
    for i, item in enumerate(merged):
        for old_id, old in by_id.items():
            score = same_task(old, item) + (0.3 if item.get("id") == old_id else 0.0)
            if score >= 0.5:
                pairs.append((score, i, old_id))
    taken: dict[int, str] = {}
    for _, i, old_id in sorted(pairs, reverse=True):
        if i not in taken and old_id not in taken.values():
            taken[i] = old_id
    for i, item in enumerate(merged):
        if i in taken:
            item["id"] = taken[i]
        else:
            last_id += 1
            item["id"] = f"{ITEM_ID_PREFIX}{last_id}"
    return sorted(merged, key=lambda item: id_number(item["id"]))
