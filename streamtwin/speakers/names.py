"""Names for voices: what a speaker calls themselves, what others call them, and who decides.

:class:`SpeakerNames` finds a speaker naming themselves ("Priya here", "I'm Tom", "my name is Sarah", "this is Dan
speaking") in what they said.  :class:`Naming` reads each labelled utterance in turn and says which voice takes
which name:

* ``introduced``: the voice that says "I'm Tom" is Tom;
* ``addressed``: "Thanks, Alice." (or "Thank you, Alice", "Sure thing, Alice.") names the voice that spoke just
  before, when it is another voice; "Carol, please ..." / "Carol, can you ...?" / "..., Carol?" stays open for
  the next few utterances (OPEN_FOR): a voice never heard before takes it, and so does an unnamed voice that
  replies at once ("Yes, I will ...");
* ``participants`` (or ``addressed``): one voice left without a name and one name of the people present left free
  go together: the ``--participants`` once as many voices were heard as it names, else the names said to someone
  (not while the answer may still come), unless that voice said the name or spoke right after it was asked
  without answering.  Once every one of ``--participants`` was heard, a voice that said all the free names but
  one of someone else ("Pedro will make the screenshots") takes that one;
* a greeting ("Hi Amara, ...") names the voice before as thanks do; said first, to nobody heard yet ("Hi, Noor.
  Come in."), it is an address the next voice answers, as is an order to someone named ("Hiroshi, fix that
  board.", "Amani, I'd like you to ...", "I'd like you to recheck it, Kofi."); a task given to a participant by
  name ("Action item for Kenji: ...") goes with the reply right after it ("Okay, I can ...").

A name already held by another voice is not given twice; the first name of a voice holds against later ones of
the same strength, and a weaker way never overrides a stronger one (viewer > profile > introduced > addressed >
participants).  A name goes with the voice of the utterance that gave it: when re-clustering moves that utterance
to another label, the name moves too (the old label's loss is a change to ""), and a name that could not be given
because that utterance's label had one already is given when the utterance moves to a label of its own.  Plain classes: no I/O, no clock.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from streamtwin.twin import phrasings as say

_NAME = rf"(?P<name>{say.WORD})"  # accents too: "I'm José"
# Words that follow "I'm" / "this is" capitalised without being a name ("I'm Sorry", "This is Monday").
# (The common words of conversation are :func:`streamtwin.twin.phrasings.common_word`'s; these are the rest.)
_NOT_A_NAME = frozenset(
    """afraid not done going very new american british or nor over out up down in on off get go click sign stop hold
    thinking working talking calling speaking coming leaving only even""".split()
)
_PATTERNS = (
    re.compile(rf"\b(?i:my name is|my name's)\s+{_NAME}"),
    re.compile(rf"(?:^|[.!?]\s+|,\s*)(?i:i'm|i am)\s+{_NAME}(?=[,.!?]|\s+(?i:here|speaking|and|from|with)\b|$)"),
    re.compile(rf"(?:^|[.!?,]\s*|\b(?i:hi|hello|hey|yes|okay|ok)\s+)(?i:this is)\s+{_NAME}(?=[,.!?]|\s+(?i:here|speaking)\b|$)"),
    re.compile(rf"(?:^|[.!?]\s+|\b(?i:hi|hello|hey|yes|okay|ok),?\s+){_NAME}\s+(?i:here|speaking)\b"),
    # on the phone: "Hi Amara, it's Björn from accounts.", "It's Callum here."
    re.compile(rf"(?:^|[.!?]\s+)(?i:it's|it is)\s+{_NAME}\s+(?i:from|here|speaking|again|in|at)\b"),
    re.compile(rf"^(?i:hi|hello|hey)\b[^.!?]*?,\s*(?i:it's|it is)\s+{_NAME}"
               rf"(?=[,.!?]|$|\s+(?i:from|here|speaking|again|in|at)\b)"),
    re.compile(rf",\s+{_NAME}\s+(?i:speaking)\b"),  # "IT service desk, Sione speaking."
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
                if _a_name(name):
                    return name
        return ""


# --- who takes which name -----------------------------------------------------------------------------

STRENGTH = {"participants": 1, "addressed": 2, "introduced": 3, "profile": 4, "viewer": 5}
_THANKED = re.compile(rf"^(?i:thanks|thank you|thanks a lot|thank you very much|cheers)[,.!]?\s+(?P<name>{say.NAME})"
                      r"[,.!?]")
_ASKED = re.compile(r"^(?:please|can you|could you|would you|will you|what|how|when|where|why|do you|are you|"
                    r"have you|i'd like you to|i would like you to|i want you to|i need you to|you need to)\b|\?$",
                    re.IGNORECASE)
# "Hi Amara, ..." greets the voice that spoke before; said first, to nobody yet heard, it asks the next voice in.
_GREETED = re.compile(rf"^(?i:hi|hello|hey|good morning|morning|welcome|welcome back)[,!]?\s+"
                      rf"(?P<name>{say.NAME})[,.!?]")
OPEN_FOR = 5  # utterances an address ("Carol, please ...") stays open for its answer
_SENTENCE = re.compile(r"(?<=[.!?])\s+")
_REPLY = re.compile(r"^(?:yes|yeah|yep|sure|okay|ok|of course|will do|no problem|i will|i'll|i can|happy to|got it|"
                    r"on it|absolutely|certainly|no|nope|not yet)\b", re.IGNORECASE)
# A task given to someone by name ("Action item for Kenji: ...", "Marcus to update ...", "Let's have Priya own
# ...", "Pedro will make the screenshots."): that person, if present, is likely to answer.
_ASSIGNED = (say.ACTION_ITEM_FOR, say.NAME_TO, say.LETS_HAVE, say.NAME_WILL)


@dataclass(frozen=True)
class NameChange:
    label: str
    name: str
    how: str
    utterance: int = 0
    previous: str = ""


def _mentioned(name: str, text: str) -> bool:
    """``name`` said in ``text`` of someone else: "Pedro will do it", not "it's Magdalena in finance" or "Sione
    speaking" (a self-introduction the patterns above may not know)."""
    for match in re.finditer(rf"(?<!\w){re.escape(name)}(?!\w)", text):
        before, after = text[: match.start()].lower(), text[match.end():].lower()
        if not re.search(r"(?:it's|it is|this is|i'm|i am|name is|name's)\s*$", before) and not re.match(
            r"\s+(?:here|speaking)\b", after
        ):
            return True
    return False


def _ordered(rest: str) -> bool:
    """ "Hiroshi, fix that board this morning.": an order, which the one named answers."""
    return say.opens_with_task_verb(rest) and not rest.rstrip().endswith("?")


def _a_name(name: str) -> bool:
    return bool(name) and all(not say.common_word(part) and part.lower() not in _NOT_A_NAME
                              for part in name.split())


class Naming:
    """Names for voice labels, decided utterance by utterance (see the module's docstring)."""

    def __init__(self, participants: list[str] | tuple[str, ...] = ()) -> None:
        self.names: dict[str, tuple[str, str]] = {}  # label -> (name, how)
        self._evidence: dict[str, int] = {}  # label -> the utterance whose voice its name was given to
        self._previous_utterance = 0
        self._unplaced: list[tuple[str, str, int]] = []  # names whose voice's label had one: (name, how, utterance)
        self.participants: list[str] = list(dict.fromkeys(p for p in participants if p))
        self._previous = ""  # the voice that spoke last (its last segment)
        self._asked: list[tuple[str, str, int]] = []  # open addresses: (name, asker, heard count when asked)
        self._given: tuple[str, str] | None = None  # a task just given to a participant by name: (name, by whom)
        self._heard: set[str] = set()  # every label heard so far
        self._count = 0  # utterances heard
        self._addressed: list[str] = []  # names said to someone: people present
        self._not: dict[str, set[str]] = {}  # name -> voices that cannot be it (said it, or let it pass unanswered)
        self._said: dict[str, set[str]] = {}  # name -> voices that said it of someone else

    def name_of(self, label: str) -> str:
        return self.names.get(label, ("", ""))[0]

    def holder(self, name: str) -> str:
        """The label that holds ``name`` ("" if none)."""
        return next((label for label, (n, _) in self.names.items() if n.casefold() == name.casefold()), "")

    def give(self, label: str, name: str, how: str, utterance: int = 0, voice_of: int = 0) -> NameChange | None:
        """Name a voice unless a stronger way named it already or another voice holds that name; ``voice_of``:
        the utterance whose voice the name belongs to (the name follows it if re-clustering moves it)."""
        name = " ".join(name.split())
        current, current_how = self.names.get(label, ("", ""))
        if not name or current == name or self.holder(name) not in ("", label):
            return None
        if current and STRENGTH[how] <= STRENGTH[current_how] and how != "viewer":  # the first one holds
            if voice_of:  # unless that utterance turns out to be another voice (re-clustering): kept for then
                self._unplaced.append((name, how, voice_of))
            return None
        self.names[label] = (name, how)
        self._evidence[label] = voice_of
        return NameChange(label, name, how, utterance, current)

    def moved(self, relabels: list[tuple[int, str, str]]) -> list[NameChange]:
        """Earlier speech moved to other labels ((utterance, label, was)): a name given to the voice of a moved
        utterance leaves the label it was on (a change to "") and goes with it."""
        changes: list[NameChange | None] = []
        for utterance, label, was in relabels:
            if utterance and self._evidence.get(was) == utterance and was in self.names:
                name, how = self.names.pop(was)
                del self._evidence[was]
                changes.append(NameChange(was, "", how, utterance, name))
                changes.append(self.give(label, name, how, utterance, utterance))
            for entry in [e for e in self._unplaced if e[2] == utterance]:
                self._unplaced.remove(entry)
                changes.append(self.give(label, entry[0], entry[1], utterance, utterance))
        return [c for c in changes if c is not None]

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
        self._count += 1
        self._asked = [a for a in self._asked if self._count - a[2] <= OPEN_FOR and not self.holder(a[0])]
        for name, asker, when in self._asked:
            if when == self._count - 1 and first != asker:  # spoke right after someone was asked: them, or not
                self._not.setdefault(name, set()).add(first)
        sentences = [s for s in _SENTENCE.split(" ".join(text.split())) if s]
        changes = [self._answered(utterance, sentences, first, last)]
        introduced = SpeakerNames.introduced(text)
        if introduced:
            speaker = first if text.find(introduced) < len(text) / 2 else last
            changes.append(self.give(speaker, introduced, "introduced", utterance, utterance))
        for k, sentence in enumerate(sentences):
            said_by = first if text.find(sentence) < len(text) / 2 else last  # which voice of a split utterance
            greeted = _GREETED.match(sentence) if k == 0 else None
            thanked = _THANKED.match(sentence) or say.ANSWERED.match(sentence) or greeted
            if thanked and k == 0 and self._previous and self._previous != first and _a_name(thanked["name"]):
                changes.append(self.give(self._previous, thanked["name"], "addressed", utterance,
                                         self._previous_utterance))
                self._present(thanked["name"], first)
            elif greeted and _a_name(greeted["name"]):  # "Hi, Noor. Come in.": whoever answers first
                self._asked.append((greeted["name"], said_by, self._count))
                self._present(greeted["name"], said_by)
            vocative = say.VOCATIVE.match(sentence)
            # "..., Carol?", "I'd like you to recheck her pressure every two hours, Kofi."
            late = say.LATE_VOCATIVE.search(sentence) if _ASKED.search(sentence) or _ordered(sentence) else None
            if vocative and _a_name(vocative["name"]) and (_ASKED.search(vocative["rest"])
                                                            or _ordered(vocative["rest"])):
                self._asked.append((vocative["name"], said_by, self._count))
                self._present(vocative["name"], said_by)
            elif late and _a_name(late["name"]):
                self._asked.append((late["name"], said_by, self._count))
                self._present(late["name"], said_by)
        self._given = None
        for sentence in sentences:
            given = next((m for m in (p.search(sentence) for p in _ASSIGNED) if m), None)
            if given and given["name"] in self.participants and not self.holder(given["name"]):
                self._given = (given["name"], first)
        if first == last:  # "Pedro will make the screenshots.": whoever says a name is not that person
            for name in self.participants:
                if name != introduced and _mentioned(name, text):
                    self._said.setdefault(name, set()).add(first)
        self._heard.update({first, last})
        self._previous, self._previous_utterance = last, utterance
        changes.append(self._by_elimination(utterance))
        while (excluded := self._by_exclusion(utterance)) is not None:  # one name given may settle another
            changes.append(excluded)
        return [c for c in changes if c is not None]

    def _answered(self, utterance: int, sentences: list[str], first: str, last: str) -> NameChange | None:
        """Someone was asked by name in the last few utterances: a voice never heard before (where the utterance
        begins, or ends) takes the latest open address not asked by itself; a voice that begins the utterance with
        a reply ("Yes, I will ...") right after the address takes it, if unnamed; and a reply right after a task
        was given to a participant by name ("Marcus to update the pricing page." - "Will do.") is theirs."""
        replies = bool(sentences) and bool(say.FIRST_PERSON.search(sentences[0]) or _REPLY.match(sentences[0]))
        new = [v for v in dict.fromkeys((first, last)) if v not in self._heard]  # a new voice first
        for voice in [*new, first]:
            open_ = [a for a in self._asked if a[1] != voice]
            if open_ and (voice in new or (replies and voice not in self.names and open_[-1][2] == self._count - 1)):
                name = open_[-1][0]
                self._asked = [a for a in self._asked if a[0] != name]
                return self.give(voice, name, "addressed", utterance, utterance)
        if self._given is not None and replies and first != self._given[1] and first not in self.names:
            return self.give(first, self._given[0], "addressed", utterance, utterance)  # "Happy to."
        return None

    def _present(self, name: str, said_by: str) -> None:
        """``name`` was said to someone: a person present, and not the voice that said it."""
        if name not in self._addressed:
            self._addressed.append(name)
        self._not.setdefault(name, set()).add(said_by)
        self._said.setdefault(name, set()).add(said_by)

    def _by_elimination(self, utterance: int) -> NameChange | None:
        """One voice left without a name and one name of the people present left free (``--participants``, once as
        many voices were heard as it names; or the names said to someone), and nothing says the voice is not
        that person (it said the name, or spoke right after that name was asked without answering): together."""
        unnamed = [label for label in sorted(self._heard) if label and label not in self.names]
        if len(unnamed) != 1:
            return None
        if self.participants and len(self._heard - {""}) == len(self.participants):
            free, how = [n for n in self.participants if not self.holder(n)], "participants"
        else:
            waiting = {name for name, _, _ in self._asked}  # asked, the answer may still come: not yet
            free, how = [n for n in self._addressed if not self.holder(n) and n not in waiting], "addressed"
        if len(free) == 1 and unnamed[0] not in self._not.get(free[0], set()):
            return self.give(unnamed[0], free[0], how, utterance, utterance)
        return None

    def _by_exclusion(self, utterance: int) -> NameChange | None:
        """Everyone of ``--participants`` heard: a voice that said every free name but one of someone else takes
        that one (not letting a name pass unanswered: the one asked often answers in words no rule reads)."""
        heard = self._heard - {""}
        if not self.participants or len(heard) != len(self.participants):
            return None
        free = [n for n in self.participants if not self.holder(n)]
        for voice in sorted(label for label in heard if label not in self.names):
            can = [n for n in free if voice not in self._said.get(n, set())]
            if len(can) == 1:
                return self.give(voice, can[0], "participants", utterance, utterance)
        return None
