"""What each voice said in an utterance that held several.

Two people who speak without a pause make one utterance; the speaker stage then sends a ``speaker.turns``
split, the words of the utterance by voice.  The rules and the model must read each part as its speaker's
("I will email the date" in Alice's half is Alice's task even when Bob ends the utterance), and keep doing so
when the utterance is decoded again (``transcript.revised``) or a part moves to another voice later.

Plain class: no I/O, no clock.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence
from typing import Any

from streamtwin.utterances import split_at_turns

Parts = list[tuple[str, str]]  # (text, speaker), in the order said


class VoiceParts:
    """Recent utterances' timed words (:meth:`heard`), split by the turns of the voices in them."""

    def __init__(self, keep: int = 16) -> None:
        self._words: OrderedDict[int, Sequence[Sequence[Any]]] = OrderedDict()  # utterance -> its latest words
        self._turns: dict[int, list[tuple[float, float, str]]] = {}  # utterances known to hold several voices
        self._keep = keep

    def heard(self, utterance: int, words: Sequence[Sequence[Any]]) -> None:
        """Utterance ``utterance`` ended with these (word, start, end)."""
        if utterance:
            self._words[utterance] = words
            while len(self._words) > self._keep:
                gone, _ = self._words.popitem(last=False)
                self._turns.pop(gone, None)

    def on_turns(self, turns: Sequence[dict[str, Any]], split: bool) -> dict[int, Parts]:
        """A ``speaker.turns`` event's turns (``split``: its reason is split): the utterances that hold several
        voices and must be read again, each as its parts.  A relabel of an utterance not split is not here (it
        moves whole)."""
        moved: dict[int, list[tuple[float, float, str]]] = {}
        for turn in turns:
            moved.setdefault(turn["utterance"], []).append(
                (float(turn["start"]), float(turn["end"]), turn["speaker_name"] or turn["speaker"]))
        again: dict[int, Parts] = {}
        for utterance, new in moved.items():
            if utterance not in self._words:
                continue
            if split:
                self._turns[utterance] = sorted(new)
            elif utterance in self._turns:  # a part moved to another voice: the turns it covers take that voice
                self._turns[utterance] = [
                    (start, end, next((s for a, b, s in new if a <= (start + end) / 2 < b), speaker))
                    for start, end, speaker in self._turns[utterance]
                ]
            else:
                continue
            again[utterance] = split_at_turns(self._words[utterance], self._turns[utterance])
        return again

    def on_revision(self, utterance: int, words: Sequence[Sequence[Any]]) -> Parts | None:
        """Utterance ``utterance`` decoded again: its parts in the new words if it holds several voices, else
        None (it is read whole)."""
        if utterance not in self._words:
            return None
        self._words[utterance] = words
        return split_at_turns(words, self._turns[utterance]) if utterance in self._turns else None
