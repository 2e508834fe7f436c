"""How meetings say what they settled and what they left open: the grammar :mod:`streamtwin.twin.outcomes` reads.

Decisions said outright ("We decided ...", "We all agree that ...", "We'll stick with ..."), said before the
words that settle them ("Green walls it is.", "The venue has been confirmed."), proposals and the replies that
take them up ("Should we ...?" - "Let's do that."), and questions left open ("We don't know yet whether ...",
"The venue hasn't been decided yet.", "Let's park the pricing question.").  General English, not the sentences
of any evaluation set; what is not a decision (a question, a denial, a hypothesis, a past report, one person's
things) is said here too.

Plain module: no I/O, no clock.
"""

from __future__ import annotations

import re

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
    # An announcement said before what it settles: "Decision made, we switch ...", "Final answer: we ship ...",
    # "The vote is in: ...", "Let's make it official: ...", "We're all on the same page: ...".
    r"decision made(?=[:,])|final answer(?=:)|the vote is in(?=:)|(?:let's make it|it's|it is) official(?=:)|"
    r"we(?:'re| are) (?:all )?on the same page(?=:)|(?:the )?consensus (?:seems to be|is)(?= that\b)|"
    # Someone with the say settling it: "The committee approved the new playground."
    r"(?:the|our) (?:committee|board|council|client|management|director|boss|panel|trust|school|owners?)\s+"
    r"(?:has |have )?(?:approved|signed off on|green-?lit|rejected|decided(?: on)?)|"
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
    r"^(?:(?:so|okay|ok|right|and|yes|yeah|then|good|fine)[,]?\s+)*(?:from now on|going forward|(?:from|as of)\s+"
    r"(?:today|tomorrow|now|next (?:week|month|term|year|quarter)|(?:mon|tues|wednes|thurs|fri|satur|sun)day))|"
    # "That's a yes on the new logo.", "It's a go for the pilot."
    r"(?:that's|that is|it's|it is) a (?:yes|go|no)(?= (?:on|for|to)\b))"
    r"\b[:,]?\s*(?P<what>.*)",
    re.IGNORECASE,
)
# What was decided said before the words that settle it: "Green walls it is.", "The price list, that's decided.",
# "The venue is final.".  A pointer ("That's final.") means the sentence before.  One person's things are not the
# room's decisions: "My train is cancelled."
_SETTLED = r"(?:decided|agreed|final|settled|official)"
_CLOSING = r"^(?:(?:ok(?:ay)?|so|right|then|fine|and)[,.]?\s+)*"  # "Okay, so ...": words that close a discussion
_WE_WILL = r"we(?:'ll| will|'re going to| are going to)\s+"
# Verbs of a choice made (and their -ing forms): what "Fine, we'll ..." settles.
_CHOICE = (r"(?:keep|stick with|switch|drop|cut|hire|cancel|postpone|delay|freeze|raise|lower|close|buy|rent|choose|"
           r"pick|launch|ship|use|skip|go (?:with|for|ahead)|move (?!on\b)(?:\w+\s+){1,4}?to|"
           r"keeping|sticking with|switching|dropping|cutting|hiring|cancell?ing|postponing|delaying|freezing|raising|"
           r"lowering|closing|buying|renting|choosing|picking|launching|shipping|using|skipping|"
           r"going (?:with|for|ahead)|moving (?!on\b)(?:\w+\s+){1,4}?to)")
DECIDED_WHOLE = (
    # A conclusion of the room's: "Okay, so we'll keep the old supplier.", "We'll meet on Fridays, then."
    re.compile(r"^(?:(?:ok(?:ay)?|alright|all right|right|good|fine)[,.]?\s+)?so,?\s+we(?:'ll| will|'re going to|"
               r"are going to)\s+(?!need\b|have to\b|see\b|be\b|talk\b|hear\b)(?P<what>[^?]+?)[.!]$", re.IGNORECASE),
    # "Fine, we'll keep the old pricing for now.", "Okay, we're switching to the new supplier.", "We're definitely
    # keeping the night shift.": a closing word (or a certainty) before a choice of ours (not "Okay, we'll take a
    # break.", "Right, we're looking at the chart.": the meeting's own course).
    re.compile(rf"^(?:(?:(?:ok(?:ay)?|alright|all right|right|fine|good|great|then)[,.]?\s+)+(?:so,?\s+)?"
               rf"(?:then,?\s+)?(?=we)|(?=we(?:'re| are| will|'ll) (?:definitely|certainly)\b))"
               rf"(?P<what>we(?:'ll| will|'re going to| are going to|'re| are)\s+(?:definitely\s+|certainly\s+)?"
               rf"(?:not\s+)?{_CHOICE}\b[^?]*?)[.!]$", re.IGNORECASE),
    # "The budget stays at ten thousand.", "The rota remains as it is."
    re.compile(r"^(?:(?:ok(?:ay)?|alright|right|so|fine|then)[,.]?\s+)*"
               r"(?P<what>(?:(?:the|our)\s+[^?,]+?|it|this|that)\s+"
               r"(?:stays|remains|will stay|will remain)\s+(?:at|as|the same|unchanged|in place|where)\b[^?]*?)[.!]$",
               re.IGNORECASE),
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
    # A plan of ours put in place of another: "We'll do a picnic in June instead.", "So forget the minibus, we'll
    # take the train."
    re.compile(rf"{_CLOSING}(?P<what>{_WE_WILL}(?!need\b|have to\b|see\b)[^?]+?\binstead\b[^?]*?)[.!]$", re.IGNORECASE),
    re.compile(rf"{_CLOSING}forget\s+(?:about\s+)?[^,?]+,\s+(?P<what>{_WE_WILL}[^?]+?)[.!]$", re.IGNORECASE),
    # Not doing something, said as settled: "And before anyone asks, we're not renting a second van this year."
    re.compile(r"(?:^|,\s+)(?P<what>we(?:'re| are)\s+not\s+(?!going\b|sure\b|settling\b|deciding\b|committing\b)"
               r"[a-z]+ing\s+[^?,.!]+)", re.IGNORECASE),
    # The room's next step, concluded: "Then we repaint the fence." (not "Then we see.")
    re.compile(r"^then,?\s+(?P<what>we\s+(?!(?:see|need|have|think|know|talk|can|could|might|should|will|would|are|"
               r"were|had|did|do|don't|get|go)\b)[a-z]+\b[^?]*?)[.!]$", re.IGNORECASE),
    re.compile(r"^(?:so|okay|ok|then|right|fine)?,?\s*(?P<what>[^?]+?),?\s+it is(?:,?\s+then)?"
               r"(?P<more>\s+for\s+[^?]+?)?[.!]$", re.IGNORECASE),
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
                      r"do we want to|maybe we should|can we (?:all )?agree (?:to|that|on)|"
                      r"are we (?:all )?agreed (?:to|that|on)|do we all agree (?:to|that|on))\s+(?P<what>[^?]+)\?$", re.IGNORECASE)
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
                    r"great idea|fine by me|works for me|that works(?: for me)?|(?:that )?makes? sense|we should|"
                    r"go for it|deal|i'm happy with that|happy with that|fair enough)(?:[,.!]\s*.*|[.!]?)$",
                    re.IGNORECASE)
# A plan of ours said any way ("We need a second van for the kit.", "Let's keep the old logo.") that the next voice
# settles with more than a yes: "Agreed.", "Deal.", "Let's do that.", "Sounds like a plan."
OURS = re.compile(r"\b(?:we|let's|let us)\b(?!\s+(?:think|feel|like|love|hope|know|saw|had|were|was)\b)", re.IGNORECASE)
SETTLES = re.compile(r"^(?:(?:yes|yeah|ok|okay|right|great|good|fine)[,.!]?\s*)*(?:agreed|deal|let's do (?:it|that)|"
                     r"sounds like a plan|that's the plan|so be it|done)[.!]?$", re.IGNORECASE)
# A ruling: a question of what we may or must do, answered yes or no by the next voice in words of the question:
# "Can we use our notes during the quiz?" - "No notes, Omar."; "Do we need to wear uniforms on Friday?" - "Yes,
# uniforms as usual." (not "Can we see the slides?" - "Yes, one second.": the reply says nothing of it).
MAY_WE = re.compile(r"^(?:(?:so|and|okay|ok)[,]?\s+)?(?:[A-Z][a-z]+,\s+)?(?:(?:can|may|could) we|are we allowed to|"
                    r"(?:should|shall) (?:we|it|this|that|the|they)|"
                    r"do we (?:need|have) to|is it (?:ok|okay|alright|fine) (?:if we|to))\b", re.IGNORECASE)
RULING = re.compile(r"^(?:yes|no|yeah|yep|nope|sure|of course|definitely not|absolutely not)\b[,.!]?\s*(?P<rest>.*\w.*)$",
                    re.IGNORECASE)
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
_THE_MATTER = r"^(?:so,?\s+|and\s+|but\s+)?(?P<what>.+?)"  # what is left open, said first
UNSETTLED = (
    # "The budget is still open.", "... is still an open question.", "The catering is still a big question mark.",
    # "The date for the move is yet to be decided."
    re.compile(_THE_MATTER + r"(?:\s+is|\s+are|'s|'re)\s+(?:still\s+(?:open|undecided|unclear|up in the air|"
               r"to be decided|unresolved)|(?:still\s+)?(?:an open (?:question|point|issue)|a\s+(?:big\s+|bit of a\s+)?"
               r"question mark|yet to be (?:decided|settled|agreed|confirmed|finali[sz]ed)|anyone's guess))\b",
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
    r"^(?:(?:well|hmm|honestly|um|so|sorry|yeah|to be honest|good question)[,.]?\s+)*(?:i\s+(?:really\s+|"
    r"honestly\s+)?(?:don't|do not) know|(?:i have\s+)?no idea|(?:i'm|i am)\s+not sure|not sure|hard to say|"
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
    r"\bno idea\b|^(?:\w+,\s+)?not sure\b|(?:nobody|no one)\s+(?:has\s+|have\s+)?(?:told|given|said|confirmed|heard)\b|"
    r"(?:i|we)\s+(?:haven't|have not|hadn't)\s+heard\b|"
    r"(?:not going to|won't|will not|can't|cannot)\s+(?:settle|decide|sort out|resolve|answer)\s+(?:that|this|it)\b|"
    r"(?:don't|do not)\s+want\s+to\s+commit\s+to\s+(?:that|this|it)\b|let's not commit\b|"
    r"let's\s+(?:park|leave)\s+(?:it|that|this)(?:\s+one)?\b)", re.IGNORECASE)
# A plan checked with the room ("Everyone happy with that?", "Any objections?") and the room's yes ("Good.") or
# lack of objection ("None."): the statement before the check is decided.
CHECKED = re.compile(
    r"^(?:(?:so|okay|ok|and)[,]?\s+)?(?:(?:is\s+)?(?:everyone|everybody|all)\s+"
    r"(?:happy|ok|okay|fine|good|agreed|alright)(?:\s+with\s+(?:that|this))?|"
    r"are\s+we\s+(?:all\s+)?(?:agreed|happy|ok|okay|good)(?:\s+with\s+(?:that|this))?|"
    r"all\s+agreed|does\s+that\s+work\s+for\s+(?:everyone|everybody|all of you)|"
    r"(?P<objections>any\s+objections(?:\s+to\s+[^?]+)?))\?$", re.IGNORECASE)
ROOM_YES = re.compile(r"^(?:good|great|yes|yeah|yep|fine|agreed|perfect|excellent|okay|ok|right|sounds good|all good|"
                      r"happy)\b[^?]*$", re.IGNORECASE)
NO_OBJECTION = re.compile(r"^(?:no|none|nope|no objections?|not from me|nothing from me)\b[^?]*$", re.IGNORECASE)
# A question to the room (not "do you want tea?"): a wh-question, or one about what we or it will do.
TO_THE_ROOM = re.compile(
    r"^(?!assistant\b)(?:(?:so|and|but|okay|ok|then)[,]?\s+)?(?:[A-Z][a-z]+,\s+)?"
    r"(?:who|what|when|where|which|how|why|whose|"
    r"(?:should|shall|do|will|can|are|could|would)\s+we|(?:is|are|will|does|can)\s+(?:it|there|that|this|the)\b|"
    r"(?:do|does)\s+(?:you|anyone|anybody)\s+know\s+(?:if|whether|when|who|what|where|how)\b)",
    re.IGNORECASE)
# A question put off for later: "Let's park the question of overtime.", "We'll come back to the seating plan on
# Friday.", "Let's revisit that next week." (a pointer: the question asked just before).  "Park" takes a topic
# only ("let's park the van" is no question).
_TOPIC = (r"(?:(?:the|this|that)\s+(?:\w+\s+)?(?:question|topic|issue|point|matter|discussion|subject)\b.*?"
          r"|it|this|that)")
DEFERRED = re.compile(
    rf"\b(?:let's|let us|we'll|we will|we can|we should|we need to)\s+(?:(?:park|table|leave)\s+(?P<topic>{_TOPIC})|"
    r"take\s+(?P<offline>it|this|that|(?:the|this|that)\s+\w+(?:\s+\w+)?)\s+offline|"
    r"(?:come back to|circle back to|circle back on|revisit|pick up)\s+(?P<what>.+?))"
    r"(?:\s+(?:next|later|tomorrow|on|in|at|after|until|when|once|before|for)\b.*)?[.!]?$",
    re.IGNORECASE,
)
POINTS_BACK = re.compile(r"^(?:this|that|it|this one|that one|(?:this|that|the) (?:question|point|topic|issue))$",
                         re.IGNORECASE)
# "And should we build it for phones first, or for the web?" right after an open question: one more.
ONE_MORE = re.compile(r"^(?:and|also|or|plus)\b,?\s+(?P<what>.+)\?$", re.IGNORECASE)


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
            what = (match.group("what") + (match.groupdict().get("more") or "")).strip(" .,:;")  # "... for the launch"
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
