"""Group transcript finals (commits, often a few words) into utterances.

The utterance is the unit people, the context window, the driver and the page
think in.  A speech stage that numbers its finals (``utterance`` > 0) says where
one ends (``utterance_end``, or the next number starting).  Older producers send
``utterance == 0``: then a final that starts more than ``gap_s`` after the
previous one ended begins a new utterance, and a fragment ending in "?" closes
one at once (a question should not wait for the next speaker).

Plain class: no I/O, no clock; times are media seconds passed in.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Generic, TypeVar

if TYPE_CHECKING:
    from streamtwin.events import TranscriptFinal, TranscriptRevised


@dataclass(frozen=True)
class Utterance:
    key: int  # 1, 2, ... in order of the grouper, whatever the producer numbered
    text: str
    start: float
    end: float
    fragments: int
    speaker: str = ""  # who said it ("Tom", or "S2" before the voice gave a name): the label of its last final
    number: int = 0  # the producer's utterance number (0: it numbers none), as a revision names it
    words: tuple[tuple[str, float, float], ...] = ()  # (word, start, end) of its finals, where they were timed


@dataclass
class _Open:
    key: int
    producer_id: int
    start: float
    end: float
    parts: list[str] = field(default_factory=list)
    speaker: str = ""
    words: list[tuple[str, float, float]] = field(default_factory=list)

    def close(self) -> Utterance:
        return Utterance(
            self.key, " ".join(self.parts), self.start, self.end, len(self.parts), self.speaker, self.producer_id,
            tuple(self.words),
        )


def split_at_turns(
    words: Sequence[Sequence[Any]], turns: Sequence[tuple[float, float, str]]
) -> list[tuple[str, str]]:
    """An utterance's timed words as (text, speaker) parts, one per run of a voice: each word goes to the turn
    (start, end, speaker) its middle lies in, a word outside every turn to the turn nearest it.  Two people
    who speak without a pause make one utterance; what each said is theirs ("I will email the date" in
    Alice's half stays Alice's when Bob ends the utterance)."""
    if not turns:
        return []
    parts: list[tuple[str, str]] = []
    for word, start, end in ((w[0], float(w[1]), float(w[2])) for w in words):
        middle = (start + end) / 2
        speaker = min(turns, key=lambda t: 0.0 if t[0] <= middle < t[1] else min(abs(middle - t[0]),
                                                                                  abs(middle - t[1])))[2]
        if parts and parts[-1][1] == speaker:
            parts[-1] = (f"{parts[-1][0]} {word.strip()}", speaker)
        elif word.strip():
            parts.append((word.strip(), speaker))
    return parts


class UtteranceGrouper:
    """Feed finals in order with :meth:`add`; completed utterances come back."""

    def __init__(self, gap_s: float = 0.6) -> None:
        self.gap_s = gap_s
        self._open: _Open | None = None
        self._next_key = 1
        self.last_key: int | None = None  # the utterance the last non-empty final joined (open or not)

    @property
    def is_open(self) -> bool:
        """An utterance is open (its end not seen yet)."""
        return self._open is not None

    @property
    def pending_text(self) -> str:
        return " ".join(self._open.parts) if self._open is not None else ""

    def add(
        self, text: str, start: float, end: float, utterance: int = 0, utterance_end: bool = False, speaker: str = "",
        words: Sequence[Sequence[Any]] = (),
    ) -> list[Utterance]:
        """One final; returns the utterances it completed (before it, and its own if it ended one).

        ``speaker`` is the final's label (its ``speaker_name`` or ``speaker``); a later final's label
        replaces an earlier one's, so the utterance takes its last final's, which holds for all of it."""
        text = " ".join(text.split())
        done: list[Utterance] = []
        if self._open is not None and self._starts_new(start, utterance):
            done.append(self._close())
        if text:
            if self._open is None:
                self._open = _Open(self._next_key, utterance, start, end)
                self._next_key += 1
            self._open.parts.append(text)
            self._open.words += [(str(w[0]), float(w[1]), float(w[2])) for w in words]
            self.last_key = self._open.key
            self._open.end = max(self._open.end, end)
        if speaker and self._open is not None:
            self._open.speaker = speaker
        ends = utterance_end if utterance > 0 else text.endswith("?")
        if ends and self._open is not None:
            done.append(self._close())
        return done

    def on_speech(self, start: float) -> list[Utterance]:
        """New speech (a partial) began at ``start``: for producers without ids, a gap closes the open utterance."""
        if self._open is not None and self._open.producer_id == 0 and start - self._open.end > self.gap_s:
            return [self._close()]
        return []

    def flush(self) -> list[Utterance]:
        """The source ended: whatever is open is complete."""
        return [self._close()] if self._open is not None else []

    def _starts_new(self, start: float, utterance: int) -> bool:
        assert self._open is not None
        if utterance > 0 or self._open.producer_id > 0:
            return utterance != self._open.producer_id
        return start - self._open.end > self.gap_s

    def _close(self) -> Utterance:
        assert self._open is not None
        utterance, self._open = self._open.close(), None
        return utterance


class Paragraphs:
    """What was said, an utterance a paragraph, each with its second reading (``transcript.revised``) in place
    of what was committed: the transcript a person reads afterwards (the notes, a past meeting asked about)."""

    def __init__(self) -> None:
        self._grouper = UtteranceGrouper()
        self.items: list[Utterance] = []
        self._numbered: dict[int, int] = {}  # the producer's utterance number -> its paragraph (for its revision)

    def final(self, event: TranscriptFinal) -> None:
        done = self._grouper.add(
            event.text, event.start, event.end, event.utterance, event.utterance_end,
            event.speaker_name or event.speaker,
        )
        self.items += done
        if event.utterance_end and done:
            self._numbered[event.utterance] = len(self.items) - 1

    def revised(self, event: TranscriptRevised) -> None:
        if event.utterance in self._numbered:
            index = self._numbered.pop(event.utterance)
            self.items[index] = replace(self.items[index], text=event.text)

    def flush(self) -> list[Utterance]:
        """Every paragraph, the one still open included (the session ended, or is read as it is now)."""
        self.items += self._grouper.flush()
        return self.items


T = TypeVar("T")


class RecentUtterances(Generic[T]):
    """The finals of the last ``limit`` whole utterances (as events or as their bytes): what a late
    viewer is sent, so no paragraph starts halfway."""

    def __init__(self, limit: int) -> None:
        self._groups: deque[tuple[int, list[T]]] = deque(maxlen=limit)  # (producer's utterance number, items)
        self._grouper = UtteranceGrouper()
        self._key: int | None = None

    def add(self, final: TranscriptFinal, item: T) -> None:
        self._grouper.add(final.text, final.start, final.end, final.utterance, final.utterance_end)
        key = self._grouper.last_key
        if key != self._key or not self._groups:
            self._groups.append((final.utterance, []))
        self._groups[-1][1].append(item)
        self._key = key

    def revise(self, utterance: int, item: T) -> None:
        """A revision of utterance ``utterance``: kept after its finals while they are kept."""
        for number, items in reversed(self._groups):
            if number == utterance and utterance > 0:
                items.append(item)
                return

    def items(self) -> list[T]:
        return [item for _, group in self._groups for item in group]
