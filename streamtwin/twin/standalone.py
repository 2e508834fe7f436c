"""Decisions, open questions and tasks that stand alone: the model names what "it" or a bare word stood for.

The rules catch the moment a matter is settled ("Forty-two it is.", "Okay. We're not sending it out.") but not
the thing settled, which was said lines before; a twin that lists "Forty-two" as a decision tells a viewer who
missed the meeting nothing, nor does a task "ring them" or "chase him".  Resolving "it" takes the whole recent
context, the model's strength, so an entry that leans on context is restated by the model, and the restatement is
kept only when it still says what the entry said and what it adds is mostly words said in the lines around it (a
small model may otherwise bring in a word nobody said; it can still be wrong in detail, and give the scarf, or the
"them" of a task, to the wrong one).

Plain module: the prompt goes out and the reply comes back through the caller (twin_updates.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from streamtwin.twin.heard import key_words, name_tokens

KINDS = ("decisions", "open_questions")
ITEMS = "action_items"  # restated by their text: "ring them" -> "ring the council about the parking suspension"
REPLY_TOKENS = 80  # one sentence
# Words that point back to something said before.
_POINTS_BACK = re.compile(r"\b(?:it|its|that|this|them|those|these|one|ones|there|the same)\b", re.IGNORECASE)
# ... and in a task, who it is done to ("chase him", "ring her back"): a task's own words are few anyway.
_TASK_POINTS_BACK = re.compile(rf"\b(?:him|her)\b|{_POINTS_BACK.pattern}", re.IGNORECASE)
_POSSESSIVE = re.compile(r"\b[\w-]+'s\b")
# "Ayesha will ring the council": the task without the owner the model may put before it.
_OWNER_FIRST = re.compile(r"^[A-Z][\w'-]* (?:will|is going to|is to|should|needs to|has to) ")
_CONTEXT_BEFORE = 8  # lines before the entry's own: where its subject was said
_CONTEXT_AFTER = 2
_MAX_WORDS = 30
# How the model tends to open a restatement, and words any restatement may use without their being heard.
_GROUP = r"(?:the (?:\w+ )?(?:group|team|meeting|room|committee|participants?|crew|staff)|they|we)"
_PREAMBLE = re.compile(
    rf"\b{_GROUP} (?:(?:has|have) )?"
    r"(?:decided|agreed|settled|chose|left (?:open|unanswered)(?: the question(?: of)?)?)"
    r"(?: (?:on|that|to))?\s+",
    re.IGNORECASE,
)
_ECHOED_LINE = re.compile(r",?\s*\(?(?:from|in) the line\b.*$", re.IGNORECASE)
_FREE_WORDS = key_words("group team meeting decided decision agreed settled question open whether unanswered yet")
_TIMESTAMP = re.compile(r"^\[[\d.]+s\]\s*")


def leans_on_context(text: str) -> bool:
    """ "Forty-two", "We split it", "Let's move it to the twenty-eighth": fewer than three content words, or a
    word that points back."""
    return len(key_words(text)) < 3 or bool(_POINTS_BACK.search(text))


def where_said(lines: list[str], entry: str) -> int:
    """The line that said ``entry``: the latest that says it word for word, else the latest that says most of its
    content words; -1 when no line says any of it."""
    said = " ".join(entry.lower().split())
    verbatim = [index for index, line in enumerate(lines) if said in " ".join(line.lower().split())]
    if verbatim:
        return verbatim[-1]
    wanted = key_words(entry)
    best, at = 0, -1
    for index, line in enumerate(lines):
        shared = len(wanted & key_words(line))
        if shared and shared >= best:
            best, at = shared, index
    return at


def context_for(lines: list[str], at: int) -> list[str]:
    """The lines around line ``at`` (the subject of what it says is in the lines before it), without their times:
    what a restatement may take its words from."""
    return [_TIMESTAMP.sub("", line).strip() for line in lines[max(at - _CONTEXT_BEFORE, 0) : at + _CONTEXT_AFTER + 1]]


def evidence(lines: list[str], at: int) -> set[str]:
    """The key words a restatement of what line ``at`` said may add: those of the lines around it."""
    return set().union(*map(key_words, context_for(lines, at)))


def instruction(kind: str, entry: str, said_in: str) -> str:
    """The task after the transcript (the context window's front, which the model has cached): restate ``entry``,
    said in the line ``said_in``."""
    settled, form = {
        "decisions": ("the group decided", "sentence that says what was decided about what"),
        "open_questions": ("this was left open", "question that says what is still undecided"),
        ITEMS: ("someone is to do this", "task that says what is to be done to what or whom"),
    }[kind]
    return (
        f"A note of this meeting says {settled}: \"{entry}\" (from the line \"{_TIMESTAMP.sub('', said_in).strip()}\"). "
        "Someone who was not there cannot tell what that is about. Rewrite the note as one complete "
        f"{form}, in words from the transcript (say what 'it' or 'that' stands for; keep the note's meaning). "
        f"Reply with the {form.split()[0]} only."
    )


def accepted(kind: str, entry: str, reply: str, heard: set[str], owner: str = "") -> str:
    """The model's restatement of ``entry``, cleaned, or "" when it is not fit to replace it: not one short
    sentence, no longer what the entry said (half its content words gone), a question where a decision was (or
    the reverse), or what it adds not mostly words of the lines it was shown (``heard``: their key words; one
    word of its own per two of theirs, as a paraphrase needs).  A task's "him" or "them" is never its own
    ``owner`` ("Tunde, can you chase him?" restated "chase Tunde": a small model's usual slip)."""
    text = " ".join(reply.strip().strip("\"'`").split())
    text = _ECHOED_LINE.sub("", text)  # '... red scarf from the line "Freya: ..."': the instruction said back
    framed = list(_PREAMBLE.finditer(text))  # "The group decided to ...", "X was late, and the group decided to ..."
    text = text[framed[-1].end():].strip(" \"'") if framed else text
    if not text or "\n" in reply.strip() or len(text.split()) > _MAX_WORDS:
        return ""
    if kind == ITEMS:
        text = _OWNER_FIRST.sub("", text)
        named = set(name_tokens(_POSSESSIVE.sub("", text))) - set(name_tokens(entry))  # "Kofi's old job" is no one
        if owner and set(name_tokens(owner)) & named:
            return ""
        text = text[0].lower() + text[1:] if text[1:2].islower() else text  # "Ring the lab" -> "ring the lab"
    else:
        text = text[0].upper() + text[1:]
    if (kind == "open_questions") != text.endswith("?"):
        if kind != "open_questions":
            return ""
        text = text.rstrip(".!") + "?"
    said, kept = key_words(text), key_words(entry)
    added = said - kept - _FREE_WORDS  # what it names that the entry did not: the point of restating
    if 2 * len(said & kept) < len(kept) or len(added & heard) < max(1, 2 * len(added - heard)):
        return ""
    return text if kind == "open_questions" else text.rstrip(".")


def owner_of(state: dict[str, Any], kind: str, entry: str) -> str:
    """Who ``state`` gives the task ``entry`` to ("" for a decision or an open question)."""
    items = state.get(ITEMS, []) if kind == ITEMS else []
    return next((item.get("owner", "") for item in items if isinstance(item, dict) and item.get("text") == entry), "")


@dataclass
class Restatements:
    """Which entries were restated, and as what; an entry is tried once (a rejected restatement keeps the
    entry as it was).  :meth:`apply` rewrites a state or a rules' draft, so the rules' "Forty-two" found again
    on the next utterance is the restated decision, not a second one."""

    _done: dict[tuple[str, str], str] = field(default_factory=dict)

    def wanted(self, state: dict[str, Any]) -> list[tuple[str, str]]:
        """(kind, entry) of ``state`` that lean on context and were not tried yet.  An open question asked as a
        question ("Could we get a locum?") is left as it was asked: the model's rewrites of those read worse
        ("What is the status of the locum?"); a fragment ("where we'd put it") is restated, and so is a task that
        points back ("ring them", "chase him")."""
        tasks = [item.get("text") for item in state.get(ITEMS, []) if isinstance(item, dict)]
        return [
            (kind, entry) for kind in KINDS for entry in state.get(kind, [])
            if isinstance(entry, str) and (kind, entry) not in self._done and entry not in self._done.values()
            and leans_on_context(entry) and not (kind == "open_questions" and entry.rstrip().endswith("?"))
        ] + [
            (ITEMS, task) for task in dict.fromkeys(tasks)
            if isinstance(task, str) and (ITEMS, task) not in self._done and task not in self._done.values()
            and _TASK_POINTS_BACK.search(task)
        ]

    def record(self, kind: str, entry: str, restated: str) -> None:
        self._done[(kind, entry)] = restated

    def apply(self, state: dict[str, Any]) -> dict[str, Any]:
        out = dict(state)
        for kind in KINDS:
            if isinstance(state.get(kind), list):
                entries = [
                    (self._done.get((kind, entry)) if isinstance(entry, str) else None) or entry
                    for entry in state[kind]
                ]
                out[kind] = list(dict.fromkeys(entries))
        if isinstance(state.get(ITEMS), list):
            out[ITEMS] = [
                {**item, "text": self._done.get((ITEMS, item.get("text")), "") or item["text"]}
                if isinstance(item, dict) and isinstance(item.get("text"), str) else item
                for item in state[ITEMS]
            ]
        return out
