"""How meetings say what they left open: the open-question grammar :mod:`streamtwin.twin.outcomes` reads.

Questions left open in so many words ("We don't know yet whether ...", "The venue hasn't been decided yet."), put
off ("Let's park the pricing question."), or asked and answered with nothing that settles them ("Who pays for the
fence?" - "No idea, honestly.").  General English, not the sentences of any evaluation set.

Plain module: no I/O, no clock.
"""

from __future__ import annotations

import re

from streamtwin.twin.decision_phrasings import POINTS_BACK

_ASKS = r"(?:whether|if|how|what|who|when|where|which|why)"
OPEN = re.compile(r"\bopen question\b", re.IGNORECASE)
# "One open question is when ...", "Another question is whether ...": the question itself follows.
WHETHER = re.compile(r"\b(?:open question(?: is)?|question is) (?:whether|if|how|what|who|when|where|which)\b"
                     r"\s*(?P<what>.+)",
                     re.IGNORECASE)
# A question left open without the word: "The budget is still up in the air.", "We still need to figure out
# how ...", "We don't know yet whether ...", "We haven't decided where ...".
_THE_MATTER = r"^(?:so,?\s+|and\s+|but\s+)?(?P<what>.+?)"  # what is left open, said first
UNSETTLED = (
    # "The budget is still open.", "... is still an open question.", "The catering is still a big question mark.",
    # "The date for the move is yet to be decided."
    re.compile(_THE_MATTER + r"(?:\s+is|\s+are|'s|'re)\s+(?:still\s+(?:open|undecided|unclear|up in the air|"
               r"to be decided|unresolved)|(?:still\s+)?(?:an open (?:question|point|issue)|a\s+(?:big\s+|bit of a\s+)?"
               r"question mark|yet to be (?:decided|settled|agreed|confirmed|finali[sz]ed)|anyone's guess|"
               r"(?:a\s+(?:bit of\s+)?)?(?:a\s+)?gr[ae]y area))\b",
               re.IGNORECASE),
    # "The venue hasn't been decided yet.", "The date isn't settled yet."
    re.compile(_THE_MATTER + r"\s+(?:(?:hasn't|has not|haven't|have not)\s+been|"
               r"(?:isn't|is not|aren't|are not)(?=\s+\w+(?:\s+on)?\s+yet\b))\s+(?:decided|settled|agreed|confirmed|"
               r"finali[sz]ed)\b", re.IGNORECASE),
    # "I don't have an answer yet on the shipping costs."
    re.compile(r"\b(?:i|we)\s+(?:still\s+)?(?:don't have|do not have|haven't got|have not got|haven't had|have no)\s+"
               r"(?:an?\s+)?answers?\s+(?:yet\s+)?(?:on|about|for|to)\s+"
               r"(?P<what>.+)", re.IGNORECASE),
    re.compile(_THE_MATTER + r"\s+(?:still\s+)?remains?\s+(?:open|unresolved|unclear|"
               r"undecided|an open (?:question|point|issue))\b", re.IGNORECASE),
    re.compile(r"\b(?:we|i)\s+(?:still\s+)?(?:need|have)\s+to\s+(?:figure out|work out|find out|decide)\s+"
               r"(?:whether\s+|if\s+)?(?P<what>.+)", re.IGNORECASE),
    re.compile(rf"\b(?:(?:we|i)\s+(?:still\s+)?(?:don't|do not)|nobody|no one)\s+(?:yet\s+|really\s+)?knows?\s+"
               rf"(?:yet\s+)?(?={_ASKS}\b)(?!why\s+i\b)(?:whether\s+|if\s+)?(?P<what>.+)",  # not "why I ...": about me
               re.IGNORECASE),
    re.compile(r"\bwe\s+(?:still\s+)?(?:haven't|have not|didn't|did not)\s+(?:yet\s+)?(?:decided|agreed on|settled on|worked out|"
               r"figured out)\s+(?:yet\s+)?(?:whether\s+|if\s+)?(?P<what>.+?)(?:\s+yet)?[.!]?$", re.IGNORECASE),
    re.compile(rf"\b(?:it's|it is)\s+(?:still\s+)?(?:unclear|not clear|not decided|undecided)\s+(?:yet\s+)?"
               rf"(?={_ASKS}\b)(?:whether\s+|if\s+)?(?P<what>.+)", re.IGNORECASE),
    re.compile(rf"\b(?:we're|we are|i'm|i am|nobody is|no one is)\s+(?:still\s+)?(?:not\s+)?(?:sure|certain)\s+"
               rf"(?={_ASKS}\b)(?:whether\s+|if\s+)?(?P<what>.+)", re.IGNORECASE),
    re.compile(r"\bremains to be seen\s+(?:whether\s+|if\s+)?(?P<what>.+)", re.IGNORECASE),
    # "One thing nobody has decided is who signs off the budget."
    re.compile(rf"\b(?:nobody|no one)\s+(?:has\s+)?(?:yet\s+)?(?:answered|decided|settled|worked out|figured out)\s+"
               rf"(?:yet\s+)?is\s+(?P<what>{_ASKS}\b.+)", re.IGNORECASE),
    # "Who signs the letters, we never really settled that."
    re.compile(rf"^(?:so,?\s+|and\s+)?(?P<what>(?:{_ASKS})\b[^,]+),\s+(?:we|nobody|no one)\s+(?:never|haven't|have not|"
               rf"didn't|did not|has not|hasn't)\s+(?:really\s+|actually\s+|yet\s+)?"
               rf"(?:settled|decided|agreed on|sorted|"
               rf"worked out)\s+(?:that|it|this)\b", re.IGNORECASE),
    # "There's still the question of parking."
    re.compile(r"\bthere(?:'s| is)\s+(?:still|also)\s+the\s+(?:open\s+)?(?:question|issue|matter)\s+of\s+"
               r"(?P<what>.+)", re.IGNORECASE),
    # "I'm not sure about the budget for the party yet."
    re.compile(r"\b(?:i'm|i am|we're|we are)\s+(?:still\s+)?not\s+(?:sure|certain|clear)\s+(?:yet\s+)?about\s+"
               r"(?P<what>.+?)(?:\s+yet)?[.!]?$", re.IGNORECASE),
    # "It depends on whether the council says yes."
    re.compile(r"^(?:well,?\s+|so,?\s+)?(?:it|that|this)\s+(?:all\s+)?depends\s+on\s+(?P<what>(?:whether|if|what|"
               r"how|who|when)\b.+)", re.IGNORECASE),
    # "The venue is still TBD.", "The budget is pending.", "The rota is on hold until ...".
    re.compile(_THE_MATTER + r"(?:\s+is|\s+are|'s)\s+(?:still\s+)?(?:tbd|tbc|to be "
               r"confirmed|to be determined|pending|on hold)\b(?=\s*(?:[.!,]|$|for now|until|at the moment))",
               re.IGNORECASE),
    # "We'll have to check with legal whether we can film there.", "I need to find out if the hall is free."
    re.compile(rf"\b(?:we|i)(?:'ll| will)?\s+(?:still\s+)?(?:have|need)\s+to\s+(?:check|ask|confirm)(?:\s+with\s+"
               rf"[\w\s]+?)?\s+(?={_ASKS}\b)(?:whether\s+|if\s+)?(?P<what>.+)", re.IGNORECASE),
    # "Whether we get the grant depends on the council."
    re.compile(rf"^(?:so,?\s+|and\s+|but\s+)?(?P<what>(?:{_ASKS})\b.+?)\s+(?:still\s+)?depends on\b", re.IGNORECASE),
    re.compile(r"\bstill no (?:decision|answer|agreement|word)\s+(?:on|about|yet on)\s+(?P<what>.+)", re.IGNORECASE),
    # "The landlord will decide about the parking next week.": left to someone, so open until then.
    re.compile(r"\b(?:will|'ll|needs? to|has to|is going to|are going to)\s+decide\s+"
               r"(?:about\s+|on\s+|whether\s+|if\s+)?(?P<what>.+?)"
               r"(?:,?\s+(?:and|later|tomorrow|next|by|on|at|after|once|when)\b.*)?[.!]?$", re.IGNORECASE),
    # The answer to a question about what was decided: "Not yet, nothing is decided." (the question before).
    re.compile(r"(?P<what>)\b(?:nothing(?:'s| is| has been)\s+(?:decided|settled|agreed|final)|"
               r"(?:it's|it is|that's|that is)\s+not\s+(?:decided|settled|agreed|final)|"
               r"not\s+(?:decided|settled|agreed)\s+yet|no decision yet)\b",
               re.IGNORECASE),
)
# A reply that nobody knows the answer: "Who pays for the fence?" - "No idea, honestly." (the question before is open).
NOBODY_KNOWS = re.compile(
    r"^(?:(?:well|hmm|honestly|um|so|sorry|yeah|to be honest|good question)[,.]?\s+)*(?:(?:i\s+)?(?:really\s+|"
    r"honestly\s+|genuinely\s+)?(?:don't|do not) know|dunno|maybe|(?:i have\s+)?no idea|(?:i'm|i am)\s+not sure|"
    r"not sure|hard to say|"
    r"nobody knows|(?:nobody|no one)(?:'s| is)\s+(?:really\s+)?sure|"
    r"no one knows|we (?:don't|do not) know|(?:that's|that is) (?:still )?(?:unclear|not clear)|no clue|"
    r"good question(?:,?\s+(?:let's|we'll) see)?|(?:let's|we'll) see|who knows|your guess is as good as mine)"
    r"(?:\s+yet)?(?:,?\s+(?:honestly|to be honest|really|either|yet))?[.!]*$", re.IGNORECASE)
# A reply that does not know, or will not settle, among other words: "Good point, and I honestly don't know yet.",
# "No idea, nobody has told us.", "We're not going to settle that today.", "I haven't heard anything from the
# council." (not "I don't know him", "I don't know why I volunteered": a knowing about something else).
UNANSWERED = re.compile(
    r"\b(?:(?:i|we)\s+(?:really\s+|honestly\s+|just\s+|still\s+|genuinely\s+)?(?:don't|do not|didn't|did not)\s+know"
    r"(?=\s*(?:[,.!;]|$|(?:yet|for sure|either|honestly|to be honest|about\s+(?:that|this|it))\b))|"
    r"\bno idea\b|\bcould be\b[^,.;]*[,;]\s*(?:or\s+)?(?:it\s+)?could be\b|^(?:\w+,\s+)?not sure\b|"
    r"(?:nobody|no one)\s+(?:has\s+|have\s+)?(?:told|given|said|confirmed|heard)\b|"
    r"(?:i|we)\s+(?:haven't|have not|hadn't)\s+heard\b|"
    # someone else decides, or has not yet: "That's above me, ops decide that.", "That's Carla's call.", "The
    # commander hasn't signed it off.", "I can't put a date on it."
    r"\b(?:that's|that is|it's|it is)\s+(?:above|beyond)\s+(?:me|my pay grade)\b|"
    r"\b(?:that's|that is|it's|it is)\s+(?:[A-Z]\w+'s|his|her|their|management's|the \w+'s)\s+call\b|"
    r"\b(?:hasn't|haven't|has not|have not)\s+(?:yet\s+)?(?:signed (?:it|that|this) off|signed off|approved|"
    r"okayed)\b|"
    r"\bcan't put a date on\b|"
    r"(?:not going to|won't|will not|can't|cannot)\s+(?:settle|decide|sort out|resolve|answer)\s+(?:that|this|it)\b|"
    r"(?:don't|do not)\s+want\s+to\s+commit\s+to\s+(?:that|this|it)\b|let's not commit\b|"
    r"let's\s+(?:park|leave)\s+(?:it|that|this)(?:\s+one)?\b|"
    # "Still up in the air.", "Still TBC, we're waiting on the hall.", "That's above my pay grade.", "Nobody's decided
    # that.", "Let me get back to you on that.", "I'm not sure it's been given to anyone.", "Let's hold off until ..."
    r"^(?:\w+[,.]\s+)*(?:(?:it's|that's|it is|that is)\s+)?(?:still\s+)?(?:up in the air|tbc|tbd|to be confirmed|"
    r"undecided|anyone's guess)\b|above my pay grade|"
    r"(?:nobody|no one)(?:'s| has)\s+(?:really\s+)?(?:decided|settled|sorted out|worked out|agreed)"
    r"(?:\s+(?:that|it|this))?"
    r"(?:\s+yet)?"
    r"(?=\s*(?:[,.!]|$))|get back to you\b|^(?:\w+[,.]\s+)*(?:i'm|i am)\s+not\s+(?:sure|certain)\s+(?:it's|it has|"
    r"that's|anyone|anybody|we|they)\b|(?:let's|we'll|we should)\s+hold off\b|(?:let's|we'll) sleep on it\b|"
    r"(?:we'll|we will|we)\s+(?:need|have)\s+to\s+(?:pick|come back to|revisit)\s+(?:that|it|this)\b|"
    # "We'll have to think about it.", "I can see both sides.", "Chef hasn't said.", "That's the million-dollar
    # question.", "I'm waiting to hear from the council.", "We're not going to agree on it today."
    r"(?:have|need)\s+to\s+think\s+about\s+(?:it|that|this)\b|(?:i'll|i will|let me)\s+think\s+about\s+(?:it|that)\b|"
    r"\bboth sides\b|(?:hasn't|has not|haven't|have not)\s+(?:said|decided|confirmed|told us|got back(?: to us)?)\b|"
    r"(?:that's|that is|it's|it is)\s+the\s+(?:million[- ]dollar|big|real|hundred[- ]dollar)\s+question|"
    r"waiting\s+to\s+hear\b|(?:nobody|no one)\s+knows\b|"
    r"(?:not going to|won't|will not|can't|cannot)\s+agree\s+on\s+(?:that|this|it)\b|"
    r"put\s+(?:it|that|this)\s+on\s+(?:the|next\s+\w+'s|\w+'s)\s+agenda|"
    r"(?:i'd|i would|we'd|we should)\s+hold off\b)", re.IGNORECASE)
# "It depends on how December goes." right after a question: the question is open (said alone: what it depends on).
DEPENDS = re.compile(r"^(?:(?:well|so|hmm|honestly)[,.]?\s+)*(?:(?:it|that|this)\s+(?:all\s+|really\s+)?)?depends\b",
                     re.IGNORECASE)
# A question to the room (not "do you want tea?"): a wh-question, or one about what we or it will do.
TO_THE_ROOM = re.compile(
    r"^(?!assistant\b)(?:(?:so|and|but|okay|ok|then)[,]?\s+)?(?:[A-Z][a-z]+,\s+)?"
    r"(?:or\b|who|what|when|where|which|how|why|whose|the\b|"  # "And the budget for the new microscope?", "Or X?"
    r"(?:should|shall|do|will|can|are|could|would)\s+we|(?:is|are|will|does|can|should|shall|would|could)\s+"
    r"(?:it|there|that|this|the)\b|"
    r"(?:do|does)\s+(?:you|anyone|anybody)\s+know\s+(?:if|whether|when|who|what|where|how)\b)",
    re.IGNORECASE)
# A question for one person's view, not a matter for the room: "What's your gut feeling?", "What do you think?"
ASKS_VIEW = re.compile(r"\byour\s+(?:gut|feeling|view|opinion|take|thoughts?|instinct|sense|guess)\b|"
                       r"\bwhat\s+do\s+you\s+(?:think|reckon|feel)\??$", re.IGNORECASE)
# A question put off for later: "Let's park the question of overtime.", "We'll come back to the seating plan on
# Friday.", "Let's revisit that next week." (a pointer: the question asked just before).  "Park" takes a topic
# only ("let's park the van" is no question).
_TOPIC = (r"(?:(?:the|this|that)\s+(?:\w+\s+)?(?:question|topic|issue|point|matter|discussion|subject)\b.*?"
          r"|it|(?:this|that)(?:\s+one)?)")
DEFERRED = re.compile(
    rf"\b(?:let's|let us|we'll|we will|we can|we should|we need to|(?:i think\s+)?we|i'd like to|i want to|"
    rf"i suggest we)\s+(?:(?:park|table|leave)\s+(?P<topic>{_TOPIC})|"
    r"take\s+(?P<offline>it|this|that|(?:the|this|that)\s+\w+(?:\s+\w+)?)\s+offline|"
    r"(?:come back to|circle back to|circle back on|revisit|pick up)\s+(?P<what>.+?))"
    r"(?:\s+(?:next|later|tomorrow|on|in|at|after|until|when|once|before|for)\b.*)?[.!]?$",
    re.IGNORECASE,
)
# "And should we build it for phones first, or for the web?" right after an open question: one more.
ONE_MORE = re.compile(r"^(?:and|also|or|plus)\b,?\s+(?P<what>.+)\?$", re.IGNORECASE)


def unsettled(sentence: str) -> str | None:
    """What a sentence says is still to be settled, in its own words, or None."""
    for pattern in UNSETTLED:
        match = pattern.search(sentence)
        if match:
            return match.group("what").strip(" .?!,")
    return None


# What a sentence is about, said first: "The second site, I think we park that one."
FRONTED = re.compile(r"^(?P<topic>(?:the|our|this|that)\s+[^,]{3,40}),\s+\w", re.IGNORECASE)


def deferred(sentence: str) -> str | None:
    """What a sentence puts off for later ("Let's park the pricing question."), "" for a pointer to the question
    before, or None."""
    match = DEFERRED.search(sentence)
    if not match or sentence.endswith("?"):
        return None
    what = (match.group("topic") or match.group("offline") or match.group("what") or "").strip(" .!,")
    if not POINTS_BACK.match(what):
        return what
    fronted = FRONTED.match(sentence)
    return fronted.group("topic") if fronted and fronted.end("topic") < match.start() else ""
