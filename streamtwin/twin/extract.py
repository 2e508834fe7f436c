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

import itertools
import re
from dataclasses import dataclass, field
from typing import Any

from streamtwin.twin.due import DATE, NOT_DATE, task_and_due
from streamtwin.twin.heard import UNASSIGNED, key_words, overlap

_NAME = r"[A-Z][a-z]+(?:\s[A-Z][a-z]+)?"
_NOT_NAMES = frozenset(
    """assistant okay ok yes yeah no sure thanks thank great good nice right fine hi hello hey well so then and but
    first second third today tomorrow tonight please sorry actually agreed also another one what who how why when
    where which is are can could will would should do does did let we i you he she they it this that the a an
    monday tuesday wednesday thursday friday saturday sunday january february march april may june july august
    september october november december english now just maybe perhaps anyway look see come listen wait alright next
    finally still""".split()
)
# A request to the person addressed: "<Name>, please fix ...", "<Name>, can you send ...".
_REQUEST = re.compile(
    rf"^(?:(?:ok(?:ay)?|great|nice|good|so|and|right|then|yes)[,.!]?\s+)*(?P<name>{_NAME}),?\s+"
    r"(?:please\s+|can you\s+|could you\s+|would you\s+|will you\s+|you will\s+|you'll\s+)(?P<task>.+)",
)
_THIRD_PERSON = re.compile(rf"(?:^|,\s*|\bso\s+|\bno,?\s+)(?P<name>{_NAME})(?:,\s+will|\s+will|\s+rents|\s+books|\s+sends)\s+(?P<task>.+)")
_FIRST_PERSON = re.compile(r"\b(?:i will|i'll|i am going to|i can)\s+(?P<task>.+)", re.IGNORECASE)
# The name may end the utterance: "Thank you, Anna." is often one of its own (a pause after it).
_THANKED = re.compile(rf"^(?:thanks|thank you|great|okay|ok|good|yes)[,.!]?\s+(?:{_NAME}[,.!]?(?:\s+|$))?", re.IGNORECASE)
_GREETING = r"(?i:thanks|thank you|hi|hello|hey|yes|great|okay|sure|sorry)"
# "Thanks, Tom." / "Hi Emma," (greeted: not given the floor) and "Mike, how about you?" (given the floor).
_GREETED = re.compile(rf"^{_GREETING}[,.]?\s+(?P<name>{_NAME})[,.!?]")
_VOCATIVE = re.compile(rf"^(?P<name>{_NAME}),\s")
_LATE_VOCATIVE = re.compile(rf",\s+(?P<name>{_NAME})[.!?]$")
# "Chris?" on its own: the next request is Chris's.  Not "Impressive." or "Come." (a misheard "Tom,"):
# only a question mark or a comma makes a lone word a call.
# "Professor Hill, is the Calvin cycle on the quiz?" (the comma often unheard): a question to them.
_TITLED_QUESTION = re.compile(r"^(?P<name>(?:Professor|Doctor|Dr\.|Mr\.|Mrs\.|Ms\.)\s[A-Z][a-z]+),?\s.*\?$")
_CALLED = re.compile(rf"^(?P<name>{_NAME})[,?]$")
# "Tom. You go first." (speech recognition often ends a called name with a full stop): the floor is Tom's.
_LONE_NAME = re.compile(rf"^(?P<name>{_NAME})[.,!?]$")
_GIVES_FLOOR = re.compile(r"^(?:you go first|you first|how about you|what about you|your turn|go ahead)\b", re.IGNORECASE)
_BARE_REQUEST = re.compile(
    r"^(?:(?:ok(?:ay)?|so|and|then|now)[,.!]?\s+)*(?:please|can you|could you|would you|will you)\s+(?P<task>.+)",
    re.IGNORECASE,
)
_INTRODUCED = re.compile(rf"\b(?i:my name is|i am|i'm|this is|called)\s+(?P<name>{_NAME})")
_DECISION = re.compile(r"\b(?:we decided|we have decided|decided to|we agreed|agreed|the decision is|let's go with)\b[:,]?\s*(?P<what>.*)", re.IGNORECASE)
_OPEN = re.compile(r"\bopen question\b", re.IGNORECASE)
# "One open question is when ...", "Another question is whether ...": the question itself follows.
_WHETHER = re.compile(r"\b(?:open )?question is (?:whether|if|how|what|who|when|where|which)\b\s*(?P<what>.+)", re.IGNORECASE)
# "And should we build it for phones first, or for the web?" right after an open question: one more.
_ONE_MORE = re.compile(r"^(?:and|also|or|plus)\b,?\s+(?P<what>.+)\?$", re.IGNORECASE)
# "My manager will call you back tomorrow.": a task taken by someone known only by their role (unassigned).
_ROLE_WILL = re.compile(
    r"\b(?:my|our|your|the)\s+(?:manager|boss|supervisor|colleague|team lead|technician|engineer|administrator)\b"
    r"(?:(?!\bi\b)[^.?!]){0,40}?\bwill\s+(?!be\b)(?P<task>.+)",  # "my manager said I will ...": the speaker's
    re.IGNORECASE,
)
_EVERYONE = re.compile(r"\b(?:everyone|everybody|all of you),?\s+please\s+(?P<task>.+)", re.IGNORECASE)
# "It will be done by Wednesday." / "... and it will arrive on Thursday.": the due date of the task just said.
_DONE_BY = re.compile(r"\b(?:it|that|this)(?:'ll| will)? (?:be (?:done|ready|finished)|arrive)\b", re.IGNORECASE)
_CLAUSE_END = re.compile(r",?\s+and\s+(?:it|that|this|we|they|he|she|i|you)\b|,\s+because\b|\.\s", re.IGNORECASE)
_DO_THAT = re.compile(r"\b(?:do|does|take|takes)\s+(?:that|it|this)\b", re.IGNORECASE)


_KEPT_REQUESTS = 16  # the latest requests asked of nobody named: a model's owner is checked against them
_VOICE_LABEL = re.compile(r"^S\d+$")  # a speaker label of a voice that has not said its name


def is_voice_label(speaker: str) -> bool:
    """"S2": a voice that has not said its name (a name, or "", is not)."""
    return bool(_VOICE_LABEL.match(speaker))


def _sentences(text: str) -> list[str]:
    return [s.strip() for s in re.split(r"(?<=[.!?])\s+", text) if s.strip()]


def _names(candidates: list[str]) -> list[str]:
    out = []
    for name in candidates:
        words = [w for w in name.split() if w.lower() not in _NOT_NAMES]
        if words and len(words) == len(name.split()):
            out.append(name)
        elif words and name.split()[0].lower() in _NOT_NAMES and len(words) == 1:
            out.append(words[0])
    return out


@dataclass
class _Item:
    text: str
    owner: str
    due: str
    heard: int  # the utterance it came from
    said_first_person: bool = False  # "I will ...": the owner is a guess a "thank you, <name>" overrides


@dataclass
class RuleExtractor:
    people: list[str] = field(default_factory=list)
    items: list[_Item] = field(default_factory=list)
    decisions: list[str] = field(default_factory=list)
    open_questions: list[str] = field(default_factory=list)
    _utterances: int = 0
    _addressed: str = ""  # the last person asked to do something
    _floor: str = ""  # the last person asked to speak ("Mike, how about you?"): "I will ..." is theirs
    _floor_at: int = -1  # the utterance that gave it
    _floor_by: str = ""  # and the voice that gave it
    _voices: dict[str, str] = field(default_factory=dict)  # voice label -> the name it answered to
    _named_speakers: set[str] = field(default_factory=set)  # voices with a name: people too
    _called: str = ""  # a name said on its own ("Chris?"), and the utterance it was said in
    _called_at: int = -1
    _questions: list[tuple[int, str]] = field(default_factory=list)  # recent question sentences
    _requests: list[tuple[str, str]] = field(default_factory=list)  # (task, voice label) asked of nobody named
    _open_at: int = -1  # the utterance that listed the last open question
    _speaker: str = ""  # who said the current utterance ("" without speaker labels)
    _label: str = ""  # as labelled ("S2" for a voice whose name the rules only inferred)

    def add(self, text: str, speaker: str = "") -> None:
        """One utterance, in order; ``speaker`` says who said it, when speaker labels are on."""
        self._utterances += 1
        self._label = speaker
        self._speaker = self._voices.get(speaker, speaker)
        if self._speaker and not _VOICE_LABEL.match(self._speaker):
            self._named_speakers.add(self._speaker)
        self._answers_floor()
        self._thanks(text)
        sentences = _sentences(text)
        for index, sentence in enumerate(sentences):
            self._people(sentence, sentences[index + 1 :])
            if sentence.endswith("?"):
                self._questions = [*self._questions[-3:], (self._utterances, sentence)]
            self._correction(sentence)
            self._action(sentence)
            self._decision(sentence, sentences[index + 1 :])
            self._open_question(sentence)

    def rename(self, label: str, name: str) -> None:
        """A voice labelled ``label`` ("S2") gave its name: what it took on is that person's."""
        for item in self.items:
            if item.owner == label:
                item.owner = name
        if self._speaker == label:
            self._speaker = name

    def voice_name(self, label: str) -> str:
        """The name a voice labelled ``label`` answered to ("Mike, how about you?" -> the next voice), or ""."""
        return self._voices.get(label, "")

    def persons(self) -> set[str]:
        """Everyone the conversation treats as a person: named, addressed, introduced, a voice with
        a name, or given a task by name.  An owner must be one of them."""
        owners = {i.owner for i in self.items if i.owner and not _VOICE_LABEL.match(i.owner)}
        return set(self.people) | self._named_speakers | set(self._voices.values()) | owners

    def requests(self) -> list[tuple[str, str]]:
        """Tasks asked for without naming who should do them ("Can you draw some sketches?"), each with
        who asked (a name, or the voice's label while it has none): the one who asks is not the one who does."""
        return [(task, self._voices.get(label, label)) for task, label in self._requests]

    def draft(self) -> dict[str, Any]:
        """What was found so far, in the twin's shape (fields it has no opinion on are absent)."""
        return {
            "people": [{"name": name} for name in self.people],
            # A voice's label ("S2") is no person: its tasks show as unassigned until the voice gives its name.
            "action_items": [
                {"text": i.text, "owner": UNASSIGNED if not i.owner or _VOICE_LABEL.match(i.owner) else i.owner,
                 "due": i.due}
                for i in self.items
            ],
            "decisions": list(self.decisions),
            "open_questions": list(self.open_questions),
        }

    # --- phrasings ------------------------------------------------------------------

    def _people(self, sentence: str, following: list[str]) -> None:
        called = _CALLED.match(sentence)
        if called and _names([called.group("name")]):
            self._called = _names([called.group("name")])[0]
            self._called_at = self._utterances
            self._give_floor(self._called)
        lone = _LONE_NAME.match(sentence)
        if lone and following and _GIVES_FLOOR.match(following[0]) and _names([lone.group("name")]):
            self._give_floor(_names([lone.group("name")])[0])
            self._person(_names([lone.group("name")])[0])
        vocative = _VOCATIVE.match(sentence)
        if vocative and _names([vocative.group("name")]) and vocative.group("name").split()[0].lower() not in _NOT_NAMES:
            self._give_floor(_names([vocative.group("name")])[0])  # who is asked to speak next
        titled = _TITLED_QUESTION.match(sentence)
        if titled:
            self._give_floor(titled.group("name"))  # whoever answers is them
        found = [m.group("name") for m in (_GREETED.match(sentence), vocative, _LATE_VOCATIVE.search(sentence)) if m]
        found += [m.group("name") for m in _INTRODUCED.finditer(sentence)]
        found += re.findall(r"\b((?:Professor|Doctor)\s[A-Z][a-z]+)", sentence)
        for name in _names(found):
            self._person(name)

    def _give_floor(self, name: str) -> None:
        self._floor, self._floor_at, self._floor_by = name, self._utterances, self._label

    def _answers_floor(self) -> None:
        """Another, unnamed voice speaking right after someone was given the floor is that person:
        its "I will ..." is theirs from now on (with speaker labels only)."""
        label = self._label
        if label == self._speaker and _VOICE_LABEL.match(label) and self._floor_at == self._utterances - 1 \
                and self._floor_by != label:
            self._name_voice(label, self._floor)

    def _name_voice(self, label: str, name: str) -> None:
        if name not in self._voices.values():
            self._voices[label] = name
            self.rename(label, name)

    def _person(self, name: str) -> None:
        if not any(name.lower() == p.lower() or name.lower() in p.lower().split() for p in self.people):
            self.people.append(name)

    def _thanks(self, text: str) -> None:
        """"Thank you, Anna." right after "I will ask ...": the task was Anna's."""
        match = _THANKED.match(text)
        if not match:
            return
        names = _names(re.findall(_NAME, match.group(0)))
        last = self.items[-1] if self.items else None
        if names and last is not None and last.heard == self._utterances - 1 and last.said_first_person:
            last.owner = names[0]

    def _action(self, sentence: str) -> None:
        request = _REQUEST.search(sentence)
        if request and _names([request.group("name")]):
            name = _names([request.group("name")])[0]
            self._person(name)
            self._addressed = name
            self._item(request.group("task"), name, sentence)
            return
        third = _THIRD_PERSON.search(sentence)
        if third and _names([third.group("name")]):
            name = _names([third.group("name")])[0]
            self._person(name)
            last = self.items[-1] if self.items else None
            if _DO_THAT.search(third.group("task")) and last is not None:
                last.owner = name  # "Actually, no, Steve will do that."
                return
            self._item(third.group("task"), name, sentence)
            return
        bare = _BARE_REQUEST.match(sentence)
        if bare and self._called and self._called_at >= self._utterances - 1:
            self._addressed = self._called
            self._item(bare.group("task"), self._called, sentence)
            return
        if bare:
            self._asked_of_nobody(bare.group("task"))
        role = _ROLE_WILL.search(sentence)
        if role:
            self._item(role.group("task"), "", sentence)
            return
        everyone = _EVERYONE.search(sentence)
        if everyone:
            self._asked_of_nobody(everyone.group("task"))
            self._item(everyone.group("task"), "", sentence)
            return
        mine = _FIRST_PERSON.search(sentence)
        if mine and self._label and not _VOICE_LABEL.match(self._label):
            # The named voice that said it, no guess; but a yes to a task just given to someone else by name
            # is theirs (two voices may share one label: the interview's two did).
            self._item(mine.group("task"), self._speaker, sentence, first_person=self._confirms(mine.group("task")))
            return
        if mine:
            # "Yes, I will book the studio by Tuesday.": the person just asked, confirming; otherwise the
            # name this voice answered to before, or the person given the floor; else the voice's label.
            # All guesses: a task someone was given by name keeps that owner.
            if self._confirms(mine.group("task")):
                owner = self._addressed
                if self._speaker == self._label and _VOICE_LABEL.match(self._label):
                    self._name_voice(self._label, owner)  # the voice that said yes to a request is its addressee
            elif self._label in self._voices:
                owner = self._voices[self._label]
            else:  # the floor, unless it went to another voice
                owner = self._floor if self._floor not in self._voices.values() else ""
            self._item(mine.group("task"), owner or self._speaker, sentence, first_person=True)
            return
        done_by = _DONE_BY.search(sentence)
        last = self.items[-1] if self.items else None
        if done_by and last is not None and last.heard == self._utterances and not last.due:
            last.due = task_and_due(sentence)[1]  # "It will be done by Wednesday."

    def _asked_of_nobody(self, task: str) -> None:
        """A task asked for without a name ("Can you ...?", "Everyone, please ..."): not the asker's."""
        if self._label:
            self._requests = [*self._requests[1 - _KEPT_REQUESTS :], (task_and_due(task)[0], self._label)]

    def _confirms(self, task: str) -> bool:
        last = self.items[-1] if self.items else None
        return bool(last and last.owner == self._addressed and self._same(last.text, task_and_due(task)[0]))

    @staticmethod
    def _same(a: str, b: str) -> bool:
        return overlap(key_words(a), key_words(b)) >= 0.5

    def _item(self, task: str, owner: str, sentence: str, first_person: bool = False) -> None:
        text = task_and_due(_CLAUSE_END.split(task)[0])[0]
        due = task_and_due(task)[1] or task_and_due(sentence)[1]
        if len(key_words(text)) < 1 or text.lower().startswith(("work ", "go first", "tell me", "help")):
            return
        for item in reversed(self.items):
            if self._same(item.text, text):  # said again: the newer words refine it
                if key_words(item.text) < key_words(text):  # "return it", then "return the coding test"
                    item.text = text
                if owner and not (first_person and item.owner):  # a guessed owner never replaces a named one
                    item.owner = owner
                if due and due.lower() not in item.due.lower():  # "by Tuesday" does not undo "next Tuesday"
                    item.due = due
                item.heard = self._utterances
                return
        self.items.append(_Item(text, owner, due, self._utterances, first_person))

    def _correction(self, sentence: str) -> None:
        """"No, Friday, not Thursday." / "the 19th of May, not the 12th": the newest item with
        the old value takes the new one."""
        wrong = NOT_DATE.search(sentence)
        if not wrong:
            return
        old = wrong.group(1).lower()
        new = next((v.group(1) for v in DATE.finditer(sentence) if v.group(1).lower() != old), None)
        if new is None:
            return
        for item in reversed(self.items):
            if old in item.due.lower():
                item.due = re.sub(re.escape(old), new, item.due, flags=re.IGNORECASE)
                return

    def _decision(self, sentence: str, following: list[str]) -> None:
        match = _DECISION.search(sentence)
        if not match:
            return
        what = re.sub(r"^(?:.*?:\s*|that\s+)", "", match.group("what")).strip(" .:,")
        if len(key_words(what)) < 2 and following and not (what.lower().startswith("to ") and key_words(what)):
            # "We decided one thing already. The first version ...": what was decided comes next,
            # with the fragments speech recognition split off it ("20,000 for online ads. and no print ads.");
            # "We decided to replace it." is whole.
            rest = [following[0]] + list(itertools.takewhile(lambda s: s[:1].islower(), following[1:]))
            what = " ".join(rest).strip(" .:,")
        if len(key_words(what)) >= 1 and not any(self._same(what, d) for d in self.decisions):
            self.decisions.append(what[0].upper() + what[1:])

    def _open_question(self, sentence: str) -> None:
        whether = _WHETHER.search(sentence)
        one_more = _ONE_MORE.match(sentence) if self._open_at >= self._utterances - 1 else None
        if not whether and not one_more and not _OPEN.search(sentence):
            return
        if one_more:
            question = one_more.group("what").strip()
        elif whether:
            question = whether.group("what").strip(" .?")
        elif self._questions and self._questions[-1][0] >= self._utterances - 2:
            # "That is still an open question": the question asked just before (with its lead-in).
            last_at = self._questions[-1][0]
            question = " ".join(q for at, q in self._questions if at == last_at)
        else:
            return
        if len(key_words(question)) >= 1 and not any(self._same(question, q) for q in self.open_questions):
            self.open_questions.append(question)
            self._open_at = self._utterances
