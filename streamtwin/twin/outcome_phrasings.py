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

_MONTH = r"(?:january|february|march|april|may|june|july|august|september|october|november|december)"
# When a new way of doing things starts: "from next sprint", "starting Monday", "as of November".
_FROM_WHEN = (rf"(?:from|as of|starting|beginning)\s+(?:now on|today|tomorrow|tonight|now|next \w+|this \w+|"
              rf"(?:mon|tues|wednes|thurs|fri|satur|sun)days?|{_MONTH})")
DECISION = re.compile(
    r"\b(?:we decided|we have decided|we've decided|decided to|we agreed|agreed|the decision is|let's go with|"
    r"we're going with|we are going with|we'll go with|we will go with|let's stick with|we're sticking with|"
    r"we are sticking with|we settled on|we've settled on|we have settled on|final decision|we chose|"
    r"we've chosen|we have chosen|it's settled|it is settled|"
    r"we(?:'ve| have)? (?:opted for|picked|selected|went with|voted (?:for|to))|"
    r"(?:let's|we'll|we will|we're going to) go ahead with|the plan is(?= to\b| that\b| we\b)|"
    # Someone with the say ruling: "I'm making the call: ...", "My decision is to ...", "I'm saying no to ..."
    r"(?:i'm|i am) making the call(?=:)|my (?:decision|call|ruling) is(?= to\b| that\b|:)|"
    r"(?:i'm|i am) (?:saying|going to say) (?=no to\b)|"
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
    rf"^(?:(?:so|okay|ok|right|and|yes|yeah|then|good|fine)[,]?\s+)*(?:from now on|going forward|{_FROM_WHEN})"
    r"(?![,]?\s+(?:i|i'm|i'll|i've)\b)|"  # not "From Monday I'm on leave."
    # Closing words that point back: "End of discussion.", "Locking that in.", "That's where we've landed.", "Five to
    # two, it passes.", "Hearing nothing, ...", "As planned, then."
    r"end of discussion|lock(?:ing)? (?:that|it|this) in|(?:that's|that is) where we(?:'ve| have)? landed|"
    r"(?:it|the motion|the proposal) (?:passes|is passed|carries|is carried)|hearing (?:nothing|no objections?)|"
    r"^(?:(?:good|great|ok(?:ay)?|right|fine)[,]?\s+)?as planned|"
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
# Verbs of a change of how things are done: what "... from next month" announces.
_CHANGES = (r"moves?|moving|switch(?:es|ing)?|swap(?:s|ping)?|chang(?:es|ing)|replac(?:es|ing)|drop(?:s|ping)?|goes|"
            r"going|becom(?:es|ing)|clos(?:es|ing)|open(?:s|ing)|starts?|starting|stops?|stopping|ends?|ending|"
            r"runs?|running|cut(?:s|ting)?|introduc(?:es|ing)")
DECIDED_WHOLE = (
    # A conclusion of the room's: "Okay, so we'll keep the old supplier.", "We'll meet on Fridays, then."
    re.compile(r"^(?:(?:ok(?:ay)?|alright|all right|right|good|fine)[,.]?\s+)?so,?\s+we(?:'ll| will|'re going to|"
               r"are going to)\s+(?!need\b|have to\b|see\b|be\b|talk\b|hear\b)(?P<what>[^?]+?)[.!]$", re.IGNORECASE),
    # "Fine, we'll keep the old pricing for now.", "Okay, we're switching to the new supplier.", "We're definitely
    # keeping the night shift.": a closing word (or a certainty) before a choice of ours (not "Okay, we'll take a
    # break.", "Right, we're looking at the chart.": the meeting's own course).
    re.compile(rf"^(?:(?:(?:ok(?:ay)?|alright|all right|right|fine|good|great|then|tonight|today|for now|this week)"
               rf"[,.]?\s+)+(?:so,?\s+)?"
               rf"(?:then,?\s+)?(?=we)|(?=we(?:'re| are| will|'ll) (?:definitely|certainly)\b))"
               rf"(?P<what>we(?:'ll| will|'re going to| are going to|'re| are)?\s+(?:definitely\s+|certainly\s+)?"
               rf"(?:not\s+)?{_CHOICE}\b[^?]*?)[.!]$", re.IGNORECASE),
    # A change announced with when it starts: "Training's moving indoors from November.", "Lab meeting moves to
    # Tuesdays, starting next week.", "We're replacing the free trial with a paid pilot from next quarter." (not one
    # person's: "I'm moving to Leeds from May.")
    re.compile(rf"^(?:(?:ok(?:ay)?|so|right|then|fine|and|yeah|yes|well|quick one|heads up|just so you know)[,.:]?\s+)*"
               rf"(?P<what>(?!(?:i|i'm|i'll|my|he|she|he's|she's|they|they're|you|you're)\b)[^?,]*?\b(?:{_CHANGES})\b"
               rf"[^?]*?\b{_FROM_WHEN}\b[^?]*?)[.!]$", re.IGNORECASE),
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
               r"(?:\s+(?:to|until|till)\s+[^?]+?)?)(?:,\s+[^?]+?)?[.!]$", re.IGNORECASE),
    # The room choosing not to: "We're not doing the mobile app this year.", "We're dropping the print edition."
    re.compile(r"^(?:(?:so|okay|ok|right|alright)[,]?\s+)?(?P<what>we(?:'re| are)\s+(?:not\s+(?:doing|going ahead "
               r"with|pursuing)|dropping(?!\s+(?:off|by|in)\b)|scrapping|shelving|cancell?ing|postponing)\s+[^?]+?|"
               r"we\s+(?:won't|will not)\s+be\s+(?!able\b)[a-z]+ing\s+[^?]+?|"
               r"we(?:'re| are)\s+not\s+going\s+to\s+(?!settle|decide|agree|make|finish|get|have|be|know|solve|resolve|"
               r"see|talk|discuss)[a-z]+\s+[^?]+?)(?:,\s+[^?]+?)?[.!]$", re.IGNORECASE),
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
    re.compile(r"^(?:(?:so|okay|ok|then|right|fine|sure|yes|yeah)[,]?\s+)*(?!(?:of course|sure|yes|yeah|no|maybe|perhaps|"
               r"probably|definitely|surely|i (?:think|know|guess|hope|bet))\b)(?P<what>[^?]+?),?\s+it is(?:,?\s+then)?"
               r"(?P<more>\s+for\s+[^?]+?)?[.!]$", re.IGNORECASE),
    re.compile(rf"^(?:so|okay|ok|then|right|fine)?,?\s*(?P<what>[^?]*?)[,:;]?\s*\b(?:that's|that is|it's|it is)\s+"
               rf"(?:now\s+|all\s+)?(?:{_SETTLED}|the (?:rule|policy)(?:\s+now|\s+from now on)?)(?:,?\s+then)?[.!]$",
               re.IGNORECASE),
    re.compile(rf"^(?:so,?\s+)?(?P<what>[^?]+?)\s+(?:is|are)\s+(?:now\s+)?{_SETTLED}[.!]$", re.IGNORECASE),
)
_ASKS = r"(?:whether|if|how|what|who|when|where|which|why)"
MINE = re.compile(r"\b(?:my|your|his|her)\b", re.IGNORECASE)
# Said of nothing settled: "Nothing is decided yet.", "That's just how it is.", "I don't know what time it is."
NOTHING = re.compile(r"^(?:nothing|none|not much)\b|\b(?:what|how|where|who|why|whatever|way|know)\b", re.IGNORECASE)
# An order of a choice, put to the room: "Then just switch to the other courier.", "Push it to Saturday, then?"
_CHOICE_ORDER = r"(?:switch|swap|move|push|keep|drop|cut|cancel|skip|go with|stick with|replace|postpone|leave)\b"
# Words that open a real question, not a bare suggestion ("Who?", "Is it Friday?", "You mean the red one?").
_NOT_BARE = (r"(?:who|what|when|where|which|why|how|whose|is|are|was|were|do|does|did|can|could|will|would|should|"
             r"shall|"
             r"may|might|have|has|had|you|we|i|he|she|they|it|that|this|anyone|anybody|really|sorry|right|seriously)\b")
# A proposal put to the room, and a reply that takes it up: "Should we move the stand-up to ten?" - "Yes, let's do
# that." (a bare "yes" or "sure" answers many questions that propose nothing, so it is not enough).
# "Could we just ...?", "What about a rota?" propose too, but not the meeting's own course ("Can we start?",
# "Could we see the slides?").
_COURSE_WORDS = (r"see|(?:start|begin|get started)(?=\s+with\b|\s*[,.?!]|$)|"
                 r"go(?=\s+(?:on|through|round|around|over)\b|\s*[,.?!]|$)|get (?:going|started|on|through)|move on|"
                 r"take (?:a|five|ten|\w+ minutes)|look|hear|talk|discuss|chat|wrap|finish|"
                 r"stop|continue|pause|share|come back|go through|cover|have a (?:look|break|word)|break|grab a coffee")
_COURSE = rf"(?!\s+(?:just\s+|all\s+)?(?:{_COURSE_WORDS})\b)"
PROPOSAL = re.compile(r"^(?:so|and|then|okay|ok|well)?,?\s*(?:should we|shall we|why don't we|how about we|what if|"
                      r"do we want to|maybe we should|can we (?:all )?agree (?:to|that|on)|"
                      r"are we (?:all )?agreed (?:to|that|on)|do we all agree (?:to|that|on)|"
                      r"(?:(?:could|can|couldn't|can't) we|(?:maybe|perhaps|so) we|what about|how about|why not)"
                      rf"{_COURSE})"
                      r"\s+(?P<what>[^?]+)\?$|"
                      rf"^(?:so|and|then|okay|ok|well)?,?\s*(?:just\s+)?(?P<choice>{_CHOICE_ORDER}[^?]+?)"
                      r"(?:,?\s+then)?\?$|"
                      # A suggestion said as a bare question: "Forty-five?", "Thursday at three?", "The blue one, then?"
                      r"^(?:(?:so|and|then|okay|ok|well|um|maybe)[,]?\s+)*"
                      rf"(?P<bare>(?!{_NOT_BARE})(?:[\w'-]+[ ,]+){{0,4}}[\w'-]+)"
                      r"(?:,?\s+then)?\?$", re.IGNORECASE)
# Said as a statement, a proposal too waits for the reply: "I suggest we rent two vans." - "Makes sense."
PROPOSED = re.compile(
    r"^(?:so|and|then|okay|ok|well)?,?\s*(?:i(?:'d| would)? suggest|i(?:'d| would)? propose|my suggestion is|"
    r"my proposal is|(?:maybe|perhaps) we could|we could(?: always| just)?|i(?:'d| would) rather|i think we should|"
    rf"i(?:'d| would) prefer(?= (?:we|to|that)\b))\s+(?:that\s+)?(?:we\s+|to\s+)?(?!(?:{_COURSE_WORDS})\b)"
    r"(?P<what>[^?]+?)[.!]?$|"
    # an order of a choice, put to the room: "Then just switch to the other courier." - "No objection."
    rf"^(?:so|and|then|okay|ok|well)?,?\s*(?:(?:then|just|maybe|perhaps)\s+)*(?P<choice>{_CHOICE_ORDER}[^?]+?)[.!]?$",
    re.IGNORECASE)
# A plan of the room's ("... but realistically we'll start with two sites."), decided once someone takes it up.
WE_PLAN = re.compile(r"\bwe(?:'ll| will|'re going to| are going to)\s+(?!be\b|see\b|need\b|have to\b)"
                     r"(?P<what>[^?,;]+?)[.!]?$", re.IGNORECASE)
ACCEPT = re.compile(r"^(?:(?:yes|yeah|yep|ok|okay|sure|right|great|good|fine|absolutely|lovely|perfect|cool|alright|"
                    r"all right|oh|mm|mhm|hmm|um)[,.!]?\s*)*"
                    r"(?:agreed|i agree|let's(?: do (?:it|that|this)| go for it| (?:try|run with) (?:it|that|this))?|"
                    r"sounds (?:good|great|fine)(?: to me)?|good idea|great idea|good call|fine by me|works for me|"
                    r"suits me|that works(?: for me)?|(?:that )?makes? sense(?: to me)?|we should|go for it|deal|sold|"
                    r"(?:i'm|i am) happy with (?:that|it|this)|happy with that|fair enough|go on(?:,)? then|"
                    r"no objections?(?: from me)?|count me in|"
                    r"(?:i'm|i am) (?:on board(?: with (?:that|it|this))?|in|all for it|with you)|"
                    r"(?:i )?can't argue with that|(?:i'm|i am) happy to (?:give it a go|try it|try that)|give it a go|"
                    r"(?:i|we) can live with\b[^?]*|(?:that's|that is) fine(?: by me| with me)?|why not)"
                    r"(?:[,.!]\s*.*|\s+(?:from|for|then|next|again|today|now)\b[^?]*|[.!]?)$", re.IGNORECASE)
# A plan of ours said any way ("We need a second van for the kit.", "Let's keep the old logo.") that the next voice
# settles with more than a yes: "Agreed.", "Deal.", "Let's do that.", "Sounds like a plan."
OURS = re.compile(r"\b(?:we|let's|let us)\b(?!\s+(?:think|feel|like|love|hope|know|saw|had|were|was)\b)", re.IGNORECASE)
# A yes that says part of the plan again: "Right, mixed only.", "Yes, Fridays." (not of the meeting's own course:
# "We need to talk about the budget." - "Right, the budget.").
ECHO = re.compile(r"^(?:(?:yes|yeah|yep|right|ok|okay|fine|good|great|sure|exactly|perfect)[,.!]?\s+"
                  r"(?P<rest>[^?]*\w[^?]*?)|"
                  r"(?P<then>[^?]*\w[^?]*?),?\s+then)[.!]?$", re.IGNORECASE)
MEETING_COURSE = re.compile(rf"^(?:(?:so|okay|ok|and|well|then|right)[,]?\s+)*(?:let's|let us|we(?:'ll| will)?|"
                            rf"(?:we )?need to)\s+(?:just\s+|quickly\s+)?(?:{_COURSE_WORDS})\b|"
                            r"\b(?:talk|discuss) about\b",
                            re.IGNORECASE)
# A plain yes to "Let's ...": "Fine.", "Perfect."; and "Done." or "OK, done, the cottage." after a pick.
BARE_YES = re.compile(r"^(?:fine|good|great|perfect|lovely|excellent)[.!]?$", re.IGNORECASE)
DONE = re.compile(r"^(?:(?:ok(?:ay)?|right|fine|great)[,.]?\s+)?done\b", re.IGNORECASE)
# "Agreed." on its own settles only a plan before it, not an opinion ("The new logo looks great." - "Agreed.").
AGREED_ALONE = re.compile(r"^(?:(?:yes|yeah|ok|okay)[,.]?\s+)?(?:agreed|i agree|we agree)[.!]?$", re.IGNORECASE)
A_PLAN = re.compile(r"\b(?:we|let's|let us|should|need to|must|have to|shall)\b", re.IGNORECASE)
SETTLES = re.compile(r"^(?:(?:yes|yeah|ok|okay|right|great|good|fine)[,.!]?\s*)*(?:agreed|deal|let's do (?:it|that)|"
                     r"sounds like a plan|that's the plan|so be it|done)[.!]?$", re.IGNORECASE)
# A choice put to the room: "Do we open with the slow one or the loud one?" (not "... or not?", "... or something?").
EITHER_OR = re.compile(r"\w,?\s+or\s+(?!not\b|so\b|something\b|what\b|anything\b|else\b|anyone\b|whatever\b)\w",
                       re.IGNORECASE)
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
# A plan checked with the room ("Everyone happy with that?", "Any objections?") and the room's yes ("Good.") or
# lack of objection ("None."): the statement before the check is decided.
CHECKED = re.compile(
    r"^(?:(?:so|okay|ok|and)[,]?\s+)?(?:(?:is\s+)?(?:everyone|everybody|all)\s+"
    r"(?:happy|ok|okay|fine|good|agreed|alright)(?:\s+with\s+(?:that|this))?|"
    r"are\s+we\s+(?:all\s+)?(?:agreed|happy|ok|okay|good)(?:\s+with\s+(?:that|this))?|"
    r"all\s+agreed|does\s+that\s+work\s+for\s+(?:everyone|everybody|all of you)|"
    r"(?P<objections>any\s+objections(?:\s+to\s+(?P<plan>[^?]+))?|"
    r"(?:does|do)\s+(?:anyone|anybody)\s+(?:object|have\s+(?:any\s+)?objections?)(?:\s+to\s+(?P<plan2>[^?]+))?))\?$",
    re.IGNORECASE)
ROOM_YES = re.compile(r"^(?:good|great|yes|yeah|yep|fine|agreed|perfect|excellent|okay|ok|right|sounds good|all good|"
                      r"happy)\b[^?]*$", re.IGNORECASE)
NO_OBJECTION = re.compile(r"^(?:no|none|nope|no objections?|not from me|nothing from me|not me)\b[^?]*$", re.IGNORECASE)
# A question to the room (not "do you want tea?"): a wh-question, or one about what we or it will do.
TO_THE_ROOM = re.compile(
    r"^(?!assistant\b)(?:(?:so|and|but|okay|ok|then)[,]?\s+)?(?:[A-Z][a-z]+,\s+)?"
    r"(?:who|what|when|where|which|how|why|whose|the\b|"  # "And the budget for the new microscope?"
    r"(?:should|shall|do|will|can|are|could|would)\s+we|(?:is|are|will|does|can|should|shall|would|could)\s+"
    r"(?:it|there|that|this|the)\b|"
    r"(?:do|does)\s+(?:you|anyone|anybody)\s+know\s+(?:if|whether|when|who|what|where|how)\b)",
    re.IGNORECASE)
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


def denied(sentence: str, keyword_at: int) -> bool:
    """Is the word at ``keyword_at`` denied ("we have not agreed", "nobody decided")?"""
    return bool(DENIED.search(sentence[:keyword_at]))
