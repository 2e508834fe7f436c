"""How meetings say what they settled: the decision grammar :mod:`streamtwin.twin.outcomes` reads.

Decisions said outright ("We decided ...", "We all agree that ...", "We'll stick with ..."), said before the
words that settle them ("Green walls it is.", "The venue has been confirmed."), and proposals with the replies that
take them up ("Should we ...?" - "Let's do that.").  General English, not the sentences of any evaluation set; what
is not a decision (a question, a denial, a hypothesis, a past report, one person's things) is said here too.  What a
meeting leaves open is :mod:`streamtwin.twin.open_phrasings`.

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
    re.compile(r"^(?:(?:so|okay|ok|right|alright)[,]?\s+)?(?P<what>[^?]+?(?:\s+(?:is|are|has been|have been)|'s|'re)\s+"
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
    # "So no raffle this time.", "Fine, no dessert then." (not "Okay, no problem.", "So no one came.")
    re.compile(r"^(?:(?:so|then|okay|ok|right|fine|alright)[,.]?\s+)+(?P<what>no\s+(?!(?:one|body|idea|way|problems?|"
               r"worries|rush|need|thanks|doubt|wonder|matter|offence|pressure|chance|comment|luck|kidding|"
               r"questions?|objections?|more questions)\b)[a-z][^?,]*?)[.!]$", re.IGNORECASE),
    # A choice said with what it replaces: "We're having the party on the roof, not in the hall." (not "We're doing
    # well, not brilliantly.")
    re.compile(rf"{_CLOSING}(?P<what>we(?:'re| are|'ll| will)\s+(?:doing|having|using|taking|running|keeping|"
               rf"going with|do|have|use|take|run|keep|go with)\s+(?!(?:well|fine|great|ok(?:ay)?|alright|badly|"
               rf"better|worse|our best|it)\b)[^?]*?),?\s+not\s+[^?]+?[.!]$", re.IGNORECASE),
    # The room's next step, concluded: "Then we repaint the fence." (not "Then we see.")
    re.compile(r"^then,?\s+(?P<what>we\s+(?!(?:see|need|have|think|know|talk|can|could|might|should|will|would|are|"
               r"were|had|did|do|don't|get|go)\b)[a-z]+\b[^?]*?)[.!]$", re.IGNORECASE),
    re.compile(r"^(?:(?:so|okay|ok|then|right|fine|sure|yes|yeah)[,]?\s+)*(?!(?:of course|sure|yes|yeah|no|maybe|perhaps|"
               r"probably|definitely|surely|honestly|really|actually|well|i (?:think|know|guess|hope|bet))\b)"
               r"(?P<what>[^?]+?),?\s+it is(?:,?\s+then)?(?P<more>\s+for\s+[^?]+?)?"
               r"(?:,\s+(?!(?:is|isn't|i|you|we)\b)[^?]+?)?[.!]$",  # "Quiz it is, forget the raffle."
               re.IGNORECASE),
    re.compile(rf"^(?:so|okay|ok|then|right|fine)?,?\s*(?P<what>[^?]*?)[,:;]?\s*\b(?:that's|that is|it's|it is)\s+"
               rf"(?:now\s+|all\s+)?(?:{_SETTLED}|the (?:rule|policy)(?:\s+now|\s+from now on)?)(?:,?\s+then)?[.!]$",
               re.IGNORECASE),
    re.compile(rf"^(?:so,?\s+)?(?P<what>[^?]+?)\s+(?:is|are)\s+(?:now\s+)?{_SETTLED}[.!]$", re.IGNORECASE),
)
MINE = re.compile(r"\b(?:my|your|his|her|mine|yours|hers)\b", re.IGNORECASE)
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
                    r"(?:just )?do (?:it|that)|go ahead|"
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
# Settling words that point at what the same voice says next: "Let's try it. Thirty minutes from next month.",
# "Yeah, do it. Heavy hinges.", "Good, that's what we'll do then. Vans on Monday, cars on Tuesday."
SETTLES_NEXT = re.compile(r"^(?:(?:yes|yeah|yep|ok(?:ay)?|right|good|great|fine|alright|all right)[,.!]?\s*)*"
                          r"(?:let's (?:do|try) (?:it|that|this)|(?:just )?do it|go for it|so be it|that's the plan|"
                          r"that's what we(?:'ll| will|'re going to| are going to) do|that's what we're doing)"
                          r"(?:,?\s+then)?[.!]?$", re.IGNORECASE)
# A yes that takes a plan of ours on as one's own work: "Okay. I'll order the new bulbs." (not "Okay, I'll think
# about it.": a yes to consider it).
TAKES_IT_ON = re.compile(r"^i(?:'ll| will)\s+(?!(?:think|check|see|look|ask|find out|have a think|get back|"
                         r"let you know|try|consider|mull|sleep on|run it by|talk|speak)\b)\w", re.IGNORECASE)
# What a voice goes on with that is not what was settled: its own errand, a question, someone else's news.
NOT_THE_PLAN = re.compile(r"^(?:i|i'm|i'll|i've|i'd|you|he|she|they|he's|she's|they're|thanks|thank)\b",
                          re.IGNORECASE)
# "Agreed." on its own settles only a plan before it, not an opinion ("The new logo looks great." - "Agreed.").
AGREED_ALONE = re.compile(r"^(?:(?:yes|yeah|ok|okay)[,.]?\s+)?(?:agreed|i agree|we agree)[.!]?$", re.IGNORECASE)
A_PLAN = re.compile(r"\b(?:we|let's|let us|should|need to|must|have to|shall)\b", re.IGNORECASE)
SETTLES = re.compile(r"^(?:(?:yes|yeah|ok|okay|right|great|good|fine)[,.!]?\s*)*(?:agreed|deal|let's do (?:it|that)|"
                     r"sounds like a plan|that's the plan|so be it|done)[.!]?$", re.IGNORECASE)
# A yes and nothing more, a closing word: "Yeah, fair.", "... Okay. Fine." Beside a bare pick of what was just
# discussed it is a verdict ("Okay. Fine. Elm Road.", "Halibut, brown butter, capers. Fine."); before the plan said
# again, it takes up a proposal ("Yeah. Twelve-thirty and luggage storage.").
CLOSER = re.compile(r"^\W*(?:(?:okay|ok|fine|alright|all right|right|yeah|yes|yep|yup|sure|fair|go on then|done|deal|"
                    r"agreed)[,.!]?\s*)+$", re.IGNORECASE)
# A clause or a turn of the meeting, not a bare pick: a subject, a verb of being, doing or modality, a conjunction, a
# question word, thanks, or words that run the meeting ("Okay. Next item.", "Right. Thanks, Priya.").
NOT_A_PICK = re.compile(r"\b(?:i|we|you|he|she|they|it|that|this|there|is|are|was|were|be|been|will|would|could|should|"
                        r"can|do|does|did|have|has|had|thanks|thank|sorry|please|next|item|agenda|question|point|"
                        r"moment|minute|second|hang|wait|listen|look|so|but|and|or|because|if|who|what|when|where|why|"
                        r"how|not|no|oh|ah|aw|wow|ooh|um|er|hmm|honestly|well)\b|'", re.IGNORECASE)
PICK_WORDS = 6  # a pick is a few words: "Eight till two on Sundays."


# A vote: "All those in favour of moving the AGM to March?", "Let's vote. Hands up for." ... "Carried." (not "The
# motion falls.").  A call that names no motion puts the plan said before it.
IN_FAVOUR = re.compile(r"\b(?:all|those)\s+(?:those\s+)?in\s+favou?r(?:\s+of\s+(?P<motion>[^?.]+))?|"
                       r"\b(?:let's|we'll|we will|shall we)\s+(?:have\s+a\s+|take\s+a\s+)?vote\b|"
                       r"\b(?:a\s+)?show\s+of\s+hands\b|^hands\s+up\b", re.IGNORECASE)
VOTE_ROUND = 6  # utterances a vote may take: the call, a yes or no from each, the count
# "My proposal is ...", "I propose we ...": the words that put a motion, not the motion.
PUTS = re.compile(r"^(?:(?:so|and|okay|ok|right)[,]?\s+)?(?:my proposal is|i(?:'d)? propose|i move that|"
                  r"i(?:'d)? suggest)(?:\s+that)?(?:\s+we)?\s+", re.IGNORECASE)
CARRIED = re.compile(r"^(?:(?:so|then|okay|ok|right)[,]?\s+)?(?:the\s+)?(?:motion\s+(?:is\s+)?)?(?:carried|passed)\b|"
                     r"^(?:that's|that is)\s+carried\b|\bthe ayes have it\b", re.IGNORECASE)


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
POINTS_BACK = re.compile(r"^(?:this|that|it|this one|that one|(?:this|that|the) (?:question|point|topic|issue))$",
                         re.IGNORECASE)


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


def denied(sentence: str, keyword_at: int) -> bool:
    """Is the word at ``keyword_at`` denied ("we have not agreed", "nobody decided")?"""
    return bool(DENIED.search(sentence[:keyword_at]))
