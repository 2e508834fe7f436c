"""How meetings say who does what: the grammar the rules' draft (:mod:`streamtwin.twin.extract`) reads.

General English, not the sentences of any evaluation set: a person addressed by name (first or last:
"Ravi, could you ...", "Can you ... by Monday, Ravi?"), asked directly ("please", "can you", "could you",
"I'd like you to", "I need you to"), named as an action item's owner ("Action item for Kim: ...",
"Lee to update ..."), given a task by someone else ("Let's have Ana own ..."), volunteering for what was
asked of anyone ("Can someone ...?" - "I'll do it"), a task handed over ("let Maria take that instead",
"hand that to Bo") or called off ("forget the bus", "no need to ...").  How an order is told from a remark, and
what is asked only for the moment ("can you see my screen?"), is said in :mod:`streamtwin.twin.order_phrasings`;
what a meeting decided and left open in :mod:`streamtwin.twin.decision_phrasings` and
:mod:`streamtwin.twin.open_phrasings`.

Names are words written as names (a capital, any Latin letters: José, Zoë, Łukasz) that are not common
words of conversation (:data:`NOT_NAMES`); the conversation itself says which of them are people.

Plain module: no I/O, no clock.
"""

from __future__ import annotations

import re

# Capitals and small letters of the Latin alphabets (Latin-1 and Latin Extended-A).
_UPPER = "A-ZÀ-ÖØ-ÞĀĂĄĆĈĊČĎĐĒĔĖĘĚĜĞĠĢĤĦĨĪĬĮİĴĶĹĻĽĿŁŃŅŇŊŌŎŐŒŔŖŘŚŜŞŠŢŤŦŨŪŬŮŰŲŴŶŸŹŻŽ"
_LOWER = "a-zß-öø-ÿā-ž"
WORD = rf"[{_UPPER}][{_LOWER}]+(?:[-'][{_UPPER}]?[{_LOWER}]+)?"
NAME = rf"{WORD}(?:\s{WORD})?"
NOT_NAMES = frozenset(
    """assistant okay ok yes yeah no sure thanks thank great good nice right fine hi hello hey well so then and but
    first second third today tomorrow tonight please sorry actually agreed also another one what who how why when
    where which is are can could will would should do does did let we i you he she they it this that the a an
    monday tuesday wednesday thursday friday saturday sunday january february march april may june july august
    september october november december english now just maybe perhaps anyway look see come listen wait alright next
    finally still everyone everybody someone somebody anyone anybody all team guys folks morning afternoon evening
    back time nice hard easy good happy glad ready quick nothing everything something anything this that there
    here it welcome don't doesn't didn't can't won't isn't aren't wasn't couldn't shouldn't wouldn't let's that's
    it's i'm i'll i'd we'll we're they're you're there's here's what's who's """
    # Said first as a sound, a verdict, a link or an oath, never to name anyone: "Oh, can you ...", "Perfect,
    # please send ...", "Otherwise, could you ...", "Jesus, the server is down."; and nobody at all.
    """oh ah uh um er erm hmm mm wow oops ooh yep yup nope nah gotcha cheers cool perfect awesome brilliant
    excellent lovely fantastic super amazing wonderful terrific splendid correct true indeed exactly noted
    understood absolutely definitely totally however meanwhile besides instead plus regardless anyhow otherwise
    anyway though although likewise furthermore moreover lastly secondly thirdly apologies sure fine alright
    nobody none god gosh jesus christ jeez geez blimey damn crikey agree disagree """
    # When, said first: "Yesterday, I fixed the printer.", "Week two, we start the tiling."
    """yesterday week weekend month year day night noon midnight tonight later earlier soon life """
    # ... and said in the plural: "Tuesdays, we open late.", "Move it to Tuesdays?"
    """mondays tuesdays wednesdays thursdays fridays saturdays sundays weekends weeks months years days nights
    mornings afternoons evenings """
    # A filler said first: "Like, properly full."
    """like """
    # A number said first is a price, a count or a vote, never a name: "Sixty, on a two-year lease."
    """two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen
    eighteen nineteen twenty thirty forty fifty sixty seventy eighty ninety hundred thousand million half dozen """
    # Who is spoken to by role, kinship or group, not by name: the voice that answers says who it is.
    """mr mrs ms miss sir madam maam boss mate buddy dude pal doc mum mom dad coach officer nurse chef
    friends ladies gentlemen people class kids children students parents staff crew colleagues partner partners
    marketing sales engineering support legal finance design ops operations management accounting security
    product research""".split()
)
# Adverbs said as a request's first word ("Honestly, can you ...", "Ideally, please ..."): their endings are
# no given name's (Emily, Kelly, Ashley and Stanley end otherwise).
_ADVERB = re.compile(r"^(?:[a-z]{2,}(?:ally|ously|ently|antly|ately|ively|ctly|ibly|ably|fully|ingly|edly|essly|stly|"
                     r"dly|kly|fly|ply|wly|uly|enly|rely|irly|arily|ckily|ppily|asily|rtly|tely|sely)|[a-z]{3,}arly)$")


_TITLES = frozenset({"mr", "mrs", "ms", "miss"})


def common_word(word: str) -> bool:
    """A word of conversation rather than a name, written with a capital or not."""
    lower = word.lower()
    return lower in NOT_NAMES or bool(_ADVERB.match(lower))


# The longest first, so the task starts after all of it ("would you mind | updating ...", not "would you | mind ...").
_ASK = "(?i:" + "|".join(sorted((
    "please", "can you", "could you", "would you", "will you", "you will", "you'll", "can you please", "could you please",
    "i'd like you to", "i would like you to", "i need you to", "i want you to", "would you mind", "i'll need you to",
    "i will need you to", "i'm going to need you to", "(?:it would|it'd) be (?:great|good|helpful|nice) if you could",
    "would it be possible (?:for you )?to", "i was hoping you could", "i wonder if you could",
    "(?:is there )?any chance you could", "(?:could|can) i ask you to", "would you be able to", "are you able to",
    "do you mind(?! if\\b)", "make sure you", "you might want to", "you should", "(?:perhaps|maybe) you could",
    "if you could", "i'd appreciate it if you(?: could)?", "it might be worth", "would you be so kind as to",
), key=len, reverse=True)) + ")"
# Said first, they make what follows imagined, not asked: "Ideally, Ben, repaint the fence.", "Otherwise, Ben, you'd
# have to ...", "In an ideal world ...".
_HEDGES = (r"(?i:ideally|hypothetically|theoretically|in theory|in an ideal world|in a perfect world|otherwise|"
           r"eventually|one day|someday|some day)")
HEDGED = re.compile(rf"^(?:(?i:so|and|but|well|i mean)[,]?\s+)?(?:{_HEDGES}\b|(?i:if i can)\b[^,]*,\s*(?i:yes|sure)\b)")
LEAD = (r"(?:(?i:ok(?:ay)?|great|nice|good|so|and|right|then|yes|now|also|actually|well|oh|in the meantime|"
        r"meanwhile|by the way)[,.!]?\s+)*")

# "<Name>, please fix ...", "<Name>, could you look into ...", "<Name>, I'd like you to draft ...".
# A remark to them may come first: "Omar, you did it last time, can you phone the coach firm?".
REQUEST = re.compile(rf"^{LEAD}(?P<name>{NAME})(?:,\s+[^,?.!]{{3,80}},\s+|,?\s+){_ASK}\s+(?P<task>.+)")
# Verbs that begin a task said before the name ("Book the room for Tuesday, Lena."): that order is only read when
# its first word is one of them, as "Long time no see, Sam." or "Same to you, Sam." begin no task.
TASK_VERBS = frozenset(
    """add ask book bring buy call cancel change chase check clean clear collect confirm contact cover create draft
    drop email file find finish fix follow get give handle hire invite keep let look make move order organise
    organize pay phone pick plan post prepare print put raise read recheck remind renew repair replace reply
    review ring run schedule send set share sign sort speak start submit take talk tell text tidy update upload
    visit write""".split()
)


def opens_with_task_verb(text: str) -> bool:
    """ "fix that board this morning": the words of an order begin with one of :data:`TASK_VERBS`."""
    words = text.split(maxsplit=1)
    return bool(words) and words[0].lower() in TASK_VERBS


# "Can you send me the contract by Monday, Ravi?": the name ends the request.
LATE_REQUEST = re.compile(rf"^{LEAD}{_ASK}\s+(?P<task>.+?),\s+(?P<name>{NAME})[.?!]*$")
# "Action item for Kim: renew the permits." / "Action item: Kim to renew the permits."
ACTION_ITEM_FOR = re.compile(rf"(?i:action items?)\s+(?i:for)\s+(?P<name>{NAME})\s*[:,-]?\s+(?P<task>.+)")
# "Next step: Dev sends the survey." / "To do: Ana to book the hall."
ACTION_ITEM_TO = re.compile(rf"(?i:action items?|next steps?|to-?dos?|follow-?ups?)\s*[:,-]\s*(?P<name>{NAME})\s+"
                            rf"(?:(?i:to|will|should)\s+)?(?P<task>[a-z].+)")
# "Eli, you're in charge of the raffle.", "Carla is responsible for the press release."
IN_CHARGE = re.compile(rf"^{LEAD}(?P<name>{NAME}),?\s+(?i:you're|you are|is|will be)\s+"
                       rf"(?P<task>(?i:in charge of|responsible for)\s+.+)")
# "Ben, the invoice still needs sending (by Friday)": the thing that needs doing, asked of the one addressed.
NEEDS_DOING = re.compile(rf"^{LEAD}(?P<name>{NAME}),\s+(?P<what>(?i:the|our|my|your|this|that|these|those)\s+[^,]+?)"
                         rf"\s+(?i:still\s+)?(?i:needs|need|wants)\s+(?P<verb>[a-z]+ing)\b(?P<rest>[^,?]*)")
# "Scratch that, Carla is ordering the paint.", "Change of plan: Dev drafts the agenda.", "Ben, you collect the
# keys.": a task already given, said again with someone else doing it (read only when it restates one).
RESTATED = re.compile(rf"(?:^|[,:]\s*)(?:(?i:so|then|and|now|okay|ok|fine)[,]?\s+)?(?P<name>{NAME}),?\s+"
                      rf"(?:(?i:is|you|will|can|should|'ll|'s)\s+)?(?P<task>[a-z][^?,:]*?)[.!]?$")
PAST = re.compile(r"\b(?:already|yesterday|last (?:week|night|time|month)|earlier|ago)\b|^\w+ed\b|"
                  r"^(?:sent|did|made|took|wrote|bought|got|gave|told|rang|paid|had|was|were)\b", re.IGNORECASE)
# A task given to or taken by someone named, said of them: "Priya agreed to collect the keys.", "Priya is collecting
# the keys.", "Priya takes the keys.", "Priya has the keys covered.", "The keys are with Priya.", "Priya, the keys
# are yours.", "Priya's on the keys."  (The -ing and -s verbs are :data:`TASK_VERBS`; not what was done or is usual.)
THEIRS = (
    re.compile(rf"^{LEAD}(?P<name>{NAME})\s+(?i:offered|agreed|volunteered|promised|has agreed|said (?:she|he|they)"
               rf"(?:'d| would| will|'ll))\s+(?:to\s+)?(?P<task>[a-z][^?]+?)[.!]?$"),
    re.compile(rf"^{LEAD}(?P<name>{NAME})(?:\s+is|'s)\s+(?P<task>(?P<ing>[a-z]+ing)\s+(?:(?:up|out|over)\s+)?"
               rf"(?:the|our|all|those|these)\s+[^?]+?)[.!]?$"),
    re.compile(rf"^{LEAD}(?P<name>{NAME})\s+(?P<task>(?P<does>[a-z]+s)\s+(?:(?:up|out|over)\s+)?(?:the|our|all|those|"
               rf"these)\s+[^?]+?)[.!]?$"),
    re.compile(rf"^{LEAD}(?P<name>{NAME})\s+has\s+(?P<task>(?:the|our|that|this)\s+[^?,]+?)\s+(?i:covered|in hand|sorted)"
               rf"[.!]?$"),
    re.compile(rf"^{LEAD}(?P<task>(?i:the|our)\s+[^?,]+?)\s+(?i:is|are|goes|go)\s+(?i:with|to)\s+(?P<name>{NAME})[.!]?$"),
    re.compile(rf"^{LEAD}(?P<name>{NAME}),\s+(?P<task>(?i:the|our)\s+[^?,]+?)\s+(?i:is|are)\s+(?i:yours|all yours)[.!]?$"),
    re.compile(rf"^{LEAD}(?P<task>(?i:the|our)\s+[^?,]+?)(?:'s|\s+is|\s+are)\s+(?i:yours|all yours),\s+(?P<name>{NAME})"
               rf"[.!]?$"),
    # "I'll leave the heater with you, Ben.", "Ben, can I leave the heater with you?"
    re.compile(rf"^{LEAD}(?P<name>{NAME}),\s+(?i:i'll|i will|can i|let me|i'm going to)\s+(?i:leave|hand)\s+"
               rf"(?P<task>(?i:the|this|that|our)\s+[^,?]+?)\s+(?i:with|to|over to)\s+you[.?!]*$"),
    re.compile(rf"^{LEAD}(?i:i'll|i will|can i|let me|i'm going to)\s+(?i:leave|hand)\s+(?P<task>(?i:the|this|that|our)"
               rf"\s+[^,?]+?)\s+(?i:with|to|over to)\s+you,\s+(?P<name>{NAME})[.?!]*$"),
    re.compile(rf"^{LEAD}(?P<name>{NAME})(?:'s|,\s+you're|,\s+you are)\s+on\s+(?!(?i:holiday|leave|vacation|annual|sick|"
               rf"a call|the phone|the way|(?:her|his|their|my) way|site|time|board|a break|break|lunch|mute|track|top|"
               rf"the (?:right|wrong) track|the same page|the ball|the mend|"
               # where a thing is, not a duty: "Tin's on the side.", "Keys are on the table."
               rf"the (?:side|table|shelf|shelves|counter|worktop|floor|desk|bench|sideboard|windowsill|fridge|left|"
               rf"right)|"
               rf"fire|it)\b)(?P<task>[^?,]+?)[.!]?$"),
)
_CAN_I_LEAVE = re.compile(r"\bcan i (?:leave|hand)\b", re.IGNORECASE)  # a question that hands a task over
_NOT_NOW_FOR_THEM = re.compile(r"\b(?:always|usually|often|never|every|yesterday|last|ago|already|used to)\b",
                               re.IGNORECASE)


def theirs(sentence: str) -> tuple[str, str] | None:
    """(name, task) of a :data:`THEIRS` phrasing, or None (a verb that makes nothing, or a habit or a past)."""
    if _NOT_NOW_FOR_THEM.search(sentence) or sentence.endswith("?") and not _CAN_I_LEAVE.search(sentence):
        return None
    for pattern in THEIRS:
        match = pattern.match(sentence)
        if not match:
            continue
        found = names([match.group("name")])
        verb = match.groupdict().get("ing") or match.groupdict().get("does")
        if not found or (verb and not _task_verb(verb)):
            continue
        return found[0], match.group("task")
    return None


def _task_verb(word: str) -> bool:
    """Is ``word`` (collecting, takes, writes) a form of one of :data:`TASK_VERBS`?"""
    word = word.lower()
    stems = {word[:-3], word[:-3] + "e", word[:-4]} if word.endswith("ing") else {word[:-1], word[:-2]}
    return bool(stems & (TASK_VERBS | {"do", "own"}))


# "Can Eli book the van?": a request about someone present (its verb one of :data:`TASK_VERBS`).
CAN_THEY = re.compile(rf"^{LEAD}(?i:can|could|will|would)\s+(?P<name>{NAME})\s+(?P<task>[a-z][^?]+)\?$")
# "Lee to update the budget by Q3." (minutes style): a known person, or a task with a deadline.
NAME_TO = re.compile(rf"^{LEAD}(?P<name>{NAME})\s+to\s+(?P<task>[a-z].+)")
# "Let's have Ana own the rollout." / "Let Maria take that instead." / "Let's ask Bo to call them."
LETS_HAVE = re.compile(
    rf"\b(?i:let's|let us|let)\s+(?:(?i:have|get|ask)\s+)?(?P<name>{NAME})\s+(?:to\s+)?(?P<task>[a-z].+)"
)
# "<Name> will ...", "<Name> is going to ...", "So <Name> can ...", "My manager, Daniel, will ..."
NAME_WILL = re.compile(
    rf"(?:^|,\s*(?:and\s+)?|\bso\s+|\bno,?\s+|^(?i:i think|maybe|perhaps)\s+)(?P<name>{NAME})"
    rf"(?:,?\s+(?i:will|is going to|can|should|(?P<weak>could|might want to|ought to)"
    rf"(?!\s+(?:you|we|i|they|he|she)\b))|(?i:'s going to|'ll))"
    rf"\s+(?!be\b)(?P<task>.+)"
)
# "I'll ...", "My job is to ...", "I'm in charge of ...", "Let me look into ...", "I'm happy to ...", "I need to ...",
# "I plan to ...", "I'm taking care of ...", "Leave the catering to me." (not "I'll be honest", "I'll try.",
# "I need to leave early", "I have to say ...", "I'd be happy to help if needed", "I'll leave that to you").
_NOT_A_TASK = (r"(?!be\b(?!\s+\w+ing\b))(?!try(?: my best)?[.!]?$)(?!help\b\s*(?:[.!,]|if\b|$))"
               r"(?!(?:leave|hand) (?:the |our )?[^,.?!]*?(?:to|with) you\b)")
PURPOSE = re.compile(r"\bso(?:\s+that)?\s+$", re.IGNORECASE)  # "..., so I can give you feedback."
FIRST_PERSON = re.compile(
    rf"\b(?:(?:i will|i'll|i am going to|i'm going to|i'm gonna|i am gonna|i can|i'm happy to|i am happy to|"
    rf"i'd be happy to|i'm glad to|i plan to|i'm planning to|i am planning to|i intend to|i volunteer to|"
    rf"i should be able to)\s+(?:go ahead and\s+)?{_NOT_A_TASK}(?!make it\b)|"
    rf"(?:i need to|i have to|i've got to|i must|i still need to|i still have to)\s+{_NOT_A_TASK}"
    rf"(?!(?:leave|go|say|admit|think|run|head off|dash|apologi[sz]e|ask|tell you)\b)|"
    rf"my (?:job|task|action item) is to\s+|(?:i'm|i am)\s+(?=(?:in charge of|responsible for|taking care of|"
    rf"handling|sorting out|organi[sz]ing)\s)|"
    rf"let me\s+(?=(?:look into|follow up|find out|chase|sort out|take care of|get back to|draft|write|send|book|"
    rf"call|email|ring|update|set up|fix|order|organi[sz]e|prepare|print|schedule|arrange|contact|phone|invite|"
    rf"confirm|collect|clean|tidy)\b))(?P<task>.+)"
    r"|^(?:\w+,\s+)?leave (?P<left>(?:the|our|my|this|that) [^,.?!]+?) (?:to|with) me\b"
    r"|\bi(?:'ve| have) got (?P<covered>(?:the|our|my|this|that) [^,.?!]+?) (?:covered|sorted|in hand)\b",
    re.IGNORECASE)


def taken_on(mine: re.Match[str]) -> str:
    """The task a :data:`FIRST_PERSON` match takes on ("the catering" of "Leave the catering to me.")."""
    return mine.group("task") or mine.group("left") or mine.group("covered")


BARE_REQUEST = re.compile(rf"^{LEAD}{_ASK}\s+(?P<task>.+)")
# "Can someone call the plumber?", "Could anyone ...", "Who can ...?", "We need someone to ..."
SOMEONE = re.compile(
    r"\b(?:(?:can|could|would|will)\s+(?:someone|somebody|anyone|anybody)|who can|who will|who wants to|"
    r"who(?: is|'s) going to|who'll|"
    r"(?:we )?need (?:someone|somebody) to|(?:someone|somebody) (?:needs|has) to|any volunteers to|"
    r"(?:i|we) need a volunteer to|(?:is|are) (?:anyone|anybody|any of you) (?:free|able|around|available|willing) to|"
    r"does (?:anyone|anybody) have (?:the )?time to|(?:can|could|would) one of you|who(?: is|'s) (?:free|able) to)"
    r"\s+(?P<task>.+)",
    re.IGNORECASE,
)
# "I'll do it.", "I can take them.", "Happy to do that.", "On it.", "Leave it with me.", "Count me in.", "Me."
VOLUNTEER = re.compile(
    r"^(?:(?:yes|yeah|yep|sure|okay|ok|fine|absolutely|of course|no problem)[,.!]?\s+)*"
    r"(?:(?:i'll|i will|i can|let me|i'm happy to|i'd be happy to|happy to|glad to|i don't mind)\s+"
    r"(?:do|take|handle|cover|own|sort|grab)\s+(?:it|that|this|them|those)\b|(?:i'm |i am )?on it\b|"
    r"leave it (?:with|to) me\b|count me in\b|i(?:'ve)? got (?:it|this|that)\b|consider it done\b|"
    r"i'll take care of (?:it|that|this|them)\b|(?:me|i will|i'll|i can|i do|i'm free)[.!]?$)",
    re.IGNORECASE,
)
THANKED = re.compile(rf"^(?:thanks|thank you|great|okay|ok|good|yes)[,.!]?\s+(?:{NAME}[,.!]?(?:\s+|$))?",
                     re.IGNORECASE)
_GREETING = r"(?i:thanks|thank you|hi|hello|hey|yes|great|okay|sure|sorry)"
GREETED = re.compile(rf"^{_GREETING}[,.]?\s+(?P<name>{NAME})[,.!?]")
# "Right away, Mo.", "Sure thing, Mo!", "Will do, Mo.": the answer names who asked.
ANSWERED = re.compile(rf"^(?i:right away|sure thing|will do|of course|no problem|got it|on it|sure|okay|ok),?\s+"
                      rf"(?P<name>{NAME})[.!]?$")
VOCATIVE = re.compile(rf"^{LEAD}(?P<name>{NAME}),\s+(?P<rest>.*)")
LATE_VOCATIVE = re.compile(rf",\s+(?P<name>{NAME})[.!?]$")
# A vocative followed by a question to them or by "you": they have the floor ("Mike, how about you?").
TO_THEM = re.compile(r"^(?:you|your|what|how|where|when|why|which|anything|any)\b|\?$", re.IGNORECASE)
TITLED_QUESTION = re.compile(rf"^(?P<name>(?:Professor|Doctor|Dr\.|Mr\.|Mrs\.|Ms\.)\s{WORD}),?\s.*\?$")
CALLED = re.compile(rf"^(?P<name>{NAME})[,?]$")
LONE_NAME = re.compile(rf"^(?P<name>{NAME})[.,!?]$")
INTRODUCED = re.compile(rf"\b(?i:my name is|i am|i'm|this is|called)\s+(?P<name>{NAME})")
# "My manager will call you back tomorrow.": a task taken by someone known only by their role (unassigned).
ROLE_WILL = re.compile(
    r"\b(?:my|our|your|the)\s+(?:manager|boss|supervisor|colleague|team lead|technician|engineer|administrator)\b"
    r"(?:(?!\bi\b)[^.?!]){0,40}?\bwill\s+(?!be\b)(?P<task>.+)",  # "my manager said I will ...": the speaker's
    re.IGNORECASE,
)
# "We'll send the press release on launch day.", "We need to renew the insurance.": a task of the team's, nobody's yet
# (only with a verb that makes something: "We'll see.", "We need to talk.", "We'll go with ..." are none).
WE_TASK = re.compile(
    rf"^{LEAD}(?:so,?\s+)?we(?:'ll| will| need to| have to| must| should| still need to| still have to|'ve got to)\s+"
    r"(?P<task>(?:send|email|call|ring|phone|book|order|buy|print|post|write|draft|update|fix|repair|clean|prepare|"
    r"submit|file|pay|renew|invite|confirm|contact|share|upload|publish|announce|schedule|arrange|organi[sz]e|"
    r"collect|deliver|install|replace|check|review|brief|get(?!\s+(?:there|back|going|started|on|along|together|"
    r"it|by)\b)|work out(?!\s+(?:whether|if|how|what|who|when|where|which|why)\b))\b[^?]*?)[.!]?$", re.IGNORECASE)
EVERYONE = re.compile(r"\b(?:everyone|everybody|all of you),?\s+(?P<please>please\s+)?(?P<task>.+)", re.IGNORECASE)
# "It will be done by Wednesday." / "... and it will arrive on Thursday.": the due date of the task just said.
DONE_BY = re.compile(r"\b(?:it|that|this)(?:'ll| will)? (?:be (?:done|ready|finished)|arrive)\b", re.IGNORECASE)
CLAUSE_END = re.compile(r",?\s+and\s+(?:it|that|this|we|they|he|she|i|you)\b|,\s+because\b|\.\s|"
                        r",\s+(?:you|she|he|they)(?:'ve|'re|'s| have| has| are| is| know| knows)\b|"
                        r",\s+so\s+(?:that\s+)?(?:i|we)\b|"
                        r",\s+(?:that'd|that would|it'd|it would) be (?:great|good|lovely|brilliant|ideal|helpful)\b|"
                        r",\s+thanks\b", re.IGNORECASE)
VOICE_LABEL = re.compile(r"^S\d+$")  # a speaker label of a voice that has not said its name


def sentences(text: str) -> list[str]:
    return [s.strip() for s in re.split(r"(?<=[.!?])\s+", text) if s.strip()]


def names(candidates: list[str]) -> list[str]:
    """The candidates that are names: written as one and no common word ("Okay Tom" gives "Tom")."""
    out = []
    for name in candidates:
        words = [w for w in name.split() if not common_word(w)]
        if words and len(words) == len(name.split()):
            out.append(name)
        elif len(words) == 1 and name.split()[0].lower() in _TITLES:
            out.append(name)  # "Mrs Patel" (but "Mrs" alone is nobody)
        elif words and common_word(name.split()[0]) and len(words) == 1:
            out.append(words[0])
    return out


# A yes to what was just asked ("Sure, I'll give him a call after lunch."), unless it takes on more ("also").
YES_TO_IT = re.compile(r"^(?:sure|yes|yeah|yep|ok|okay|fine|of course|no problem|will do|absolutely|certainly|"
                       r"happy to)\b(?!.*\b(?:also|too|as well|another|and then)\b)", re.IGNORECASE)
# A task's opening adverb: "also fix the gate" of "I'll also fix the gate", "Could you also ...".
OPENING_ADVERB = re.compile(r"^(?:also|just|then)\s+", re.IGNORECASE)
# Words that point back instead of naming ("give him a call", "send it over").
POINTER_WORDS = re.compile(r"\b(?:it|them|him|her|this|that|these|those|one)\b", re.IGNORECASE)
# A promise that names nothing but what was just given: "I'll get them done", "I'll do it by Friday".
REFERS_BACK = re.compile(r"^(?:\w+\s+)?(?:it|them|that|this|those|these)(?:\s+(?:done|ready|sorted|over|back|out|"
                         r"finished|off))?\s*(?:[.!]?$|\b(?:by|before|on|until|today|tonight|tomorrow)\b)", re.IGNORECASE)


# What a statement is about: "The release checklist is out of date." -> "the release checklist".
_ABOUT = re.compile(r"^(?:(?:okay|ok|so|and|also|one more thing)[,.]?\s+)?(?P<np>(?:the|our|my|your|this|that)\s+"
                    r"[a-z][\w-]*(?:\s+[a-z][\w-]*){0,5}?)\s+(?:is|are|was|were|has|have|keeps|needs|need|looks|"
                    r"seems|still)\b", re.IGNORECASE)
_PRONOUN_TASK = re.compile(r"^(?P<verb>[a-z]+(?:\s+(?:up|out|over|through))?)\s+(?:it|them)\b(?P<rest>.*)$",
                           re.IGNORECASE)


def subject_of(sentence: str) -> str:
    """The noun phrase a statement is about, or "" ("I'm late." is about nobody's thing)."""
    match = _ABOUT.match(sentence)
    return match.group("np") if match else ""


def resolved(task: str, subject: str) -> str:
    """ "update it" after "The release checklist is out of date." -> "update the release checklist"."""
    match = _PRONOUN_TASK.match(task) if subject else None
    if match is None:
        return task
    return f"{match.group('verb')} {subject[0].lower() + subject[1:]}{match.group('rest')}"
