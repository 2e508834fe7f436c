"""Who is who in a conversation, for the rules' draft: the people it names, the names voices answer to, who
speaks now, who was just called, greeted or given the floor (so "Can you ...?" and "I will ..." find their owner).

Plain class: no I/O, no clock.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from streamtwin.twin import phrasings as say
from streamtwin.twin.phrasings import VOICE_LABEL, names, sentences


@dataclass
class Addressing:
    people: list[str] = field(default_factory=list)
    utterances: int = 0  # utterances heard so far: the number of the current one
    speaker: str = ""  # who said the current utterance ("" without speaker labels)
    label: str = ""  # as labelled ("S2" for a voice whose name the rules only inferred)
    floor: str = ""  # the last person asked to speak ("Mike, how about you?"): "I will ..." is theirs
    floor_at: int = -1  # the utterance that gave it
    floor_by: str = ""  # and the voice that gave it
    voices: dict[str, str] = field(default_factory=dict)  # voice label -> the name it answered to
    named_speakers: set[str] = field(default_factory=set)  # voices with a name: people too
    called: str = ""  # a name said on its own ("Chris?"), and the utterance it was said in
    called_at: int = -1
    greeted: str = ""  # a name greeted, thanked or addressed ("Thank you, Bob."), and the utterance it was in
    greeted_at: int = -1
    before: str = ""  # the label of the voice that said the utterance before this one
    heard_from: list[str] = field(default_factory=list)  # the voices heard so far, by label, in order

    def next_utterance(self, text: str, speaker: str) -> list[tuple[str, str]]:
        """Utterance ``text`` begins, said by ``speaker``: the (label, name) of each voice it puts a name to."""
        self.utterances += 1
        self.label = speaker
        if speaker and speaker not in self.heard_from:
            self.heard_from.append(speaker)
        self.speaker = self.voices.get(speaker, speaker)
        if self.speaker and not VOICE_LABEL.match(self.speaker):
            self.named_speakers.add(self.speaker)
        return [named for named in (self._answers_floor(), self._names_who_spoke_before(text)) if named]

    def said_to(self) -> str:
        """Who a "Can you ...?" of this sentence asks: the name said on its own just before, or the latest
        greeted or addressed in this utterance ("Thanks, Arjun. Raj, the coach company ... Can you ...?");
        between two people only (a call, a one-to-one), the other one."""
        said_to = self.called if self.called_at >= self.utterances - 1 else ""
        if self.greeted_at == self.utterances:
            return self.greeted
        if not said_to and len(self.heard_from) == 2 and self.label in self.heard_from and self.utterances >= 3:
            other = self.heard_from[1 - self.heard_from.index(self.label)]
            return self.voices.get(other, other)
        return said_to

    def read(self, sentence: str, following: list[str]) -> None:
        """One sentence of the current utterance (``following``: the rest of it): who it names, calls, greets,
        gives the floor to."""
        called = say.CALLED.match(sentence)
        if called and names([called.group("name")]):
            self.called = names([called.group("name")])[0]
            self.called_at = self.utterances
            self.give_floor(self.called)
        lone = say.LONE_NAME.match(sentence)
        if lone and following and say.TO_THEM.search(following[0]) and names([lone.group("name")]):
            self.give_floor(names([lone.group("name")])[0])  # "Tom. You go first."
            self.person(names([lone.group("name")])[0])
        vocative = say.VOCATIVE.match(sentence)
        if vocative and names([vocative.group("name")]) and say.TO_THEM.search(vocative.group("rest")):
            self.give_floor(names([vocative.group("name")])[0])  # who is asked to speak next
        titled = say.TITLED_QUESTION.match(sentence)
        if titled:
            self.give_floor(titled.group("name"))  # whoever answers is them
        greeted = [m.group("name") for m in (say.GREETED.match(sentence), say.LATE_VOCATIVE.search(sentence)) if m]
        if names(greeted):  # "Thank you, Bob. Can you send ...?": the request that follows is Bob's
            self.greeted, self.greeted_at = names(greeted)[0], self.utterances
        if vocative and names([vocative.group("name")]):  # "Thanks, Arjun. Raj, the coach company ... Can you
            self.greeted, self.greeted_at = names([vocative.group("name")])[0], self.utterances  # ...?": Raj
        found = [*greeted, *([vocative.group("name")] if vocative else [])]
        found += [m.group("name") for m in say.INTRODUCED.finditer(sentence)]
        found += re.findall(r"\b((?:Professor|Doctor)\s[A-Z][a-z]+)", sentence)
        for name in names(found):
            self.person(name)

    def give_floor(self, name: str) -> None:
        self.floor, self.floor_at, self.floor_by = name, self.utterances, self.label

    def _answers_floor(self) -> tuple[str, str] | None:
        """Another, unnamed voice speaking right after someone was given the floor is that person:
        its "I will ..." is theirs from now on (with speaker labels only)."""
        label = self.label
        if label == self.speaker and VOICE_LABEL.match(label) and self.floor_at == self.utterances - 1 \
                and self.floor_by != label and self.name_voice(label, self.floor):
            return label, self.floor
        return None

    def name_voice(self, label: str, name: str) -> bool:
        """The voice labelled ``label`` is ``name``'s (False when another voice already is)."""
        if name in self.voices.values():
            return False
        self.voices[label] = name
        self.renamed(label, name)
        return True

    def renamed(self, label: str, name: str) -> None:
        if self.speaker == label:
            self.speaker = name

    def person(self, name: str) -> None:
        if not any(name.lower() == p.lower() or name.lower() in p.lower().split() for p in self.people):
            self.people.append(name)

    def _names_who_spoke_before(self, text: str) -> tuple[str, str] | None:
        """"Thanks, Alice." or "Right away, Mo." from another voice: the voice that spoke just before is
        Alice's (Mo's), when it has no name yet."""
        before, self.before = self.before, self.label
        if not VOICE_LABEL.match(before) or before == self.label or before in self.voices:
            return None
        first = sentences(text)[0] if text.strip() else ""
        match = say.GREETED.match(first) or say.ANSWERED.match(first)
        name = names([match.group("name")])[0] if match and names([match.group("name")]) else ""
        return (before, name) if name and self.name_voice(before, name) else None
