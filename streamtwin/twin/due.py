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
DUE = re.compile(
    rf"\b(?:(?:by|before|on|until|for)\s+)?(?:the\s+)?("
    rf"(?:next\s+|this\s+)?{DAY}(?:\s+(?:morning|afternoon|evening))?"
    rf"|tomorrow(?:\s+(?:morning|afternoon|evening))?|today|tonight|this\s+(?:morning|afternoon|evening)"
    rf"|next\s+week|this\s+week|next\s+month|q[1-4]|(?:the\s+)?end\s+of\s+(?:the\s+)?(?:quarter|year|day)"
    rf"|in\s+(?:a|one|two|three|four|\d+)\s+(?:days?|weeks?)"
    rf"|(?:the\s+)?end\s+of\s+(?:the\s+)?(?:week|month|{MONTH})"
    rf"|within\s+(?:one|a|two|\d+)\s+(?:days?|weeks?)"
    rf"|{ORDINAL}\s+of\s+{MONTH}|{MONTH}\s+\d{{1,2}}(?:st|nd|rd|th)?"
    rf")\b",
    re.IGNORECASE,
)
DATE = re.compile(rf"\b({DAY}|{ORDINAL}|{MONTH})\b", re.IGNORECASE)
NOT_DATE = re.compile(rf"\bnot\s+(?:on\s+|the\s+)?({DAY}|{ORDINAL}|{MONTH})\b", re.IGNORECASE)


def says_when(text: str) -> bool:
    """Does the text name a day, a date or a deadline ("on Monday", "by the 19th of May")?"""
    return bool(DUE.search(text))


def task_and_due(task: str) -> tuple[str, str]:
    """A task's words and its due date: "fix the bug by Friday, please" -> ("fix the bug", "Friday")."""
    due_match = DUE.search(task)
    due = due_match.group(1) if due_match else ""
    text = DUE.sub("", task) if due else task
    text = re.sub(r"\b(?:please|yes|sure|okay)\b,?", "", text, flags=re.IGNORECASE)
    text = " ".join(text.strip(" ,.?!").split())
    return text, due
