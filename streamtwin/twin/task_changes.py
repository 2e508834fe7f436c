"""What later statements do to tasks already given: said again with someone else doing it, called off, moved to
another day, turned down by their owner, their day corrected.

The rules' draft (:mod:`streamtwin.twin.extract`) finds tasks; these functions read a sentence against the tasks
found so far and change them in place (each change remembered on the task, so a model that kept the old value can
be told the news), or say which remain.  Who speaks and who is who stay the extractor's.

Plain functions: no I/O, no clock.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from streamtwin.twin import change_phrasings as change_say
from streamtwin.twin import phrasings as say
from streamtwin.twin.due import DATE, NOT_DATE, task_and_due
from streamtwin.twin.heard import jaccard, key_words, overlap


@dataclass
class Task:
    text: str
    owner: str
    due: str
    heard: int  # the utterance it came from
    said_first_person: bool = False  # "I will ...": the owner is a guess a "thank you, <name>" overrides
    replaced: list[tuple[str, str]] = field(default_factory=list)  # (field, value) a later statement replaced

    def change(self, name: str, value: str) -> None:
        """A later statement says ``name`` (owner or due) is ``value`` now; the old value is remembered."""
        old = getattr(self, name)
        if old and old.lower() != value.lower():
            self.replaced.append((name, old))
        setattr(self, name, value)


def restated(tasks: list[Task], sentence: str) -> tuple[Task, str] | None:
    """A task already given, said again with another person doing it, is theirs now ("Change of plan: Dev drafts
    the agenda."): the task and its new owner, or None.  Not a report of what was done ("Ben sent the invoice
    yesterday.")."""
    match = say.RESTATED.search(sentence)
    found = say.names([match.group("name")]) if match else []
    if not found or say.PAST.search(match.group("task")):
        return None
    words = key_words(task_and_due(match.group("task"))[0])
    task = next((task for task in reversed(tasks) if jaccard(key_words(task.text), words) >= 0.6), None)
    if task is None or task.owner == found[0]:
        return None
    task.change("owner", found[0])
    task.said_first_person = False
    return task, found[0]


def called_off(tasks: list[Task], sentence: str) -> list[Task] | None:
    """"Forget the bus.", "No need to call them.", "The minibus is off.": the tasks that remain, or None when the
    sentence calls off none of them."""
    match = change_say.CALLED_OFF.search(sentence)
    if not match:
        return None
    words = key_words(next((g for g in match.group("what", "task", "thing", "unneeded") if g), ""))
    kept = [task for task in tasks if overlap(key_words(task.text), words) < 0.5]
    return kept if len(kept) < len(tasks) else None


def due_moved(tasks: list[Task], sentence: str, utterance: int) -> bool:
    """"Actually, make that Thursday.", "Let's push the invoice to next week.": the task it names (else the newest,
    if said in the last two utterances) is due then."""
    moved = change_say.DUE_MOVED.search(sentence)
    due = task_and_due(moved.group("rest") or moved.group("first"))[1] if moved else ""
    if not due or not tasks:
        return False
    what = key_words(next((g for g in moved.group("what", "waits", "deadline", "instead", "now", "better") if g), ""))
    named = [task for task in tasks if what & key_words(task.text)]
    task = named[-1] if named else tasks[-1]
    if (what and not named) or (not what and task.heard < utterance - 2):
        return False  # "Let's move the meeting to Thursday.": no task of ours; nor "make that Thursday" much later
    task.change("due", due)
    return True


def declined(tasks: list[Task], sentence: str, speaker: str, utterance: int) -> Task | None:
    """"Tom, can you book the hotel?" - "Sorry, I can't this week.": the task, now without an owner, or None."""
    last = tasks[-1] if tasks else None
    if last is None or not change_say.DECLINED.match(sentence) or last.heard < utterance - 2 \
            or not last.owner or last.owner != speaker:
        return None
    last.change("owner", "")
    return last


def corrected_due(tasks: list[Task], sentence: str) -> None:
    """"No, Friday, not Thursday." / "the 19th of May, not the 12th": the newest task with the old day takes the
    new one."""
    wrong = NOT_DATE.search(sentence)
    if not wrong:
        return
    old = wrong.group(1).lower()
    new = next((v.group(1) for v in DATE.finditer(sentence) if v.group(1).lower() != old), None)
    if new is None:
        return
    for task in reversed(tasks):
        if old in task.due.lower():
            task.change("due", re.sub(re.escape(old), new, task.due, flags=re.IGNORECASE))
            return


# A later day asked for ("Could I have until Monday?", "Would Tuesday the 14th be okay?") and a reply that grants it
# ("Monday's fine.", "Sure.").
_ASKS_FOR_A_DAY = re.compile(r"^(?:[^?]*[.,]\s+)?(?:could|can|would|may|is)\b[^?]*\?$", re.IGNORECASE)
_THE_DAY_ASKED = re.compile(r"(?:\s+(?:be\s+(?:ok|okay|alright|fine|all right)|work|instead|then|please))*\s*\?$",
                            re.IGNORECASE)
_GRANTED = re.compile(r"^(?:(?:sure|yes|yeah|yep|fine|ok|okay|of course|no problem|that works|that's fine)\b|"
                      r"[^,.?]{1,40}(?:\s+is|'s)\s+(?:fine|ok|okay|good|alright|all right)\b)", re.IGNORECASE)


def day_asked_for(tasks: list[Task], sentence: str, speaker: str, utterance: int) -> tuple[Task, str] | None:
    """The task of ``speaker``'s given in the last two utterances and the later day they ask for, or None."""
    found = DATE.search(sentence)
    if not speaker or not found or not _ASKS_FOR_A_DAY.match(sentence):
        return None
    task = next((t for t in reversed(tasks) if t.owner == speaker and t.heard >= utterance - 2), None)
    start = found.start() - 4 if sentence[: found.start()].lower().endswith("the ") else found.start()
    day = _THE_DAY_ASKED.sub("", sentence[start:]).strip(" ,.")
    return (task, day) if task is not None and day else None


def granted(sentence: str) -> bool:
    return bool(_GRANTED.match(sentence))
