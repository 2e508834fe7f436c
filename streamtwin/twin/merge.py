"""Joining the twin a model proposed with what the rules found, and the last checks before viewers see it.

The model's state (already repaired and verified, :mod:`streamtwin.twin.model`) and the rule-based draft
(:mod:`streamtwin.twin.extract`) each see things the other misses; these functions join them and hold
the result to what a viewer may be shown: owners who are people, no question asked of the assistant listed
as open, no unowned item that repeats another entry.

Plain functions: no I/O, no clock.
"""

from __future__ import annotations

import copy
import re
from typing import Any, Collection

from streamtwin.twin.heard import UNASSIGNED, jaccard, key_words, name_tokens, overlap
from streamtwin.twin.item_ids import same_task
from streamtwin.twin.model import MAX_ITEMS


def merge_draft(
    state: dict[str, Any], draft: dict[str, Any], superseded: Collection[tuple[str, str, str]] = ()
) -> dict[str, Any]:
    """``state`` (the model's, verified) with what the rule-based draft (:mod:`streamtwin.twin.extract`)
    found and it lacks: missing action items, people, decisions and open questions are proposed; an item
    both have keeps the state's words (unless the draft's hold them all, and more).  The model leads: a
    rule fills an owner or due date the state left empty, and replaces one only when a later statement
    replaced it (``superseded``: (task, field, old value), "let Maria take that instead", "No, Friday, not
    Thursday"), which a model that kept the old value did not take in."""
    merged = copy.deepcopy(state)
    items = merged["action_items"]
    found = draft.get("action_items", [])
    # One state item answers for one draft item at most, the best-matched pairs first: two tasks the
    # rules tell apart stay two ("send you the coding test", Rachel; "return the coding test", David)
    # even when the model wrote one item that half matches both.
    pairs = sorted(
        ((same_task(item, entry), i, j) for i, item in enumerate(items) for j, entry in enumerate(found)),
        reverse=True,
    )
    matched: dict[int, int] = {}  # draft index -> state index
    for score, i, j in pairs:
        if j not in matched and i not in matched.values() and score >= _merge_threshold(items[i], found[j]):
            matched[j] = i
    for j, entry in enumerate(found):
        if j not in matched:
            items.append(dict(entry))
            continue
        same = items[matched[j]]
        if key_words(same["text"]) < key_words(entry["text"]):
            same["text"] = entry["text"]  # the draft says all of it and more ("return it" -> "return the coding test")
        stale = _stale_fields(same, entry, superseded)
        if entry["owner"] != UNASSIGNED and (same["owner"] == UNASSIGNED or "owner" in stale):
            same["owner"] = entry["owner"]
        if entry["due"] and (not same["due"] or "due" in stale):
            same["due"] = entry["due"]
    known = {person["name"].lower() for person in merged["people"]}
    merged["people"] += [p for p in draft.get("people", []) if p["name"].lower() not in known]
    for name in ("decisions", "open_questions"):
        for entry in draft.get(name, []):
            if not any(jaccard(key_words(entry), key_words(other)) >= 0.4 for other in merged[name]):
                merged[name].append(entry)
    for name in ("action_items", "people", "decisions", "open_questions"):
        merged[name] = merged[name][:MAX_ITEMS]
    return merged


def _stale_fields(
    item: dict[str, str], entry: dict[str, str], superseded: Collection[tuple[str, str, str]]
) -> set[str]:
    """The fields of ``item`` that hold a value a later statement replaced (for the task ``entry`` is)."""
    stale = set()
    for task, name, old in superseded:
        value = item[name].lower()
        if value and old.lower() in value and jaccard(key_words(task), key_words(entry["text"])) >= 0.5:
            stale.add(name)
    return stale


def _merge_threshold(item: dict[str, str], entry: dict[str, str]) -> float:
    """How alike a model's item and a draft item must be to be one task: more when each names another
    person (half the words shared and two people named: two tasks, not the rules correcting the owner)."""
    others = UNASSIGNED not in (item["owner"], entry["owner"]) and item["owner"].lower() != entry["owner"].lower()
    return 0.6 if others else 0.5


def _entries_alike(kind: str, a: Any, b: Any) -> bool:
    if kind == "action_items":
        return same_task(a, b) >= 0.5
    return jaccard(key_words(a), key_words(b)) >= 0.4


def retracted_dropped(state: dict[str, Any], drafted: dict[str, list[Any]], draft: dict[str, Any]) -> dict[str, Any]:
    """``state`` without what the rules once found (``drafted``: every entry of their earlier drafts) and
    find no more (``draft``): a revised utterance took it back ("I will report Sim Python" was "I built
    reports in Python").  An entry the current draft still has, in any words, stays."""
    out = dict(state)
    for kind, earlier in drafted.items():
        now = draft.get(kind, [])
        gone = [e for e in earlier if not any(_entries_alike(kind, e, n) for n in now)]
        if gone:
            out[kind] = [e for e in state[kind] if any(_entries_alike(kind, e, n) for n in now)
                         or not any(_entries_alike(kind, e, g) for g in gone)]
    return out


def owners_among(state: dict[str, Any], persons: Collection[str]) -> dict[str, Any]:
    """``state`` with every owner who is not one of ``persons`` unassigned: a word that was heard is
    not yet a person ("Fine, I will ..." heard does not make "Fine" an owner)."""
    known = [set(name_tokens(person)) for person in persons]
    known = [tokens for tokens in known if tokens]

    def person(owner: str) -> bool:
        said = set(name_tokens(owner))
        return bool(said) and any(said <= tokens or tokens <= said for tokens in known)

    items = [{**a, "owner": a["owner"] if person(a["owner"]) else UNASSIGNED} for a in state["action_items"]]
    return {**state, "action_items": items}


def not_the_askers(state: dict[str, Any], requests: Collection[tuple[str, str]]) -> dict[str, Any]:
    """``state`` without owners who only asked for their task ("Chris: ... Can you draw some screen sketches
    by Wednesday?": a small model gives the sketches to Chris).  ``requests``: (task, who asked) for tasks
    asked of nobody named.  Such an item is dropped when another entry holds the task (the voice that
    said "Sure, I will draw the sketches"), else shown unassigned."""
    asked = [(key_words(task), asker.lower()) for task, asker in requests]
    items = state["action_items"]
    words = [key_words(item["text"]) for item in items]
    askers = [
        any(asker == item["owner"].lower() and jaccard(mine, task) >= 0.5 for task, asker in asked)
        for item, mine in zip(items, words)
    ]

    def held_elsewhere(index: int) -> bool:
        return any(other != index and not askers[other] and overlap(words[index], words[other]) >= 0.5
                   for other in range(len(items)))

    kept = [
        {**item, "owner": UNASSIGNED} if askers[index] else item
        for index, item in enumerate(items)
        if not (askers[index] and held_elsewhere(index))
    ]
    return {**state, "action_items": kept}


def not_asked_of_us(state: dict[str, Any], asked: Collection[str]) -> dict[str, Any]:
    """``state`` without the open questions that are questions asked of the assistant: those are
    answered, not open (a small model lists "who is blocked and why" after being asked it)."""
    words = [key_words(question) for question in asked]
    kept = [q for q in state["open_questions"] if not any(jaccard(key_words(q), w) >= 0.6 for w in words if w)]
    return {**state, "open_questions": kept}


def unowned_repeats_dropped(state: dict[str, Any]) -> dict[str, Any]:
    """``state`` without the unassigned action items that say again what another entry says: an owned
    item ("Sarah, can you write the newsletter ..." beside Sarah's "write the newsletter"), a decision
    ("move dark mode to the next release") or an open question ("decide whether we ship this month").
    A small model lists one thing under two headings; its place is the more specific one."""
    others = [key_words(f"{a['owner']} {a['text']}") for a in state["action_items"] if a["owner"] != UNASSIGNED]
    others += [key_words(entry) for entry in (*state["decisions"], *state["open_questions"])]
    kept = [
        a for a in state["action_items"]
        if a["owner"] != UNASSIGNED or not any(overlap(key_words(a["text"]), other) >= 0.75 for other in others)
    ]
    return {**state, "action_items": kept}


def summary_true_to_items(state: dict[str, Any]) -> dict[str, Any]:
    """``state`` without the summary sentences that give a task to someone the action items do not: the model
    writes its summary in the same breath as an item it later loses to a reassignment ("Alice is looking at the
    search page this week." after "Carol, please fix it."), and a viewer reads both."""
    owned = [(a["owner"], key_words(a["text"])) for a in state["action_items"] if a["owner"] != UNASSIGNED]
    people = {owner for owner, _ in owned} | {person["name"] for person in state.get("people", [])}

    def contradicts(sentence: str) -> bool:
        words = key_words(sentence)
        named = {name for name in people if re.search(rf"\b{re.escape(name.split()[0])}\b", sentence)}
        tasks = [(owner, task) for owner, task in owned if len(words & task) >= 2]
        return bool(named and tasks) and not any(owner in named for owner, _ in tasks)

    sentences = re.split(r"(?<=[.!?])\s+", state.get("summary", "").strip())
    kept = " ".join(s for s in sentences if s and not contradicts(s))
    return state if kept == state.get("summary", "").strip() else {**state, "summary": kept}
