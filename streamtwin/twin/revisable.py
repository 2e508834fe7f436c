"""The rules' reading of utterances that a second decode may still correct.

The speech stage sends ``transcript.revised`` about a second after an utterance ends, when
the utterance read whole says something else ("The quiddet on my back" -> "The quiz is on
Monday", "what is time working on" -> "what is Tom working on").  The rule extractor reads
utterances in order and keeps state between them (who was addressed, who has the floor), so
a correction cannot be patched in: the extractor is rebuilt from a copy taken before the
revised utterance, and everything after it is read again.  Copies are kept for the last
``keep`` utterances only (a revision comes within seconds); older utterances are final.

Plain class: no I/O, no clock.
"""

from __future__ import annotations

import copy
from collections import deque
from dataclasses import dataclass

from streamtwin.twin.extract import RuleExtractor


@dataclass(frozen=True)
class _Said:
    utterance: int  # the speech stage's number, 0 when it gave none (never revised)
    text: str
    speaker: str


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
        self._step(_Said(utterance, text, speaker))

    def rename(self, label: str, name: str) -> None:
        self._step(_Renamed(label, name))

    def revise(self, utterance: int, text: str | None = None, speaker: str | None = None) -> bool:
        """Utterance ``utterance`` reads ``text`` now, or was said by ``speaker`` (a voice relabelled): read it and
        everything after it again.  False when it is not among the recent ones (or nothing changed)."""
        index = next(
            (i for i, (_, step) in enumerate(self._steps)
             if isinstance(step, _Said) and utterance and step.utterance == utterance),
            None,
        )
        if index is None:
            return False
        steps = list(self._steps)
        before, said = steps[index]
        assert isinstance(said, _Said)
        text = said.text if text is None else text
        speaker = said.speaker if speaker is None else speaker
        if said.text == text and said.speaker == speaker:
            return False
        self.extractor = copy.deepcopy(before)
        for _ in range(len(steps) - index):
            self._steps.pop()
        self._step(_Said(said.utterance, text, speaker))
        for _, step in steps[index + 1 :]:
            self._step(step)
        return True

    def _step(self, step: _Said | _Renamed) -> None:
        self._steps.append((copy.deepcopy(self.extractor), step))
        if isinstance(step, _Said):
            self.extractor.add(step.text, step.speaker)
        else:
            self.extractor.rename(step.label, step.name)
