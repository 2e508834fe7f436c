"""A twin draft from explicit phrasings, without a language model.

Meetings state their results in a few recurring ways: "Carol, please fix the
search page by Wednesday", "Bob, can you send ...?" / "Yes, I will send ...",
"We decided to ...", "One open question is whether ...", "No, Friday, not
Thursday".  This extractor reads utterances in order and keeps a draft of people,
action items, decisions and open questions built only from such phrasings, so
every entry quotes what was said.  It is the twin of ``--llm none``, and with a
model its entries join the model's (the model adds what is said less explicitly).
"I will ..." belongs to the speaker when the utterance comes with one (speaker labels:
a name the voice gave, or "S2" before it gave one); without labels it gets the person
addressed just before, or the one thanked just after, else no owner.

Plain class: no I/O, no clock.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from streamtwin.twin import change_phrasings as change_say
from streamtwin.twin import order_phrasings as orders
from streamtwin.twin import phrasings as say
from streamtwin.twin import task_changes as changes
from streamtwin.twin.addressing import Addressing
from streamtwin.twin.due import task_and_due
from streamtwin.twin.heard import UNASSIGNED, key_words
from streamtwin.twin.task_changes import Task
from streamtwin.twin.outcomes import OutcomeReader, same_entry
from streamtwin.twin.phrasings import VOICE_LABEL, names, sentences

_KEPT_REQUESTS = 16  # the latest requests asked of nobody named: a model's owner is checked against them


def is_voice_label(speaker: str) -> bool:
    """"S2": a voice that has not said its name (a name, or "", is not)."""
    return bool(VOICE_LABEL.match(speaker))


@dataclass
class RuleExtractor:
    items: list[Task] = field(default_factory=list)
    outcomes: OutcomeReader = field(default_factory=OutcomeReader)  # decisions and open questions
    room: Addressing = field(default_factory=Addressing)  # who is who, who speaks, who is spoken to
    _addressed: str = ""  # the last person asked to do something
    _requests: list[tuple[str, str]] = field(default_factory=list)  # (task, voice label) asked of nobody named
    _asked_of: list[tuple[str, str]] = field(default_factory=list)  # (task, voice label) asked of someone named
    _someone: tuple[str, int, str] | None = None  # a task asked of anyone ("Can someone ...?"): task, when, who
    _subject: str = ""  # what the sentence before, in the same utterance, was about ("The printer is broken.")
    _day_asked: tuple[Task, str, int] | None = None  # "Could I have until Monday?": the task, the day, when asked

    def know(self, name: str) -> None:
        """A person known before they are heard (``--participants``, a room's participant)."""
        self.room.person(name)

    def add(self, text: str, speaker: str = "") -> None:
        """One utterance, in order; ``speaker`` says who said it, when speaker labels are on."""
        for label, name in self.room.next_utterance(text, speaker):
            self._rename_items(label, name)
        self._thanks(text)
        said = sentences(text)
        for index, sentence in enumerate(said):
            self._subject = say.subject_of(said[index - 1]) if index else ""
            self.room.read(sentence, said[index + 1 :])
            self._later_day(sentence)
            self._correction(sentence)
            if not (self._called_off(sentence) or self._due_moved(sentence) or self._declined(sentence)):
                self._action(sentence)
            self.outcomes.read(sentence, said[index + 1 :], self.room.utterances)

    def rename(self, label: str, name: str) -> None:
        """A voice labelled ``label`` ("S2") gave its name: what it took on is that person's."""
        self._rename_items(label, name)
        self.room.renamed(label, name)

    def _rename_items(self, label: str, name: str) -> None:
        for item in self.items:
            if item.owner == label:
                item.owner = name

    def voice_name(self, label: str) -> str:
        """The name a voice labelled ``label`` answered to ("Mike, how about you?" -> the next voice), or ""."""
        return self.room.voices.get(label, "")

    def voice_names(self) -> dict[str, str]:
        """Every voice label the rules have put a name to (who answered to it, or was thanked after it)."""
        return dict(self.room.voices)

    def persons(self) -> set[str]:
        """Everyone the conversation treats as a person: named, addressed, introduced, a voice with
        a name, or given a task by name.  An owner must be one of them."""
        owners = {i.owner for i in self.items if i.owner and not VOICE_LABEL.match(i.owner)}
        return set(self.room.people) | self.room.named_speakers | set(self.room.voices.values()) | owners

    def requests(self) -> list[tuple[str, str]]:
        """Tasks asked for without naming who should do them ("Can you draw some sketches?"), each with
        who asked (a name, or the voice's label while it has none): the one who asks is not the one who does."""
        return [(task, self.room.voices.get(label, label)) for task, label in self._requests]

    def superseded(self) -> list[tuple[str, str, str]]:
        """(task, field, old value) for every owner or due date a later statement replaced ("let Maria take
        that instead", "No, Friday, not Thursday"): a model that kept the old value was not told the news.
        Who asked someone named for a task is no value of its owner either ("Carol, please fix the search
        page", said by Alice: a small model made it Alice's)."""
        asked = [(task, "owner", self.room.voices.get(label, label)) for task, label in self._asked_of]
        return [(item.text, name, old) for item in self.items for name, old in item.replaced] + asked

    def draft(self) -> dict[str, Any]:
        """What was found so far, in the twin's shape (fields it has no opinion on are absent)."""
        return {
            "people": [{"name": name} for name in self.room.people],
            # A voice's label ("S2") is no person: its tasks show as unassigned until the voice gives its name.
            "action_items": [
                {"text": i.text, "owner": UNASSIGNED if not i.owner or VOICE_LABEL.match(i.owner) else i.owner,
                 "due": i.due}
                for i in self.items
            ],
            "decisions": list(self.outcomes.decisions),
            "open_questions": list(self.outcomes.open_questions),
        }

    # --- phrasings ------------------------------------------------------------------

    def _thanks(self, text: str) -> None:
        """"Thank you, Anna." right after "I will ask ...": the task was Anna's."""
        match = say.THANKED.match(text)
        if not match:
            return
        thanked = names(re.findall(say.NAME, match.group(0)))
        last = self.items[-1] if self.items else None
        if thanked and last is not None and last.heard == self.room.utterances - 1 and last.said_first_person:
            last.owner = thanked[0]

    def _named(self, match: re.Match[str] | None) -> str:
        """The person a phrasing names, or "" when its name is a common word ("Okay, please ...")."""
        found = names([match.group("name")]) if match else []
        return found[0] if found else ""

    def _action(self, sentence: str) -> None:
        """Who is to do what, if this sentence says so (nobody, when it is only imagined)."""
        if say.HEDGED.match(sentence):
            return
        needs = say.NEEDS_DOING.match(sentence)
        # "Ben, the invoice still needs sending."; read before the requests: "Eli, the fence needs fixing, can you
        # handle that?" asks for the fixing.
        if self._named(needs):
            task = f"{needs.group('verb')} {needs.group('what')[:1].lower()}{needs.group('what')[1:]}{needs.group('rest')}"
            self._assigned(self._named(needs), task, sentence, asked=True)
            return
        for pattern in (say.REQUEST, say.LATE_REQUEST, say.ACTION_ITEM_FOR, say.ACTION_ITEM_TO, say.LETS_HAVE,
                        say.IN_CHARGE):
            match = pattern.search(sentence)
            name = self._named(match)
            if match and name:
                asked = pattern not in (say.ACTION_ITEM_FOR, say.IN_CHARGE)
                self._assigned(name, match.group("task"), sentence, asked=asked)
                return
        them = say.CAN_THEY.match(sentence)
        if self._named(them) and say.opens_with_task_verb(them.group("task")):
            self._assigned(self._named(them), them.group("task"), sentence, asked=True)  # "Can Eli book the van?"
            return
        ordered = orders.IMPERATIVE.match(orders.without_tag(sentence))
        order = orders.without_you(orders.without_aside(ordered.group("task"))) if ordered else ""
        if self._named(ordered) and orders.imperative(order):
            self._assigned(self._named(ordered), order, sentence, asked=True)
            return
        late = orders.LATE_IMPERATIVE.match(sentence)
        if self._named(late) and orders.imperative(order := late.group("task").lower()[:1] + late.group("task")[1:]) \
                and say.opens_with_task_verb(order) and not orders.PLEASANTRY.match(order):
            self._assigned(self._named(late), order, sentence, asked=True)
            return
        handed = change_say.HAND_TO.search(sentence)
        if self._named(handed) and self.items:
            self._reassign(self._named(handed))  # "Hand that to Bo."
            return
        recent = self.items and self.items[-1].heard >= self.room.utterances - 2
        if change_say.I_TAKE_IT_OVER.match(sentence) and recent:
            self.items[-1].change("owner", self.room.speaker)  # "Actually, let me take that one instead."
            self.items[-1].said_first_person = True
            return
        if self._taken_by_name(sentence):
            return
        given = say.theirs(sentence)
        if given:  # "Priya agreed to collect the keys.", "The keys are with Priya."
            self._assigned(*given, sentence, asked=False)
            return
        for pattern in (say.NAME_WILL, say.NAME_TO):
            match = pattern.search(sentence)
            name = self._named(match)
            known = name in self.persons() or bool(task_and_due(sentence)[1])  # "Back to the agenda." is no one's
            if match and name and pattern is say.NAME_WILL and sentence.endswith("?") and "," in match.group(0):
                return  # "Doctor Mensah, will this be in the midterm?" asks them; it gives them nothing to do
            if match and name and pattern is say.NAME_WILL and match.group("weak") \
                    and match.group("task").split()[0].lower() not in say.TASK_VERBS:
                return  # "Maybe Ben could join us next time?": a wish, not a task
            if match and name and (pattern is say.NAME_WILL or known):
                self._assigned(name, match.group("task"), sentence, asked=False)
                return
        someone = say.SOMEONE.search(sentence)
        if someone:
            self._someone = (someone.group("task"), self.room.utterances, self.room.label)
            self._asked_of_nobody(someone.group("task"))
            return
        bare = say.BARE_REQUEST.match(sentence)
        said_to = self.room.said_to()
        if bare and said_to:
            self._addressed = said_to
            self._item(bare.group("task"), said_to, sentence)
            return
        if bare:
            self._asked_of_nobody(bare.group("task"))
        role = say.ROLE_WILL.search(sentence)
        if role:
            self._item(role.group("task"), "", sentence)
            return
        ours = say.WE_TASK.match(sentence)
        if ours:  # the team's: nobody's until someone takes it ("I'll do it.")
            self._someone = (ours.group("task"), self.room.utterances, self.room.label)
            self._item(ours.group("task"), "", sentence)
            return
        everyone = say.EVERYONE.search(sentence)
        if everyone and (everyone.group("please") or say.opens_with_task_verb(everyone.group("task"))):
            self._asked_of_nobody(everyone.group("task"))
            self._item(everyone.group("task"), "", sentence)
            return
        if self._volunteered(sentence):
            return
        mine = say.FIRST_PERSON.search(sentence)
        if mine and not say.PURPOSE.search(sentence[: mine.start()]):
            self._first_person(say.taken_on(mine), sentence)
            return
        if self._restated(sentence):
            return
        done_by = say.DONE_BY.search(sentence)
        last = self.items[-1] if self.items else None
        if done_by and last is not None and last.heard == self.room.utterances and not last.due:
            last.due = task_and_due(sentence)[1]  # "It will be done by Wednesday."

    def _assigned(self, name: str, task: str, sentence: str, *, asked: bool) -> None:
        """``name`` is to do ``task`` (``asked``: they were asked, so their yes refines it); "take that
        instead" hands the last task over."""
        self.room.person(name)
        if change_say.TAKES_IT_OVER.match(task.strip()):
            self._reassign(name)
            return
        if asked:
            self._addressed = name
            if self.room.label and self.room.label != name and self.room.speaker != name:
                self._asked_of = [*self._asked_of[1 - _KEPT_REQUESTS :], (task_and_due(task)[0], self.room.label)]
        self._item(task, name, sentence)

    def _taken_by_name(self, sentence: str) -> bool:
        """ "I'll take the rota." right after the rota went to someone else: it is the speaker's now."""
        taken = change_say.I_TAKE_THE.match(sentence)
        if not taken or not self.room.speaker:
            return False
        words = key_words(taken.group("what"))
        task = next((t for t in reversed(self.items) if t.heard >= self.room.utterances - 2
                     and t.owner != self.room.speaker and words & key_words(t.text)), None)
        if task is None:
            return False
        task.change("owner", self.room.speaker)
        task.heard = self.room.utterances
        return True

    def _reassign(self, name: str) -> None:
        """The newest task changes hands ("Actually, let Maria take that instead.")."""
        self.room.person(name)
        if self.items:
            self.items[-1].change("owner", name)
            self.items[-1].said_first_person = False

    def _volunteered(self, sentence: str) -> bool:
        """"I'll do it." from another voice right after "Can someone ...?": the task is that voice's."""
        asked = self._someone
        mine = say.FIRST_PERSON.search(sentence)  # "Sure, I'll book it.": nothing but the task asked for
        offered = say.VOLUNTEER.match(sentence) or (mine and say.REFERS_BACK.match(say.taken_on(mine).strip()))
        if asked is None or asked[1] < self.room.utterances - 2 or not offered:
            return False
        task, _, by = asked
        if self.room.label and self.room.label == by:
            return False  # the one who asked is not the one who does
        self._someone = None
        self._item(task, self.room.speaker, sentence, first_person=not self.room.speaker)
        return True

    def _first_person(self, task: str, sentence: str) -> None:
        """"I will ...": the speaker's, when the speaker is known by name."""
        last = self.items[-1] if self.items else None
        yes_to_it = say.YES_TO_IT.match(sentence) and last and self.room.speaker and last.owner == self.room.speaker \
            and not last.said_first_person  # "Tom, can you ring the landlord?" - "Sure, I'll give him a call."
        if (say.REFERS_BACK.match(task.strip()) or yes_to_it) and last \
                and last.owner in (self.room.speaker, self._addressed) and last.heard >= self.room.utterances - 2:
            due = task_and_due(task)[1] or task_and_due(sentence)[1]
            if due:  # "Sure, I'll get them done by the nineteenth.": the task just given, with its day
                last.change("due", due)
            named = task_and_due(say.CLAUSE_END.split(task)[0])[0]
            if yes_to_it and not say.POINTER_WORDS.search(named) and len(key_words(named)) >= 2:
                last.text = named  # "Yes, I'll bring my old laptop in." says what it is in the doer's words
            last.heard = self.room.utterances
            return
        if self.room.label and not VOICE_LABEL.match(self.room.label):
            # The named voice that said it, no guess; but a yes to a task just given to someone else by name
            # is theirs (two voices may share one label: the interview's two did).
            self._item(task, self.room.speaker, sentence, first_person=self._confirms(task))
            return
        # "Yes, I will book the studio by Tuesday.": the person just asked, confirming; otherwise the
        # name this voice answered to before, or the person given the floor; else the voice's label.
        # All guesses: a task someone was given by name keeps that owner.
        if self._confirms(task):
            owner = self._addressed
            if self.room.speaker == self.room.label and VOICE_LABEL.match(self.room.label):
                if self.room.name_voice(self.room.label, owner):
                    self._rename_items(self.room.label, owner)  # the voice that said yes to a request is its addressee
        elif self.room.label in self.room.voices:
            owner = self.room.voices[self.room.label]
        else:  # the floor, unless it went to another voice
            owner = self.room.floor if self.room.floor not in self.room.voices.values() else ""
        self._item(task, owner or self.room.speaker, sentence, first_person=True)

    def _asked_of_nobody(self, task: str) -> None:
        """A task asked for without a name ("Can you ...?", "Everyone, please ..."): not the asker's."""
        if self.room.label:
            self._requests = [*self._requests[1 - _KEPT_REQUESTS :], (task_and_due(task)[0], self.room.label)]

    def _confirms(self, task: str) -> bool:
        last = self.items[-1] if self.items else None
        return bool(last and last.owner == self._addressed and same_entry(last.text, task_and_due(task)[0]))

    def _item(self, task: str, owner: str, sentence: str, first_person: bool = False) -> None:
        task = say.OPENING_ADVERB.sub("", task.strip())
        text = say.resolved(task_and_due(say.CLAUSE_END.split(task)[0])[0], self._subject)
        due = task_and_due(task)[1] or task_and_due(sentence)[1]
        if len(key_words(text)) < 1 or orders.in_the_moment(text):
            return
        for item in reversed(self.items):
            if same_entry(item.text, text):  # said again: the newer words refine it
                if key_words(item.text) < key_words(text):  # "return it", then "return the coding test"
                    item.text = text
                if owner and not (first_person and item.owner):  # a guessed owner never replaces a named one
                    item.change("owner", owner)
                if due and due.lower() not in item.due.lower():  # "by Tuesday" does not undo "next Tuesday"
                    item.change("due", due)
                item.heard = self.room.utterances
                return
        self.items.append(Task(text, owner, due, self.room.utterances, first_person))

    def _restated(self, sentence: str) -> bool:
        restated = changes.restated(self.items, sentence)
        if restated is None:
            return False
        task, name = restated
        self.room.person(name)
        task.heard = self.room.utterances
        return True

    def _called_off(self, sentence: str) -> bool:
        kept = changes.called_off(self.items, sentence)
        if kept is None:
            return False
        self.items = kept
        return True

    def _due_moved(self, sentence: str) -> bool:
        return changes.due_moved(self.items, sentence, self.room.utterances)

    def _declined(self, sentence: str) -> bool:
        task = changes.declined(self.items, sentence, self.room.speaker, self.room.utterances)
        if task is not None:  # asked of anyone now: "Lisa, could you?" - "Sure, I'll book it."; "I'll do it."
            self._someone = (task.text, self.room.utterances, self.room.label)
        return task is not None

    def _later_day(self, sentence: str) -> None:
        """ "Could I have until Monday?" from the one given a task, then "Monday's fine." from another voice: the
        task is due Monday (a refusal keeps its day)."""
        asked = changes.day_asked_for(self.items, sentence, self.room.speaker, self.room.utterances)
        if asked is not None:
            self._day_asked = (*asked, self.room.utterances)
            return
        if self._day_asked is None or self._day_asked[2] != self.room.utterances - 1:
            return
        task, day, _ = self._day_asked
        self._day_asked = None
        if self.room.speaker != task.owner and changes.granted(sentence):
            task.change("due", day)

    def _correction(self, sentence: str) -> None:
        changes.corrected_due(self.items, sentence)
