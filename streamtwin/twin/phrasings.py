"""How meetings say who does what: the grammar the rules' draft (:mod:`streamtwin.twin.extract`) reads.

General English, not the sentences of any evaluation set: a person addressed by name (first or last:
"Ravi, could you ...", "Can you ... by Monday, Ravi?"), asked directly ("please", "can you", "could you",
"I'd like you to", "I need you to"), named as an action item's owner ("Action item for Kim: ...",
"Lee to update ..."), given a task by someone else ("Let's have Ana own ..."), volunteering for what was
asked of anyone ("Can someone ...?" - "I'll do it"), a task handed over ("let Maria take that instead",
"hand that to Bo") or called off ("forget the bus", "no need to ..."), decisions ("we decided ...", "we
agreed ...") that are not questions or denials, open questions.  A request for something in the moment
("can you see my screen?", "could you repeat that?") is no task.

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
    here it welcome""".split()
)
_ASK = r"(?i:please|can you|could you|would you|will you|you will|you'll|can you please|could you please|" \
       r"i'd like you to|i would like you to|i need you to|i want you to|would you mind)"
_LEAD = r"(?:(?i:ok(?:ay)?|great|nice|good|so|and|right|then|yes|now|also|actually|well)[,.!]?\s+)*"

# "<Name>, please fix ...", "<Name>, could you look into ...", "<Name>, I'd like you to draft ...".
REQUEST = re.compile(rf"^{_LEAD}(?P<name>{NAME}),?\s+{_ASK}\s+(?P<task>.+)")
# "<Name>, fix the rota this afternoon.": an imperative after the name (a statement, not a question).
IMPERATIVE = re.compile(rf"^{_LEAD}(?P<name>{NAME}),\s+(?P<task>[a-z][^?]*)[.!]?$")
# "Then send me the course link by Friday, Oluwaseun.": the order first, the name last.
LATE_IMPERATIVE = re.compile(rf"^(?:(?i:then|so|and|now|also|okay|ok)[,]?\s+)?(?P<task>[A-Za-z][^?]*?),\s+"
                             rf"(?P<name>{NAME})[.!]$")
# Verbs that begin a task said before the name ("Book the room for Tuesday, Lena."): that order is only read when
# its first word is one of them, as "Long time no see, Sam." or "Same to you, Sam." begin no task.
TASK_VERBS = frozenset(
    """add ask book bring buy call cancel change chase check clean clear collect confirm contact cover create draft
    drop email file find finish fix follow get give handle hire invite keep let look make move order organise
    organize pay phone pick plan post prepare print put raise read recheck remind renew repair replace reply
    review ring run schedule send set share sign sort speak start submit take talk tell text tidy update upload
    visit write""".split()
)
# Said in parting or in praise, or of oneself, not an order: "Have a good weekend, Tom.", "Great work on the demo,
# Tom.", "Let me check that, Tom." (but "Let me know by Friday, Tom." is one).
PLEASANTRY = re.compile(r"^(?:have (?:a|an|fun)|enjoy|take care|see you|talk (?:soon|later)|get well|safe travels|"
                        r"sleep well|good luck|keep it up|(?:great|good|nice|excellent) (?:work|job|point|to)|"
                        r"well done|"
                        r"let me\b(?! know))", re.IGNORECASE)
# Words that start a remark to someone, not an order ("Tom, great point.", "Anna, the results are in.").
NOT_VERBS = frozenset(
    """a an the this that these those it it's its there here i i'm we we're you you're your he she they my our
    that's there's here's what's who's let's
    his her their good great nice well welcome thanks thank sorry congratulations exactly right yes no okay ok
    of sure absolutely maybe perhaps what how who why when where which if as so and but or just also really
    excellent perfect fine not never always still already all everyone everybody""".split()
)
# "Can you send me the contract by Monday, Ravi?": the name ends the request.
LATE_REQUEST = re.compile(rf"^{_LEAD}{_ASK}\s+(?P<task>.+?),\s+(?P<name>{NAME})[.?!]*$")
# "Action item for Kim: renew the permits." / "Action item: Kim to renew the permits."
ACTION_ITEM_FOR = re.compile(rf"(?i:action items?)\s+(?i:for)\s+(?P<name>{NAME})\s*[:,-]?\s+(?P<task>.+)")
ACTION_ITEM_TO = re.compile(rf"(?i:action items?)\s*[:,-]\s*(?P<name>{NAME})\s+(?i:to|will|should)\s+(?P<task>.+)")
# "Lee to update the budget by Q3." (minutes style): a known person, or a task with a deadline.
NAME_TO = re.compile(rf"^{_LEAD}(?P<name>{NAME})\s+to\s+(?P<task>[a-z].+)")
# "Let's have Ana own the rollout." / "Let Maria take that instead." / "Let's ask Bo to call them."
LETS_HAVE = re.compile(
    rf"\b(?i:let's|let us|let)\s+(?:(?i:have|get|ask)\s+)?(?P<name>{NAME})\s+(?:to\s+)?(?P<task>[a-z].+)"
)
# "<Name> will ...", "<Name> is going to ...", "So <Name> can ...", "My manager, Daniel, will ..."
NAME_WILL = re.compile(
    rf"(?:^|,\s*|\bso\s+|\bno,?\s+)(?P<name>{NAME}),?\s+(?i:will|is going to|can|should)\s+(?!be\b)(?P<task>.+)"
)
FIRST_PERSON = re.compile(r"\b(?:i will|i'll|i am going to|i'm going to|i can)\s+(?P<task>.+)", re.IGNORECASE)
BARE_REQUEST = re.compile(rf"^{_LEAD}{_ASK}\s+(?P<task>.+)")
# "Can someone call the plumber?", "Could anyone ...", "Who can ...?", "We need someone to ..."
SOMEONE = re.compile(
    r"\b(?:(?:can|could|would|will)\s+(?:someone|somebody|anyone|anybody)|who can|who will|who wants to|"
    r"who(?: is|'s) going to|who'll|"
    r"(?:we )?need (?:someone|somebody) to)\s+(?P<task>.+)",
    re.IGNORECASE,
)
# "I'll do it.", "I can take that.", "Sure, I'll handle it."
VOLUNTEER = re.compile(
    r"^(?:(?:yes|yeah|sure|okay|ok|fine)[,.!]?\s+)?(?:i'll|i will|i can|let me)\s+(?:do|take|handle|cover)\s+"
    r"(?:it|that|this)\b",
    re.IGNORECASE,
)
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
    r"has changed|moved|moves|changed|changes|is)(?:\s+to)?)\s+(?P<rest>.+)", re.IGNORECASE)
# The owner turning a task down: "Sorry, I can't this week.", "I won't be able to." (not "I can't make Monday, but
# Wednesday works": that offers another day).
DECLINED = re.compile(r"^(?:(?:sorry|no|unfortunately|oh)[,.]?\s+)*(?:i can't|i cannot|i won't be able to|"
                      r"i'm not able to|i am not able to|i don't have time|i'm away|i am away)"
                      r"(?!\s+(?:hear|see|find|remember|believe|wait|say|tell|promise))\b(?![^.!?]*\bbut\b)",
                      re.IGNORECASE)
# "Actually, let me take that one instead.", "I'll do that instead.": the newest task moves to the speaker.
I_TAKE_IT_OVER = re.compile(rf"^{_LEAD}(?i:let me|i'll|i will|i can)\s+(?i:take|do|handle|cover|own)\s+"
                            r"(?i:that|it|this)(?:\s+one)?(?:\s+over)?\s+(?i:instead|myself|then)\b")
HAND_TO = re.compile(rf"\b(?i:hand|give|pass|move|switch|reassign)\s+(?i:that|it|this)(?:\s+(?i:over))?\s+(?i:to)\s+"
                     rf"(?P<name>{NAME})")
# "Forget the bus.", "Cancel the booking.", "No need to call them any more."
CALLED_OFF = re.compile(
    r"(?<!don't )(?<!do not )\b(?:forget(?: about)?|cancel|scrap|never mind(?: about)?|skip)\s+(?P<what>.+)"
    r"|\b(?:no need to|we don't need to|we do not need to|you don't need to|you do not need to)\s+(?P<task>.+)",
    re.IGNORECASE,
)
# What is asked for the moment, not a task: "can you see my screen?", "could you repeat that?".
IN_THE_MOMENT = re.compile(
    r"^(?:see|hear|repeat|say that|speak|explain|tell (?:me|us)\b|go (?:ahead|first|on)\b|introduce yourself|"
    r"share your screen|unmute|mute|wait|hold on|give (?:me|us) a (?:second|minute|moment)|help (?:me|us)\W*$|"
    r"remind me what)",
    re.IGNORECASE,
)
THANKED = re.compile(rf"^(?:thanks|thank you|great|okay|ok|good|yes)[,.!]?\s+(?:{NAME}[,.!]?(?:\s+|$))?",
                     re.IGNORECASE)
_GREETING = r"(?i:thanks|thank you|hi|hello|hey|yes|great|okay|sure|sorry)"
GREETED = re.compile(rf"^{_GREETING}[,.]?\s+(?P<name>{NAME})[,.!?]")
# "Right away, Mo.", "Sure thing, Mo!", "Will do, Mo.": the answer names who asked.
ANSWERED = re.compile(rf"^(?i:right away|sure thing|will do|of course|no problem|got it|on it|sure|okay|ok),?\s+"
                      rf"(?P<name>{NAME})[.!]?$")
VOCATIVE = re.compile(rf"^{_LEAD}(?P<name>{NAME}),\s+(?P<rest>.*)")
LATE_VOCATIVE = re.compile(rf",\s+(?P<name>{NAME})[.!?]$")
# A vocative followed by a question to them or by "you": they have the floor ("Mike, how about you?").
TO_THEM = re.compile(r"^(?:you|your|what|how|where|when|why|which|anything|any)\b|\?$", re.IGNORECASE)
TITLED_QUESTION = re.compile(rf"^(?P<name>(?:Professor|Doctor|Dr\.|Mr\.|Mrs\.|Ms\.)\s{WORD}),?\s.*\?$")
CALLED = re.compile(rf"^(?P<name>{NAME})[,?]$")
LONE_NAME = re.compile(rf"^(?P<name>{NAME})[.,!?]$")
INTRODUCED = re.compile(rf"\b(?i:my name is|i am|i'm|this is|called)\s+(?P<name>{NAME})")
DECISION = re.compile(
    r"\b(?:we decided|we have decided|we've decided|decided to|we agreed|agreed|the decision is|let's go with|"
    r"we're going with|we are going with|we'll go with|we will go with|let's stick with|we're sticking with|"
    r"we are sticking with|we settled on|we've settled on|we have settled on|final decision|we chose|"
    r"we've chosen|we have chosen|it's settled|it is settled|"
    r"we(?:'ve| have)? (?:opted for|picked|selected|went with|voted (?:for|to))|"
    r"(?:let's|we'll|we will|we're going to) go ahead with|the plan is(?= to\b| that\b)|"
    r"(?:the )?consensus is|we have a decision|decision(?=:)|"
    r"(?:that's|that is|it's|it is) (?:decided|agreed|final|official)(?=:)|"
    r"(?<!\bto )decided (?:that|on)|we(?:'re| are) going ahead with|"
    r"we(?:'ve| have) made (?:the|a|our) (?:call|decision)"
    r"(?: to| on)?|"
    # The room agreeing, or keeping, ruling out, landing on: "We all agree that ...", "Everyone agrees we ...",
    # "We'll stick with Postgres.", "We've signed off on the logo.", "We came to the conclusion that ..."
    r"(?:we\s+all|we|everyone|everybody)\s+agrees?(?:\s+(?:that|on)\b|(?=\s+we\b))|"
    r"we(?:'re| are)\s+(?:all\s+)?(?:agreed|in agreement)\s+(?:that|on)\b|"
    r"we(?:'ll| will)\s+stick\s+with|"
    r"we(?:'ve| have)?\s+(?:approved|signed off on|green-?lit|ruled out|rejected|shelved)|"
    r"we(?:'ve| have)\s+landed\s+on|"
    r"we\s+came\s+to\s+the\s+conclusion(?:\s+that)?|we(?:'ve| have)?\s+concluded\s+that|"
    r"(?:our|the)\s+(?:call|verdict)\s+is(?=\s+(?:to|that)\b)|"
    r"(?:let's|we'll|we will|we've|we have)\s+lock(?:ed)?\s+in|"
    r"^(?:(?:so|okay|ok|right|alright)[,]?\s+)?going\s+with(?!\s+the\s+flow\b)|"
    # A rule from now on: "From now on, every pull request needs two reviews.", "Going forward, we ..."
    r"^(?:(?:so|okay|ok|right|and)[,]?\s+)?(?:from now on|going forward|from today|as of (?:today|now|next week)))"
    r"\b[:,]?\s*(?P<what>.*)",
    re.IGNORECASE,
)
# What was decided said before the words that settle it: "Green walls it is.", "The price list, that's decided.",
# "The venue is final.".  A pointer ("That's final.") means the sentence before.  One person's things are not the
# room's decisions: "My train is cancelled."
_SETTLED = r"(?:decided|agreed|final|settled|official)"
DECIDED_WHOLE = (
    # A conclusion of the room's: "Okay, so we'll keep the old supplier.", "We'll meet on Fridays, then."
    re.compile(r"^(?:(?:ok(?:ay)?|alright|all right|right|good|fine)[,.]?\s+)?so,?\s+we(?:'ll| will|'re going to|"
               r"are going to)\s+(?!need\b|have to\b|see\b|be\b|talk\b|hear\b)(?P<what>[^?]+?)[.!]$", re.IGNORECASE),
    re.compile(r"^we(?:'ll| will)\s+(?!need\b|have to\b|see\b|be\b|talk\b)(?P<what>[^?]+?),?\s+then[.!]$",
               re.IGNORECASE),
    # "The new budget is approved.", "The venue has been confirmed.", "The demo is postponed to next week.": the
    # whole sentence says what.
    re.compile(r"^(?:(?:so|okay|ok|right|alright)[,]?\s+)?(?P<what>[^?]+?\s+(?:is|are|has been|have been)\s+"
               r"(?:now\s+)?(?:approved|confirmed|signed off|locked in|cancell?ed|called off|postponed|scrapped)"
               r"(?:\s+(?:to|until|till)\s+[^?]+?)?)[.!]$", re.IGNORECASE),
    # The room choosing not to: "We're not doing the mobile app this year.", "We're dropping the print edition."
    re.compile(r"^(?:(?:so|okay|ok|right|alright)[,]?\s+)?(?P<what>we(?:'re| are)\s+(?:not\s+(?:doing|going ahead "
               r"with|pursuing)|dropping(?!\s+(?:off|by|in)\b)|scrapping|shelving|cancell?ing|postponing)\s+[^?]+?|"
               r"we\s+won't\s+be\s+(?:doing|pursuing)\s+[^?]+?)[.!]$", re.IGNORECASE),
    re.compile(r"^(?:so|okay|ok|then|right|fine)?,?\s*(?P<what>[^?]+?),?\s+it is(?:,?\s+then)?[.!]$", re.IGNORECASE),
    re.compile(rf"^(?:so|okay|ok|then|right|fine)?,?\s*(?P<what>[^?]*?)[,:;]?\s*\b(?:that's|that is|it's|it is)\s+"
               rf"(?:now\s+|all\s+)?{_SETTLED}(?:,?\s+then)?[.!]$", re.IGNORECASE),
    re.compile(rf"^(?:so,?\s+)?(?P<what>[^?]+?)\s+(?:is|are)\s+(?:now\s+)?{_SETTLED}[.!]$", re.IGNORECASE),
)
_ASKS = r"(?:whether|if|how|what|who|when|where|which|why)"
MINE = re.compile(r"\b(?:my|your|his|her)\b", re.IGNORECASE)
# Said of nothing settled: "Nothing is decided yet.", "That's just how it is.", "I don't know what time it is."
NOTHING = re.compile(r"^(?:nothing|none|not much)\b|\b(?:what|how|where|who|why|whatever|way|know)\b", re.IGNORECASE)
# A proposal put to the room, and a reply that takes it up: "Should we move the stand-up to ten?" - "Yes, let's do
# that." (a bare "yes" or "sure" answers many questions that propose nothing, so it is not enough).
PROPOSAL = re.compile(r"^(?:so|and|then|okay|ok)?,?\s*(?:should we|shall we|why don't we|how about we|what if we|"
                      r"do we want to|maybe we should)\s+(?P<what>[^?]+)\?$", re.IGNORECASE)
# Said as a statement, a proposal too waits for the reply: "I suggest we rent two vans." - "Makes sense."
PROPOSED = re.compile(
    r"^(?:so|and|then|okay|ok|well)?,?\s*(?:i(?:'d| would)? suggest|i(?:'d| would)? propose|my suggestion is|"
    r"my proposal is|(?:maybe|perhaps) we could|we could always)\s+(?:that\s+)?(?:we\s+|to\s+)?"
    r"(?P<what>[^?]+?)[.!]?$", re.IGNORECASE)
# A plan of the room's ("... but realistically we'll start with two sites."), decided once someone takes it up.
WE_PLAN = re.compile(r"\bwe(?:'ll| will|'re going to| are going to)\s+(?!be\b|see\b|need\b|have to\b)"
                     r"(?P<what>[^?,;]+?)[.!]?$", re.IGNORECASE)
ACCEPT = re.compile(r"^(?:(?:yes|yeah|yep|ok|okay|sure|right|great|good|fine|absolutely)[,.!]?\s*)*"
                    r"(?:agreed|i agree|let's(?: do (?:it|that|this)| go for it)?|sounds good(?: to me)?|good idea|"
                    r"great idea|fine by me|works for me|that works(?: for me)?|(?:that )?makes sense|we should|"
                    r"go for it|deal|i'm happy with that|happy with that|fair enough)(?:[,.!]\s*.*|[.!]?)$",
                    re.IGNORECASE)
# A plan of ours said any way ("We need a second van for the kit.", "Let's keep the old logo.") that the next voice
# settles with more than a yes: "Agreed.", "Deal.", "Let's do that.", "Sounds like a plan."
OURS = re.compile(r"\b(?:we|let's|let us)\b(?!\s+(?:think|feel|like|love|hope|know|saw|had|were|was)\b)", re.IGNORECASE)
SETTLES = re.compile(r"^(?:(?:yes|yeah|ok|okay|right|great|good|fine)[,.!]?\s*)*(?:agreed|deal|let's do (?:it|that)|"
                     r"sounds like a plan|that's the plan|so be it|done)[.!]?$", re.IGNORECASE)
# "If we went with ...", "Last year we went with ...": a hypothesis or a past report said before the decision words.
NOT_NOW = re.compile(r"\b(?:if|unless|whether|would|could|might|suppose|imagine|ideally|used to|years? ago|"
                     r"last (?:year|month|week|time|quarter|spring|summer|autumn|fall|winter)|back (?:then|in)|"
                     r"in (?:19|20)\d\d)\b", re.IGNORECASE)
# "We have not agreed ...", "We never decided ...": a denial, not a decision.
DENIED = re.compile(r"(?:\bnot|\bnever|n't|\bno one|\bnobody)\s+(?:\w+\s+){0,2}$", re.IGNORECASE)
OPEN = re.compile(r"\bopen question\b", re.IGNORECASE)
# "One open question is when ...", "Another question is whether ...": the question itself follows.
WHETHER = re.compile(r"\b(?:open )?question is (?:whether|if|how|what|who|when|where|which)\b\s*(?P<what>.+)",
                     re.IGNORECASE)
# A question left open without the word: "The budget is still up in the air.", "We still need to figure out
# how ...", "We don't know yet whether ...", "We haven't decided where ...".
UNSETTLED = (
    re.compile(r"^(?:so,?\s+|and\s+|but\s+)?(?P<what>.+?)(?:\s+is|\s+are|'s|'re)\s+still\s+(?:open|undecided|unclear|"
               r"up in the air|to be decided|unresolved|an open (?:question|point|issue))\b", re.IGNORECASE),
    re.compile(r"^(?:so,?\s+|and\s+|but\s+)?(?P<what>.+?)\s+(?:is|are)\s+an\s+open\s+(?:question|point|issue)\b",
               re.IGNORECASE),
    # "The venue hasn't been decided yet.", "The date isn't settled yet."
    re.compile(r"^(?:so,?\s+|and\s+|but\s+)?(?P<what>.+?)\s+(?:(?:hasn't|has not|haven't|have not)\s+been|"
               r"(?:isn't|is not|aren't|are not)(?=\s+\w+(?:\s+on)?\s+yet\b))\s+(?:decided|settled|agreed|confirmed|"
               r"finali[sz]ed)\b", re.IGNORECASE),
    # "I don't have an answer yet on the shipping costs."
    re.compile(r"\b(?:i|we)\s+(?:don't|do not)\s+have\s+an?\s+answer\s+(?:yet\s+)?(?:on|about|for|to)\s+"
               r"(?P<what>.+)", re.IGNORECASE),
    re.compile(r"^(?:so,?\s+|and\s+|but\s+)?(?P<what>.+?)\s+(?:still\s+)?remains?\s+(?:open|unresolved|unclear|"
               r"undecided|an open (?:question|point|issue))\b", re.IGNORECASE),
    re.compile(r"\b(?:we|i)\s+(?:still\s+)?(?:need|have)\s+to\s+(?:figure out|work out|find out|decide)\s+"
               r"(?:whether\s+|if\s+)?(?P<what>.+)", re.IGNORECASE),
    re.compile(rf"\b(?:(?:we|i)\s+(?:still\s+)?(?:don't|do not)|nobody|no one)\s+(?:yet\s+|really\s+)?knows?\s+"
               rf"(?:yet\s+)?(?={_ASKS}\b)(?:whether\s+|if\s+)?(?P<what>.+)", re.IGNORECASE),
    re.compile(r"\bwe\s+(?:haven't|have not|didn't|did not)\s+(?:yet\s+)?(?:decided|agreed on|settled on|worked out|"
               r"figured out)\s+(?:yet\s+)?(?:whether\s+|if\s+)?(?P<what>.+?)(?:\s+yet)?[.!]?$", re.IGNORECASE),
    re.compile(rf"\b(?:it's|it is)\s+(?:still\s+)?(?:unclear|not clear|not decided|undecided)\s+(?:yet\s+)?"
               rf"(?={_ASKS}\b)(?:whether\s+|if\s+)?(?P<what>.+)", re.IGNORECASE),
    re.compile(rf"\b(?:we're|we are|i'm|i am|nobody is|no one is)\s+(?:still\s+)?(?:not\s+)?(?:sure|certain)\s+"
               rf"(?={_ASKS}\b)(?:whether\s+|if\s+)?(?P<what>.+)", re.IGNORECASE),
    re.compile(r"\bremains to be seen\s+(?:whether\s+|if\s+)?(?P<what>.+)", re.IGNORECASE),
    # "The venue is still TBD.", "The budget is pending.", "The rota is on hold until ...".
    re.compile(r"^(?:so,?\s+|and\s+|but\s+)?(?P<what>.+?)(?:\s+is|\s+are|'s)\s+(?:still\s+)?(?:tbd|tbc|to be "
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
    r"^(?:(?:well|hmm|honestly|um|so|sorry|yeah|to be honest|good question)[,.]?\s+)*(?:i\s+(?:really\s+|"
    r"honestly\s+)?(?:don't|do not) know|(?:i have\s+)?no idea|(?:i'm|i am)\s+not sure|not sure|hard to say|"
    r"nobody knows|(?:nobody|no one)(?:'s| is)\s+(?:really\s+)?sure|"
    r"no one knows|we (?:don't|do not) know|(?:that's|that is) (?:still )?(?:unclear|not clear)|no clue)"
    r"(?:\s+yet)?(?:,?\s+(?:honestly|to be honest|really|either|yet))?[.!]*$", re.IGNORECASE)
# A question to the room (not "do you want tea?"): a wh-question, or one about what we or it will do.
TO_THE_ROOM = re.compile(
    r"^(?!assistant\b)(?:(?:so|and|but|okay|ok|then)[,]?\s+)?(?:[A-Z][a-z]+,\s+)?"
    r"(?:who|what|when|where|which|how|why|whose|"
    r"(?:should|shall|do|will|can|are|could|would)\s+we|(?:is|are|will|does|can)\s+(?:it|there|that|this|the)\b)",
    re.IGNORECASE)
# A question put off for later: "Let's park the question of overtime.", "We'll come back to the seating plan on
# Friday.", "Let's revisit that next week." (a pointer: the question asked just before).  "Park" takes a topic
# only ("let's park the van" is no question).
_TOPIC = (r"(?:(?:the|this|that)\s+(?:\w+\s+)?(?:question|topic|issue|point|matter|discussion|subject)\b.*?"
          r"|it|this|that)")
DEFERRED = re.compile(
    rf"\b(?:let's|let us|we'll|we will|we can|we should|we need to)\s+(?:(?:park|table)\s+(?P<topic>{_TOPIC})|"
    r"take\s+(?P<offline>it|this|that|(?:the|this|that)\s+\w+(?:\s+\w+)?)\s+offline|"
    r"(?:come back to|circle back to|circle back on|revisit|pick up)\s+(?P<what>.+?))"
    r"(?:\s+(?:next|later|tomorrow|on|in|at|after|until|when|once|before)\b.*)?[.!]?$",
    re.IGNORECASE,
)
POINTS_BACK = re.compile(r"^(?:this|that|it|this one|that one|(?:this|that|the) (?:question|point|topic|issue))$",
                         re.IGNORECASE)
# "And should we build it for phones first, or for the web?" right after an open question: one more.
ONE_MORE = re.compile(r"^(?:and|also|or|plus)\b,?\s+(?P<what>.+)\?$", re.IGNORECASE)
# "My manager will call you back tomorrow.": a task taken by someone known only by their role (unassigned).
ROLE_WILL = re.compile(
    r"\b(?:my|our|your|the)\s+(?:manager|boss|supervisor|colleague|team lead|technician|engineer|administrator)\b"
    r"(?:(?!\bi\b)[^.?!]){0,40}?\bwill\s+(?!be\b)(?P<task>.+)",  # "my manager said I will ...": the speaker's
    re.IGNORECASE,
)
EVERYONE = re.compile(r"\b(?:everyone|everybody|all of you),?\s+please\s+(?P<task>.+)", re.IGNORECASE)
# "It will be done by Wednesday." / "... and it will arrive on Thursday.": the due date of the task just said.
DONE_BY = re.compile(r"\b(?:it|that|this)(?:'ll| will)? (?:be (?:done|ready|finished)|arrive)\b", re.IGNORECASE)
CLAUSE_END = re.compile(r",?\s+and\s+(?:it|that|this|we|they|he|she|i|you)\b|,\s+because\b|\.\s", re.IGNORECASE)
VOICE_LABEL = re.compile(r"^S\d+$")  # a speaker label of a voice that has not said its name


def sentences(text: str) -> list[str]:
    return [s.strip() for s in re.split(r"(?<=[.!?])\s+", text) if s.strip()]


def names(candidates: list[str]) -> list[str]:
    """The candidates that are names: written as one and no common word ("Okay Tom" gives "Tom")."""
    out = []
    for name in candidates:
        words = [w for w in name.split() if w.lower() not in NOT_NAMES]
        if words and len(words) == len(name.split()):
            out.append(name)
        elif words and name.split()[0].lower() in NOT_NAMES and len(words) == 1:
            out.append(words[0])
    return out


# An aside before the order: "Yusuf, since you asked, please bring ...", "Ana, if you can, call ...".
_ASIDE = re.compile(r"^(?:since|as|because|now that|if you can|if possible|when you get a chance|while you're at it)"
                    r"\b[^,]*,\s*(?:please\s+)?", re.IGNORECASE)


def without_aside(task: str) -> str:
    """The order itself: "since you asked, please bring the tables" -> "bring the tables"."""
    return _ASIDE.sub("", task, count=1)


# A promise that names nothing but what was just given: "I'll get them done", "I'll do it by Friday".
REFERS_BACK = re.compile(r"^(?:\w+\s+)?(?:it|them|that|this|those|these)(?:\s+(?:done|ready|sorted|over|back|out|"
                         r"finished|off))?\s*(?:$|\b(?:by|before|on|until|today|tonight|tomorrow)\b)", re.IGNORECASE)


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


def imperative(task: str) -> bool:
    """Does ``task`` start with an order ("fix the rota ...") rather than a remark ("great point")?"""
    words = task.split()
    return len(words) >= 2 and words[0].lower().strip(",.") not in NOT_VERBS


def in_the_moment(task: str) -> bool:
    """A request for now, not a task: "see my screen", "repeat that", "tell me more"."""
    return bool(IN_THE_MOMENT.match(task.strip()))


def unsettled(sentence: str) -> str | None:
    """What a sentence says is still to be settled, in its own words, or None."""
    for pattern in UNSETTLED:
        match = pattern.search(sentence)
        if match:
            return match.group("what").strip(" .?!,")
    return None


def decided_whole(sentence: str) -> str | None:
    """What a sentence settles when it names it before the settling words ("Green walls it is."): its words,
    "" for a pointer to the sentence before ("That's final."), or None."""
    for pattern in DECIDED_WHOLE:
        match = pattern.search(sentence)
        if match:
            what = match.group("what").strip(" .,:;")
            if NOTHING.search(what) or DENIED.search(what + " ") or MINE.search(what):
                return None  # "Nothing is decided yet.", "What time it is."
            return "" if POINTS_BACK.match(what) or not what else what
    return None


def deferred(sentence: str) -> str | None:
    """What a sentence puts off for later ("Let's park the pricing question."), "" for a pointer, or None."""
    match = DEFERRED.search(sentence)
    if not match or sentence.endswith("?"):
        return None
    what = (match.group("topic") or match.group("offline") or match.group("what") or "").strip(" .!,")
    return "" if POINTS_BACK.match(what) else what


def denied(sentence: str, keyword_at: int) -> bool:
    """Is the word at ``keyword_at`` denied ("we have not agreed", "nobody decided")?"""
    return bool(DENIED.search(sentence[:keyword_at]))
