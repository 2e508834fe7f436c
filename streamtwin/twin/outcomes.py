"""What a meeting settled and what it left open, read from its sentences by general grammar.

Decisions ("We settled on the smaller venue.") and open questions ("We don't know yet whether the hall is free.",
"That is still an open question" after the question it means).  The phrasings are in
:mod:`streamtwin.twin.decision_phrasings` and :mod:`streamtwin.twin.open_phrasings`; the owner-and-task grammar is
the rule extractor's (:mod:`streamtwin.twin.extract`), which feeds this one.

Plain class: no I/O, no clock.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field

from streamtwin.twin import decision_phrasings as settle  # how a matter is settled
from streamtwin.twin import open_phrasings as pending  # how it is left open
from streamtwin.twin.heard import key_words, overlap


def same_entry(a: str, b: str) -> bool:
    return overlap(key_words(a), key_words(b)) >= 0.5


def _proposed(match: re.Match[str]) -> str:
    """What a proposal proposes: whichever of its forms matched."""
    return next(what for what in (match.groupdict().get(name) for name in ("what", "choice", "bare")) if what)


def _echoes(reply: str, plan: str) -> bool:
    """ "We enter the mixed team only." - "Right, mixed only.": a yes that repeats a word of the plan takes it up."""
    echo = settle.ECHO.match(reply)
    said = echo and (echo.group("rest") or echo.group("then"))
    if not said or len(said.split()) > 5 or settle.MEETING_COURSE.search(plan):
        return False
    return bool(key_words(said) & key_words(plan))


def _restated(after_yes: str, plan: str) -> str:
    """ "Could we do twelve-thirty and store their bags?" - "Yeah. Twelve-thirty and luggage storage.": the sentence
    after a bare yes, if it says the plan again in words of its own (not a question, not "I'll ring her.")."""
    if after_yes.endswith("?") or re.match(r"(?i)i(?:'ll| will|'m going to)\b", after_yes):
        return ""
    said = key_words(after_yes)
    return after_yes if len(said) >= 2 and said & key_words(plan) else ""


def _plan_said_next(sentence: str, following: list[str]) -> str:
    """ "Let's try it. Thirty minutes from next month.": after settling words, the same voice's next sentence when it
    says what is done (a statement of its own, not the speaker's errand, a question or the meeting's course)."""
    if not (settle.SETTLES_NEXT.match(sentence) and following):
        return ""
    said = following[0]
    plan = (not said.endswith("?") and len(key_words(said)) >= 2 and not settle.NOT_THE_PLAN.match(said)
            and not settle.MEETING_COURSE.search(said))
    return said if plan else ""


@dataclass
class OutcomeReader:
    decisions: list[str] = field(default_factory=list)
    open_questions: list[str] = field(default_factory=list)
    _questions: list[tuple[int, str]] = field(default_factory=list)  # recent question sentences
    _open_at: int = -1  # the utterance that listed the last open question
    _before: str = ""  # the statement before this sentence: what "That's final." settles
    _proposal: tuple[int, str] | None = None  # "Should we move it to Friday?": when, and what was proposed
    _stated: tuple[int, str] = (-1, "")  # the last plan of ours said, and when: what "Agreed." settles
    _ruled_at: int = -1  # the utterance whose first sentence ruled on the question before it
    _checked: tuple[int, str, bool] | None = None  # a plan checked with the room: when, what, asked for objections
    _choice: tuple[int, str] | None = None  # "Postgres or Mongo for the events?": when asked, and the question
    _picked: tuple[int, str] | None = None  # "Postgres." right after it: when, and the question with the pick
    _motion: tuple[int, str] | None = None  # "All those in favour of ...?": when put to the vote, and what
    _said: list[tuple[int, str]] = field(default_factory=list)  # the last sentences read, and their utterances

    def read(self, sentence: str, following: list[str], utterance: int) -> None:
        """One sentence of utterance number ``utterance``; ``following``: the rest of that utterance."""
        self._closed_on(sentence, following, utterance)
        self._voted(sentence, utterance)
        self._said = [*self._said[-11:], (utterance, sentence)]
        if self._room_agrees(sentence, utterance):
            return
        if sentence.endswith("?"):
            self._choice = (utterance, sentence) if settle.EITHER_OR.search(sentence) else None
            checked = settle.CHECKED.match(sentence)
            plan = checked and (checked.group("plan") or checked.group("plan2") or self._before)
            if plan:  # "Does anyone object to closing early on bank holidays?": the plan is in the question
                self._checked = (utterance, plan, bool(checked.group("objections")))
            self._questions = [*self._questions[-3:], (utterance, sentence)]
            proposed = settle.PROPOSAL.match(sentence)
            self._proposal = (utterance, _proposed(proposed)) if proposed else None
        elif (self._accepted(sentence, following, utterance) or self._ruled(sentence, utterance)
              or self._chosen(sentence, utterance)):
            return
        elif proposed := settle.PROPOSED.match(sentence) or settle.WE_PLAN.search(sentence):
            self._proposal = (utterance, _proposed(proposed))
        self._decision(sentence, following)
        self._open_question(sentence, utterance)
        self._before = "" if sentence.endswith("?") else sentence
        if self._before and settle.OURS.search(sentence):
            # "Then let's just stop. No more postcards after this batch.": a short plan goes on in the next sentence
            short = len(key_words(sentence)) < 2 and following
            plan = f"{sentence.rstrip('.!')}. {following[0]}" if short else sentence
            if len(key_words(plan)) >= 2:
                self._stated = (utterance, plan.rstrip(".!"))

    def _room_agrees(self, sentence: str, utterance: int) -> bool:
        """ "The picnic moves to Sunday. Everyone happy with that?" - "Good.": the plan checked is decided."""
        if self._checked is None or self._checked[0] < utterance - 1:
            return False
        _, plan, objections = self._checked
        if (settle.NO_OBJECTION if objections else settle.ROOM_YES).match(sentence):
            self._decided(re.sub(r"^(?:(?:so|okay|ok|and|right|then)[,]?\s+)+", "", plan, flags=re.IGNORECASE))
            self._checked = None
            return True
        if not sentence.endswith("?"):
            self._checked = None  # answered otherwise ("No, not really.")
        return False

    def _accepted(self, sentence: str, following: list[str], utterance: int) -> bool:
        """ "Should we move the stand-up to ten?" - "Yes, let's do that.": what was proposed is decided; and
        "We need a second van." - "Agreed.": a plan of ours settled by the next voice."""
        if self._proposal is not None and utterance - 2 <= self._proposal[0] < utterance:  # by the next voices
            proposal = self._proposal[1]
            after_yes = following[0] if settle.CLOSER.match(sentence) and following else ""
            restated = _restated(after_yes, proposal)
            taken = settle.ACCEPT.match(sentence) or settle.ACCEPT.match(after_yes)  # "Yes, let's.", "Yeah. Do it."
            said_next = _plan_said_next(sentence, following)  # the plan as the one who took it up says it
            if taken or _echoes(sentence, proposal) or restated:
                self._decided(restated or (f"{proposal}; {said_next}" if said_next else proposal))
                self._proposal = None
                return True
        stated_at, stated = self._stated
        stated = re.sub(r"^(?:(?:so|okay|ok|and|well|then)[,]?\s+)+", "", stated, flags=re.IGNORECASE)
        proposed = stated.lower().startswith(("let's ", "let us "))  # "Let's do the picnic." - "Sounds good."
        plain_yes = settle.BARE_YES.match(sentence) and not settle.MEETING_COURSE.search(stated)  # "Fine."
        # "Let's swap the bulbs." - "Okay. I'll order the warm ones.": a yes that takes the work on
        taken_on = settle.CLOSER.match(sentence) and following and settle.TAKES_IT_ON.match(following[0])
        taken = settle.SETTLES.match(sentence) or _echoes(sentence, stated) or proposed and (
            settle.ACCEPT.match(sentence) or plain_yes or taken_on)
        if stated and stated_at == utterance - 1 and taken:
            # "Works for me. No badges, and the money goes on coffee.": what the yes goes on to say is part of it.
            said_more = following[0] if following and not following[0].endswith("?") and not taken_on else ""
            self._decided(f"{stated}; {said_more}" if said_more else stated)
            self._stated = (-1, "")
            return True
        return False

    def _closed_on(self, sentence: str, following: list[str], utterance: int) -> None:
        """ "Okay. Fine. Elm Road.", "Halibut, brown butter, capers. Fine.": a bare pick beside a closing word, in
        words of the three utterances before (what was being weighed), is what they settled on."""
        if sentence.endswith("?") or len(sentence.split()) > settle.PICK_WORDS or settle.NOT_A_PICK.search(sentence):
            return
        before = [said for at, said in self._said if at == utterance and re.search(r"\w", said)]  # not "..."
        closed = (before and all(settle.CLOSER.match(said) for said in before)) or (
            following and settle.CLOSER.match(following[0]))
        picked = key_words(sentence)
        weighed = [(at, said) for at, said in self._said if utterance - 3 <= at < utterance]
        if not (closed and picked) or 2 * len(picked & set().union(*(key_words(s) for _, s in weighed))) < len(picked):
            return
        if len(picked) > 1:
            self._decided(sentence)
            return
        # "Fine. Fine. Lights.": one word is a pointer; the decision is where it was said ("No smoke. We'll do it with
        # lights."), with the sentence before it.
        said = [s for _, s in weighed]
        where = max(i for i, s in enumerate(said) if picked & key_words(s))
        self._decided(" ".join(said[max(where - 1, 0) : where + 1]) if where else said[where])

    def _voted(self, sentence: str, utterance: int) -> None:
        """ "All in favour of moving the AGM to March?" - "Six. Against? None. Carried.": the motion is decided (the
        plan said before it when the call names none)."""
        if motion := settle.IN_FAVOUR.search(sentence):
            if self._motion is not None and self._motion[0] == utterance and not motion.group("motion"):
                return  # "Let's vote. Hands up for.": one call
            put = motion.group("motion") or self._before
            self._motion = (utterance, settle.PUTS.sub("", put).strip(" ,."))
        elif (self._motion is not None and self._motion[0] >= utterance - settle.VOTE_ROUND
              and settle.CARRIED.search(sentence)):
            if self._motion[1]:
                self._decided(f"Carried: {self._motion[1]}")
            self._motion = None

    def _chosen(self, sentence: str, utterance: int) -> bool:
        """ "Camping or the cottage?" - "Cottage, the kids hated the tent." - "Done.": one of two, picked by the next
        voice and taken up by the one after, is decided (a pick nobody takes up is one opinion)."""
        if self._picked is not None and self._picked[0] == utterance - 1:
            picked, self._picked = self._picked[1], None
            taken = settle.ACCEPT.match(sentence) or settle.SETTLES.match(sentence) or settle.DONE.match(sentence)
            if taken or _echoes(sentence, picked.partition("?")[2]):  # "Museum, then.": the one picked, said again
                self._decided(picked)
                return True
        if self._choice is not None and self._choice[0] == utterance - 1:
            asked, self._choice = self._choice[1], None
            first, _, second = asked.partition(" or ")
            either, other = key_words(first), key_words(second)
            said = key_words(sentence.partition(",")[0])  # "The app, nobody reads the forms.": the pick comes first
            if bool(said & (either - other)) != bool(said & (other - either)):
                self._picked = (utterance, f"{asked} {sentence}")
        return False

    def _ruled(self, sentence: str, utterance: int) -> bool:
        """ "Can we use our notes during the quiz?" - "No notes, Omar.": the question and its ruling are decided."""
        if not self._questions or self._questions[-1][0] != utterance - 1 or self._ruled_at == utterance:
            return False
        asked = self._questions[-1][1]
        ruling = settle.RULING.match(sentence)
        said = set(re.findall(r"[a-z']+", sentence.lower()))  # "Should it go on the front, or is that too much?"
        echoed = bool(said) and len(said) <= 3 and said <= set(re.findall(r"[a-z']+", asked.lower()))  # "Too much."
        if not settle.MAY_WE.match(asked) or not (
                echoed or ruling and key_words(ruling.group("rest")) & key_words(asked)):
            return False
        self._ruled_at = utterance  # the first sentence of the reply rules; the rest is read as usual
        self._decided(f"{asked} {sentence}")
        return True

    def _decision(self, sentence: str, following: list[str]) -> None:
        if sentence.endswith("?"):
            return  # "Did we decide ...?" decides nothing
        if said_next := _plan_said_next(sentence, following):
            self._decided(said_next)  # "Yeah, do it. Heavy hinges."
            return
        match = settle.DECISION.search(sentence)
        if not match:
            whole = settle.decided_whole(sentence)  # "Green walls it is.", "That's final." (the sentence before)
            if whole is not None:
                self._decided(whole or self._before)
            return
        if settle.denied(sentence, match.start()) or settle.NOT_NOW.search(sentence[: match.start()]):
            return  # "We have not agreed ...", "If we went with ...", "Last year we went with ..." decide nothing
        what = re.sub(r"^(?:.*?:\s*|that\s+|then,?\s+|on\s+|for\s+)", "", match.group("what")).strip(" .:,")
        if len(key_words(what)) < 2 and following and not (what.lower().startswith("to ") and key_words(what)):
            # "We decided one thing already. The first version ...": what was decided comes next,
            # with the fragments speech recognition split off it ("20,000 for online ads. and no print ads.");
            # "We decided to replace it." is whole.
            rest = [following[0]] + list(itertools.takewhile(lambda s: s[:1].islower(), following[1:]))
            what = " ".join(rest).strip(" .:,")
        elif not key_words(what) and not following:
            if settle.AGREED_ALONE.match(sentence) and not settle.A_PLAN.search(self._before):
                return  # "The new logo looks great." - "Agreed.": an opinion shared, nothing settled
            what = self._before  # "We keep Fridays. It's settled."
        self._decided(what)

    def _decided(self, what: str) -> None:
        what = what.strip(" .:,")
        if len(key_words(what)) >= 1 and not any(same_entry(what, d) for d in self.decisions):
            self.decisions.append(what[0].upper() + what[1:])

    def _open_question(self, sentence: str, utterance: int) -> None:
        if self._nobody_knows(sentence, utterance):
            return
        whether = pending.WHETHER.search(sentence)
        one_more = pending.ONE_MORE.match(sentence) if self._open_at >= utterance - 1 else None
        asked = sentence.endswith("?")
        left_open = None if whether or one_more or asked else pending.unsettled(sentence)
        if left_open is None and not whether and not one_more and not asked:
            left_open = pending.deferred(sentence)  # "Let's park the question of overtime."
        if left_open is not None and settle.POINTS_BACK.match(left_open):
            left_open = ""  # "That is still undecided.": the question just before
        if not whether and not one_more and left_open is None and not pending.OPEN.search(sentence):
            return
        if left_open:
            question = left_open
        elif one_more:
            question = one_more.group("what").strip()
        elif whether:
            question = whether.group("what").strip(" .?")
        elif self._questions and self._questions[-1][0] >= utterance - 2:
            question = self._asked_last()  # "That is still an open question": the question asked just before
        else:
            return
        self._left_open(question, utterance)

    def _asked_last(self) -> str:
        """The question sentences of the last utterance that asked any (with its lead-in: "What about the logo? Do
        we keep the old one?")."""
        last_at = self._questions[-1][0]
        return " ".join(q for at, q in self._questions if at == last_at)

    def _nobody_knows(self, sentence: str, utterance: int) -> bool:
        """ "Who pays for the new fence?" - "No idea, honestly." or "Good point, and I don't know yet.": the question
        to the room before is open (a sentence that names what is open says so itself: :func:`pending.unsettled`); and
        "I think we should go to a four-day week." - "We're not going to agree on that today.": so is the proposal."""
        if sentence.endswith("?"):
            return False
        if not (pending.NOBODY_KNOWS.match(sentence) or pending.DEPENDS.match(sentence)) and (
                pending.unsettled(sentence) is not None or not pending.UNANSWERED.search(sentence)):
            return False
        matter = self._open_matter(utterance)
        if matter:
            self._left_open(matter, utterance)
        return bool(matter)

    def _open_matter(self, utterance: int) -> str:
        """What a reply that does not settle it leaves open: the question to the room of the last two utterances,
        else a proposal made there."""
        if self._questions and utterance - 2 <= self._questions[-1][0] < utterance:
            question = self._asked_last()
            to_the_room = pending.TO_THE_ROOM.match(question) and not pending.ASKS_VIEW.search(question)
            if to_the_room or settle.EITHER_OR.search(question):
                return question
        proposal = self._proposal
        if proposal is not None and utterance - 2 <= proposal[0] < utterance and self._open_at < proposal[0]:
            return proposal[1]  # (not when a question left open since then is what the reply answers)
        return ""

    def _left_open(self, question: str, utterance: int) -> None:
        if len(key_words(question)) >= 1 and not any(same_entry(question, q) for q in self.open_questions):
            self.open_questions.append(question)
            self._open_at = utterance
