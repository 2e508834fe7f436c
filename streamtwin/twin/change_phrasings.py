"""How people change a task already given: hand it on, take it over, move its day, turn it down, call it off.

The grammar :mod:`streamtwin.twin.task_changes` and the rule extractor (:mod:`streamtwin.twin.extract`) read later
statements with; who is asked for what is :mod:`streamtwin.twin.phrasings`.  General English, not the sentences of
any evaluation set.

Plain module: no I/O, no clock.
"""

from __future__ import annotations

import re

from streamtwin.twin.phrasings import LEAD, NAME

# The task of a reassignment: "take that", "do it", "handle this", "own that"...
TAKES_IT_OVER = re.compile(r"^(?:do|does|take|takes|handle|handles|own|owns|cover|covers)\s+(?:that|it|this)\b",
                           re.IGNORECASE)
# A due date moved: "Actually, make that Thursday.", "Let's push the invoice to next week.", "The report can wait
# until Friday.", "The deadline for the hotel moved to Tuesday."  ``what`` names the task, if the sentence does.
DUE_MOVED = re.compile(
    r"(?:^(?:(?:actually|no|okay|ok|sorry|wait|so|let's|oh)[,.]?\s+)*make (?:that|it)|"
    r"(?:push|move|postpone|delay|shift|bring)\s+(?:it|that|this|the\s+(?P<what>[\w\s-]+?))"
    r"(?:\s+(?:back|forward|out))?\s+(?:to|until|till)|(?:it|that|this|the\s+(?P<waits>[\w\s-]+?))\s+can wait\s+"
    r"(?:until|till)|(?:the\s+)?deadline(?:\s+for\s+(?:the\s+)?(?P<deadline>[\w\s-]+?))?\s+(?:is now|has moved|"
    r"has changed|moved|moves|changed|changes|is)(?:\s+to)?|"
    # "Can you do the minibus on Thursday instead?", "The minibus is for Tuesday now."
    r"(?:do|have|get)\s+(?:it|that|this|the\s+(?P<instead>[\w\s-]+?))(?=\s+(?:on|by|for)\s+[^?]+?\s+instead\b)|"
    r"\bthe\s+(?P<now>[\w\s-]+?)\s+is(?:\s+now)?(?=\s+(?:on|for)\s+[^?]+?\s+(?:now|instead)\b))"
    r"\s+(?P<rest>.+)"
    # "Ben, Wednesday works better for the minibus.": the day first.
    r"|(?P<first>\b[A-Z]\w+(?:\s+\w+)?)\s+(?:works|suits (?:me|us)|would work) better\s+for\s+(?:the\s+)?"
    r"(?P<better>[\w\s-]+?)[.!]?$", re.IGNORECASE)
# The owner turning a task down: "Sorry, I can't this week.", "I won't be able to." (not "I can't make Monday, but
# Wednesday works": that offers another day).
DECLINED = re.compile(r"^(?:(?:sorry|no|unfortunately|oh)[,.]?\s+)*(?:i can't|i cannot|i won't be able to|"
                      r"i'm not able to|i am not able to|i don't have time|i'm away|i am away)"
                      r"(?!\s+(?:hear|see|find|remember|believe|wait|say|tell|promise))\b(?![^.!?]*\bbut\b)",
                      re.IGNORECASE)
_I_TAKE = rf"^{LEAD}(?i:let me|i'll|i will|i can)\s+(?i:take|do|handle|cover|own|pick up)\s+"
# "Actually, let me take that one instead.", "I'll do that instead.": the newest task moves to the speaker.
I_TAKE_IT_OVER = re.compile(_I_TAKE + r"(?i:that|it|this)(?:\s+one)?(?:\s+over)?\s+(?i:instead|myself|then)\b")
# "I'll take the rota, I wrote it.": a task just given to someone else, taken by its name.
I_TAKE_THE = re.compile(_I_TAKE + r"(?P<what>(?i:the)\s+[^,.?!]+)")
HAND_TO = re.compile(rf"\b(?i:hand|give|pass|move|switch|reassign)\s+(?i:that|it|this)(?:\s+(?i:over))?\s+(?i:to)\s+"
                     rf"(?P<name>{NAME})")
# "Forget the bus.", "Cancel the booking.", "No need to call them any more."
CALLED_OFF = re.compile(
    r"(?<!don't )(?<!do not )(?<!not )\b(?:forget(?: about)?|cancel|scrap|never mind(?: about)?|skip|scratch(?! that\b)|"
    r"hold off on|(?:don't|do not) bother with|no need for|(?:we|you) (?:don't|do not|no longer) need(?! to\b))"
    r"\s+(?P<what>.+)"
    r"|\b(?:no need to|we don't need to|we do not need to|you don't need to|you do not need to|let's not|"
    r"let us not)\s+(?!forget\b|worry\b|panic\b|rush\b)(?P<task>.+)"
    # "The minibus is off.", "The minibus isn't needed any more."
    r"|^(?:(?:so|okay|ok|right|actually)[,]?\s+)?(?P<thing>(?:the|our)\s+[^,]+?)\s+(?:is|are)\s+(?:off|no longer needed|"
    r"not needed)\b|^(?:(?:so|okay|ok|right|actually)[,]?\s+)?(?P<unneeded>(?:the|our)\s+[^,]+?)\s+(?:isn't|aren't)\s+"
    r"needed\b",
    re.IGNORECASE,
)
