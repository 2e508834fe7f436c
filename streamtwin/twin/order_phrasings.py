"""How an order to someone is said, and what only looks like one: the name-first and name-last orders ("Tom,
fix the rota.", "Book the room for Tuesday, Lena."), with their asides ("Ana, if you can, call ..."), a "you"
("Tom, you take the minutes.") or a tag ("..., right?"); remarks ("Tom, great point."), pleasantries ("Have a good
weekend, Tom."), lists and what is wanted for the moment ("can you see my screen?") are no orders.  Read by the
rules' draft (:mod:`streamtwin.twin.extract`); the rest of its grammar is :mod:`streamtwin.twin.phrasings`.

Plain module: no I/O, no clock.
"""

from __future__ import annotations

import re

from streamtwin.twin.phrasings import LEAD, NAME, TASK_VERBS, opens_with_task_verb

# "<Name>, fix the rota this afternoon.": an imperative after the name (a statement, not a question).
IMPERATIVE = re.compile(rf"^{LEAD}(?P<name>{NAME}),\s+(?P<task>[a-z][^?]*)[.!]?$")
# "Then send me the course link by Friday, Oluwaseun.": the order first, the name last.
LATE_IMPERATIVE = re.compile(rf"^(?:(?i:then|so|and|now|also|okay|ok)[,]?\s+)?(?P<task>[A-Za-z][^?]*?),\s+"
                             rf"(?P<name>{NAME})[.!]$")

# Said in parting or in praise, or of oneself, not an order: "Have a good weekend, Tom.", "Great work on the demo,
# Tom.", "Let me check that, Tom." (but "Let me know by Friday, Tom." is one).
PLEASANTRY = re.compile(r"^(?:have (?:a|an|fun)|enjoy|take care|see you|talk (?:soon|later)|get well|safe travels|"
                        r"sleep well|good luck|keep it up|(?:great|good|nice|excellent) (?:work|job|point|to)|"
                        r"well done|"
                        r"let me\b(?! know))", re.IGNORECASE)
# Words that start a remark to someone, not an order ("Tom, great point.", "Anna, the results are in.").
NOT_VERBS = frozenset(
    """a an the this that these those it it's its there here i i'm we we're you you're your he she they my our
    you've you'd i've i'd we've we'd they've they'd he's she's he'd she'd
    that's there's here's what's who's let's
    his her their good great nice well welcome thanks thank sorry congratulations exactly right yes no okay ok
    of sure absolutely maybe perhaps what how who why when where which if as so and but or just also really
    excellent perfect fine not never always still already all everyone everybody off """
    # An order never opens with a preposition or a conjunction: "Carried, with the chair abstaining.", "Callum,
    # before you go ...".
    """with without on in at for from by about into onto after before under over per like than via across around
    through during until till since near between among against because unless while though although """
    # ... nor with a time or a count: "Mrs Obi, last Friday.", "Kenji, two more letters."
    """last next previous every each one two three four five six seven eight nine ten twenty thirty forty fifty
    hundred""".split()
)
# Nor with a comparative, a participle or a past tense, however a name before it looks: "Cheaper, easier to carry.",
# "Northfield, starting Monday, ...", "Harbour Road, finished last week." ("bring", "swing", "need" are orders).
_NOT_AN_ORDER = re.compile(r"^(?:\w+ier|(?!(?:string|spring)\b)\w{3,}ing|\w{3,}(?<!e)ed)\b", re.IGNORECASE)
# "Tom, you take the minutes.": an order may name its doer again (not "you look tired", "you keep saying that").
_YOU_ORDER = re.compile(r"^you\s+(?=(?P<verb>\w+)\b)", re.IGNORECASE)
# "..., yeah?", "..., right?": a tag that asks for a yes turns no order into a question.
_TAG_QUESTION = re.compile(r",\s+(?:yeah|yes|right|okay|ok|alright|all right|yep)\?$", re.IGNORECASE)


def without_tag(sentence: str) -> str:
    """ "Dana, you order the cake, right?" -> "Dana, you order the cake." """
    return _TAG_QUESTION.sub(".", sentence)


def without_you(order: str) -> str:
    """ "you take the minutes" -> "take the minutes", when a verb of tasks follows the "you"."""
    you = _YOU_ORDER.match(order)
    if you and you.group("verb").lower() in TASK_VERBS - {"look", "keep", "let"}:
        return order[you.end():]
    return order


# An aside before the order: "Yusuf, since you asked, please bring ...", "Ana, if you can, call ...".
_ASIDE = re.compile(r"^(?:since|as|because|now that|if|when|whenever|while|before|after|once|until|first thing|"
                    r"tomorrow|today|tonight|this (?:morning|afternoon|evening|week))\b[^,]*,\s*(?:please\s+)?",
                    re.IGNORECASE)


def without_aside(task: str) -> str:
    """The order itself: "since you asked, please bring the tables" -> "bring the tables", "before you leave, lock
    the door" -> "lock the door"."""
    return _ASIDE.sub("", task, count=1)


# What is asked for the moment, not a task: "can you see my screen?", "could you repeat that?".
IN_THE_MOMENT = re.compile(
    r"^(?:see|hear|repeat|say that|speak|explain|sit|stand|have a seat|take a seat|come in|relax|calm down|"
    r"tell (?:me|us)\b|go (?:ahead|first|on)\b|introduce yourself|"
    r"share your screen|unmute|mute|wait|hold on|give (?:me|us) a (?:second|minute|moment)|help (?:me|us)\W*$|"
    r"remind me what|"
    # the body and the room, now: "Blue Watch, settle down.", "Sunita, go back to bed.", "Gather round."
    r"settle down|quiet down|keep it down|shut up|hurry up|gather round|listen up|go (?:back )?(?:to bed|home)\b|"
    r"(?:have|get) some (?:sleep|rest)\b|"
    # a thought, not a task: "I'll think about it.", "Let me sleep on it."
    r"think (?:about|it over)|have a think|sleep on it|mull (?:it|that) over|know\b|understand\b|believe\b|"
    # a thing handed across the room: "Can you pass me that rag?", "Hand me those pliers."
    r"(?:pass|hand) (?:me|us)\b)",
    re.IGNORECASE,
)


def imperative(task: str) -> bool:
    """Does ``task`` start with an order ("fix the rota ...") rather than a remark ("great point") or a list ("bread,
    milk, the papers": a word on its own before a comma is an item, unless it is a verb of tasks or an order
    follows it, as in "tomorrow, send the deck")?"""
    words = task.split()
    if len(words) < 2 or words[0].lower().strip(",.") in NOT_VERBS or _NOT_AN_ORDER.match(words[0]):
        return False
    listed = words[0].endswith(",") and words[0].lower().strip(",") not in TASK_VERBS
    return not listed or opens_with_task_verb(" ".join(words[1:]))


def in_the_moment(task: str) -> bool:
    """A request for now, not a task: "see my screen", "repeat that", "tell me more"."""
    return bool(IN_THE_MOMENT.match(task.strip()))
