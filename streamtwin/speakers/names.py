"""Names for voices: what a speaker calls themselves, what others call them, and who decides.

:class:`SpeakerNames` finds a speaker naming themselves ("Priya here", "I'm Tom", "my name is Sarah", "this is Dan
speaking") in what they said.  :class:`Naming` reads each labelled utterance in turn and says which voice takes
which name:

* ``introduced``: the voice that says "I'm Tom" is Tom;
* ``addressed``: "Thanks, Alice." (or "Thank you, Alice", "Sure thing, Alice.") names the voice that spoke just
  before, when it is another voice; "Carol, please ..." / "Carol, can you ...?" / "..., Carol?" names the next
  voice that answers, when it is another voice with no name yet;
* ``participants``: names given up front (``--participants``) that are still free, when exactly one voice is left
  without a name and one name is left unused.

A name already held by another voice is not given twice; a weaker way never overrides a stronger one (viewer >
profile > introduced > addressed > participants).  Plain classes: no I/O, no clock.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from streamtwin.twin import phrasings as say

_NAME = r"(?P<name>[A-Z][a-z]+(?:[-'][A-Z]?[a-z]+)?)"
# Words that follow "I'm" / "this is" capitalised without being a name ("I'm Sorry", "This is Monday").
_NOT_A_NAME = frozenset(
    """i okay ok sorry sure fine glad happy afraid not just here back done ready going still also really so very
    good great well right new the a an it this that there what who how why when where monday tuesday wednesday
    thursday friday saturday sunday january february march april may june july august september october november
    december english american british assistant everyone everybody hello hi hey yes no thanks thank and but or
    nor then now over out up down in on off come look get go see click sign wait stop hold listen please thinking
    working talking calling speaking coming leaving still only even maybe probably""".split()
)
_PATTERNS = (
    re.compile(rf"\b(?i:my name is|my name's)\s+{_NAME}"),
    re.compile(rf"(?:^|[.!?]\s+|,\s*)(?i:i'm|i am)\s+{_NAME}(?=[,.!?]|\s+(?i:here|speaking|and|from|with)\b|$)"),
    re.compile(rf"(?:^|[.!?,]\s*|\b(?i:hi|hello|hey|yes|okay|ok)\s+)(?i:this is)\s+{_NAME}(?=[,.!?]|\s+(?i:here|speaking)\b|$)"),
    re.compile(rf"(?:^|[.!?]\s+|\b(?i:hi|hello|hey|yes|okay|ok),?\s+){_NAME}\s+(?i:here|speaking)\b"),
)


class SpeakerNames:
    """Finds the name a speaker gives themselves in one utterance."""

    @staticmethod
    def introduced(text: str) -> str:
        """"Priya here, ..." -> "Priya"; "" when the utterance names nobody as its speaker."""
        text = " ".join(text.split())
        for pattern in _PATTERNS:
            for match in pattern.finditer(text):
                name = match.group("name")
                if name.lower() not in _NOT_A_NAME:
                    return name
        return ""


# --- who takes which name -----------------------------------------------------------------------------

STRENGTH = {"participants": 1, "addressed": 2, "introduced": 3, "profile": 4, "viewer": 5}
_THANKED = re.compile(rf"^(?i:thanks|thank you|thanks a lot|thank you very much|cheers)[,.!]?\s+(?P<name>{say.NAME})"
                      r"[,.!?]")
_ASKED = re.compile(r"^(?:please|can you|could you|would you|will you|what|how|when|where|why|do you|are you|"
                    r"have you)\b|\?$", re.IGNORECASE)
_SENTENCE = re.compile(r"(?<=[.!?])\s+")
_REPLY = re.compile(r"^(?:yes|yeah|sure|okay|ok|of course|will do|no problem|i will|i'll|i can)\b", re.IGNORECASE)


@dataclass(frozen=True)
class NameChange:
    label: str
    name: str
    how: str
    utterance: int = 0
    previous: str = ""


def _a_name(name: str) -> bool:
    return bool(name) and all(part.lower() not in say.NOT_NAMES and part.lower() not in _NOT_A_NAME
                              for part in name.split())


class Naming:
    """Names for voice labels, decided utterance by utterance (see the module's docstring)."""

    def __init__(self, participants: list[str] | tuple[str, ...] = ()) -> None:
        self.names: dict[str, tuple[str, str]] = {}  # label -> (name, how)
        self.candidates: list[str] = list(dict.fromkeys(p for p in participants if p))  # names of people present
        self._given = set(self.candidates)  # the ones from --participants
        self._previous = ""  # the voice that spoke last (its last segment)
        self._asked: tuple[str, str] | None = None  # (name, asker): someone was asked and may answer next
        self._heard: set[str] = set()  # every label heard so far
        self._said_by: dict[str, set[str]] = {}  # name -> the voices that said it to someone (not theirs, then)

    def name_of(self, label: str) -> str:
        return self.names.get(label, ("", ""))[0]

    def holder(self, name: str) -> str:
        """The label that holds ``name`` ("" if none)."""
        return next((label for label, (n, _) in self.names.items() if n.casefold() == name.casefold()), "")

    def give(self, label: str, name: str, how: str, utterance: int = 0) -> NameChange | None:
        """Name a voice unless a stronger way named it already or another voice holds that name."""
        name = " ".join(name.split())
        current, current_how = self.names.get(label, ("", ""))
        if not name or current == name or STRENGTH[how] < STRENGTH.get(current_how, 0):
            return None
        if self.holder(name) not in ("", label):
            return None
        self.names[label] = (name, how)
        return NameChange(label, name, how, utterance, current)

    def merged(self, merged: dict[str, str]) -> list[NameChange]:
        """Labels found to be one voice: a name on the label gone moves to the label kept, if that has none
        (or a weaker one)."""
        changes = []
        for gone, into in merged.items():
            name, how = self.names.pop(gone, ("", ""))
            if name:
                change = self.give(into, name, how)
                changes.extend([change] if change else [])
            self._heard.discard(gone)
        return changes

    def heard(self, utterance: int, text: str, first: str, last: str) -> list[NameChange]:
        """One utterance, labelled ``first`` where it began and ``last`` where it ended: the names it settles."""
        changes: list[NameChange | None] = []
        new_voice = first not in self._heard
        sentences = [s for s in _SENTENCE.split(" ".join(text.split())) if s]
        if self._asked is not None and first != self._asked[1]:
            name, _ = self._asked
            replies = bool(sentences) and bool(say.FIRST_PERSON.search(sentences[0]) or _REPLY.match(sentences[0]))
            if new_voice or (replies and first not in self.names):
                changes.append(self.give(first, name, "addressed", utterance))
            self._asked = None
        introduced = SpeakerNames.introduced(text)
        if introduced:
            changes.append(self.give(first if text.find(introduced) < len(text) / 2 else last, introduced,
                                     "introduced", utterance))
        for k, sentence in enumerate(sentences):
            thanked = _THANKED.match(sentence) or say.ANSWERED.match(sentence)
            if thanked and k == 0 and self._previous and self._previous != first and _a_name(thanked["name"]):
                changes.append(self.give(self._previous, thanked["name"], "addressed", utterance))
                self._candidate(thanked["name"], first)
            vocative = say.VOCATIVE.match(sentence)
            late = say.LATE_VOCATIVE.search(sentence) if sentence.endswith("?") else None
            if vocative and _a_name(vocative["name"]) and _ASKED.search(vocative["rest"]):
                self._asked = (vocative["name"], last)
            elif late and _a_name(late["name"]):
                self._asked = (late["name"], last)
            if self._asked:
                self._candidate(self._asked[0], last)
        self._heard.update({first, last})
        self._previous = last
        changes.append(self._by_elimination(utterance))
        return [c for c in changes if c is not None]

    def _candidate(self, name: str, said_by: str) -> None:
        if name not in self.candidates:
            self.candidates.append(name)
        self._said_by.setdefault(name, set()).add(said_by)

    def _by_elimination(self, utterance: int) -> NameChange | None:
        """One voice without a name and one name of the people present still free: they go together."""
        unnamed = [label for label in sorted(self._heard) if label and label not in self.names]
        used = {n.casefold() for n, _ in self.names.values()}
        free = [n for n in self.candidates if n.casefold() not in used]
        if len(unnamed) == 1 and len(free) == 1 and unnamed[0] not in self._said_by.get(free[0], set()):
            how = "participants" if free[0] in self._given else "addressed"
            return self.give(unnamed[0], free[0], how, utterance)
        return None
