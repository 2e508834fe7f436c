"""The rules' reading of utterances that a second decode may still correct.

The speech stage sends ``transcript.revised`` about a second after an utterance ends, when
the utterance read whole says something else ("The quiddet on my back" -> "The quiz is on
Monday", "what is time working on" -> "what is Tom working on").  The rule extractor reads
utterances in order and keeps state between them (who was addressed, who has the floor), so
a correction cannot be patched in: the extractor is rebuilt from a copy taken before the
revised utterance, and everything after it is read again.  Copies are kept for the last
``keep`` utterances only (a revision comes within seconds); older utterances are final.

A revision is usually the better reading, but not always: :func:`puts_words_in_mouth` names the one kind
the twin keeps the first reading for.

Plain class: no I/O, no clock.
"""

from __future__ import annotations

import copy
import re
from collections import deque
from dataclasses import dataclass

from streamtwin.twin.extract import RuleExtractor
from streamtwin.twin.phrasings import FIRST_PERSON

_OF_THEMSELVES = re.compile(r"\b(?:i|i'll|i'm|i'd|i've|me|my|mine|myself)\b", re.IGNORECASE)


def puts_words_in_mouth(revised: str, replaced: str) -> bool:
    """True when the revision has its speaker commit ("Then I'll work cost more money than we planned.") where
    the first reading had them say nothing of themselves ("The design work cost more money ...").

    Measured (samples/meeting.wav, Whisper base): that one revision made Bob the owner of "work cost more money
    than we planned".  Two readings of the same audio that disagree on whether the speaker said "I" at all are no
    evidence of a promise; where the first reading heard the speaker of themselves ("Okay, I log a ticket" ->
    "Okay, I'll log a ticket"), the revision's commitment stands, and one that takes a commitment back ("I will
    report Sim Python" -> "I built reports in Python") always does."""
    return bool(replaced) and bool(FIRST_PERSON.search(revised)) and not _OF_THEMSELVES.search(replaced)


@dataclass(frozen=True)
class _Said:
    utterance: int  # the speech stage's number, 0 when it gave none (never revised)
    parts: tuple[tuple[str, str], ...]  # (text, speaker): one, or one per voice of an utterance that held several


@dataclass(frozen=True)
class _Renamed:
    label: str
    name: str


class RevisableRules:
    """A :class:`RuleExtractor` fed through :meth:`add` and :meth:`rename`, corrected by :meth:`revise`."""

    def __init__(self, keep: int = 16) -> None:
        self.extractor = RuleExtractor()
        # Each recent step, with the extractor as it was before it.
        self._steps: deque[tuple[RuleExtractor, _Said | _Renamed]] = deque(maxlen=keep)

    def add(self, text: str, speaker: str = "", utterance: int = 0) -> None:
        self._step(_Said(utterance, ((text, speaker),)))

    def rename(self, label: str, name: str) -> None:
        self._step(_Renamed(label, name))

    def revise(self, utterance: int, text: str | None = None, speaker: str | None = None) -> bool:
        """Utterance ``utterance`` reads ``text`` now, or was said by ``speaker`` (a voice relabelled): read it and
        everything after it again.  False when it is not among the recent ones (or nothing changed)."""
        index = self._index(utterance)
        if index is None:
            return False
        said = self._steps[index][1]
        assert isinstance(said, _Said)
        text = " ".join(part for part, _ in said.parts) if text is None else text
        speaker = said.parts[-1][1] if speaker is None else speaker
        return self._replace(index, ((text, speaker),))

    def split(self, utterance: int, parts: list[tuple[str, str]]) -> bool:
        """Utterance ``utterance`` held several voices: each (text, speaker) part is read as said by its own, and
        everything after it again.  False when it is not among the recent ones (or nothing changed)."""
        index = self._index(utterance)
        return index is not None and bool(parts) and self._replace(index, tuple(parts))

    def _index(self, utterance: int) -> int | None:
        return next(
            (i for i, (_, step) in enumerate(self._steps)
             if isinstance(step, _Said) and utterance and step.utterance == utterance),
            None,
        )

    def _replace(self, index: int, parts: tuple[tuple[str, str], ...]) -> bool:
        steps = list(self._steps)
        before, said = steps[index]
        assert isinstance(said, _Said)
        if said.parts == parts:
            return False
        self.extractor = copy.deepcopy(before)
        for _ in range(len(steps) - index):
            self._steps.pop()
        self._step(_Said(said.utterance, parts))
        for _, step in steps[index + 1 :]:
            self._step(step)
        return True

    def _step(self, step: _Said | _Renamed) -> None:
        self._steps.append((copy.deepcopy(self.extractor), step))
        if isinstance(step, _Said):
            for text, speaker in step.parts:
                self.extractor.add(text, speaker)
        else:
            self.extractor.rename(step.label, step.name)
