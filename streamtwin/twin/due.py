"""Due dates as people say them: "by Friday", "next week", "the 19th of May", "within one week".

Shared by the rules' draft (:mod:`streamtwin.twin.extract`: an item's due date, "No, Friday, not Thursday") and
the answers (:mod:`streamtwin.assistant.answers`: a "when" question wants the line that names a day).

Plain module: no I/O, no clock.
"""

from __future__ import annotations

import re

DAY = r"(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)"
MONTH = r"(?:january|february|march|april|may|june|july|august|september|october|november|december)"
ORDINAL = r"(?:\d{1,2}(?:st|nd|rd|th)|first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth|thirteenth|fourteenth|fifteenth|sixteenth|seventeenth|eighteenth|nineteenth|twentieth|thirtieth)"
_NOON = r"(?:noon|midday|lunchtime)"
DUE = re.compile(
    rf"\b(?:(?P<by>by|before|until|no later than)\s+|(?:on|for|at|over|during)\s+)?(?:the\s+)?("
    rf"{_NOON}(?:\s+(?:tomorrow|today|on\s+{DAY}|{DAY}))?"
    rf"|(?:next\s+|this\s+)?{DAY}(?:,?\s+the\s+{ORDINAL}(?:\s+of\s+{MONTH})?)?"
    rf"(?:\s+(?:morning|afternoon|evening|at\s+{_NOON}))?"
    rf"|tomorrow(?:\s+(?:morning|afternoon|evening|at\s+{_NOON}))?|today|tonight|this\s+(?:morning|afternoon|evening)"
    rf"|(?:next|this)\s+(?:week|weekend|month|quarter)|the\s+weekend|q[1-4]|(?:the\s+)?end\s+of\s+(?:the\s+)?(?:quarter|year|day)"
    rf"|in\s+(?:a|one|two|three|four|\d+)\s+(?:days?|weeks?)"
    rf"|(?:the\s+)?end\s+of\s+(?:the\s+)?(?:week|month|{MONTH})"
    rf"|within\s+(?:one|a|two|\d+)\s+(?:days?|weeks?)"
    rf"|{ORDINAL}\s+of\s+{MONTH}|{MONTH}\s+\d{{1,2}}(?:st|nd|rd|th)?"
    rf"|(?:(?<=by the )|(?<=before the )|(?<=until the )){ORDINAL}(?![ \t]+[a-z])"  # "by the 19th", not "half"
    rf"|(?:(?<=by )|(?<=before )|(?<=until )){MONTH}(?![ \t]+[a-z])"  # "before March", not "by March's report"
    rf")\b",
    re.IGNORECASE,
)
# "to", "onto", "into" just before a day: the day is where something goes ("swap onto Sunday morning").
_MOVED_TO = re.compile(r"\b(?:to|onto|into)\s+$", re.IGNORECASE)
DATE = re.compile(rf"\b({DAY}|{ORDINAL}|{MONTH})\b", re.IGNORECASE)
NOT_DATE = re.compile(rf"\bnot\s+(?:on\s+|the\s+)?({DAY}|{ORDINAL}|{MONTH})\b", re.IGNORECASE)


def says_when(text: str) -> bool:
    """Does the text name a day, a date or a deadline ("on Monday", "by the 19th of May")?"""
    return bool(DUE.search(text))


def task_and_due(task: str) -> tuple[str, str]:
    """A task's words and its due date: "fix the bug by Friday, please" -> ("fix the bug", "Friday").

    A deadline ("by", "before", "until") wins over a day the task is about: "confirm the pump truck for Thursday by
    noon tomorrow" is due at noon tomorrow, and keeps its "for Thursday".  A day something is moved to is what the
    task is about, not when it is due: "move the meeting to Friday" keeps its words and has no due date."""
    found = [m for m in DUE.finditer(task) if not _MOVED_TO.search(task, 0, m.start())]
    due_match = next((m for m in found if m.group("by")), found[0] if found else None)
    due = due_match.group(2) if due_match else ""
    # What the task is about stays in its words: another day beside a deadline, "Saturday's field trip".
    cut = [m for m in found if not task.startswith("'s", m.end())]
    if due_match is not None and due_match.group("by"):
        cut = [due_match]
    text = task
    for match in reversed(cut):
        text = text[: match.start()] + text[match.end() :]
    text = re.sub(r"\b(?:please|yes|(?<!make )sure|okay|instead)\b,?", "", text, flags=re.IGNORECASE)
    text = " ".join(text.strip(" ,.?!").split())
    return text, due
