"""The transcript as the page shows it at the end: who said what once every ``speaker.turns`` and
``speaker.named`` has been applied, for the exports written after the fact (the meeting notes).

A paragraph per utterance holds spans, a final each (as the page's ``.final`` spans); a span takes the
label of the utterance's last labelled final, then whatever voice a ``speaker.turns`` turn gives the spans
whose middle lies in it.  A revision replaces the spans with its words, cut where the voices of the spans
it replaces change (a split utterance keeps its split), each word with the voice of the span under its
middle.  A label shows the latest name ``speaker.named`` gave it, else the name its finals carried, else
itself.  ``streamtwin/web/exports.js`` (``shownParagraphs``) and the page (``transcript.js``) do the same;
a test holds them to the same output.

Plain class: no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from streamtwin.events import Event, SpeakerNamed, SpeakerTurns, TranscriptFinal, TranscriptRevised
from streamtwin.outputs.cues import timed_words
from streamtwin.utterances import UtteranceGrouper


@dataclass
class Span:
    text: str
    start: float
    end: float
    speaker: str = ""

    @property
    def middle(self) -> float:
        return (self.start + self.end) / 2


@dataclass
class ShownParagraph:
    """One utterance: its first final's start, and ``runs`` of (who, text), a run per voice change; who is the
    shown name ("" when the words have no voice)."""

    start: float
    runs: list[tuple[str, str]]

    @property
    def text(self) -> str:
        return " ".join(text for _, text in self.runs)

    @property
    def speaker(self) -> str:
        """Who is shown first (the paragraph's head tag)."""
        return next((who for who, _ in self.runs if who), "")


@dataclass
class _Paragraph:
    key: int
    utterance: int
    start: float
    spans: list[Span] = field(default_factory=list)


def revised_spans(old: list[Span], text: str, start: float, end: float, words: list, speaker: str) -> list[Span]:
    """A revision's words in place of ``old``: one span when the old spans had one voice (theirs, else the
    revision's ``speaker``), else a span per run of words under one voice."""
    voices = {span.speaker for span in old if span.speaker}
    if len(voices) <= 1:
        return [Span(" ".join(text.split()), start, end, next(iter(voices), speaker))]
    voiced = [span for span in old if span.speaker]
    out: list[Span] = []
    for word in timed_words(text, start, end, words):
        middle = (word.start + word.end) / 2
        under = min(voiced, key=lambda s: 0.0 if s.start <= middle < s.end else min(abs(s.start - middle),
                                                                                     abs(s.end - middle)))
        if out and out[-1].speaker == under.speaker:
            out[-1] = Span(f"{out[-1].text} {word.text}", out[-1].start, word.end, under.speaker)
        else:
            out.append(Span(word.text, word.start, word.end, under.speaker))
    return out


class ShownTranscript:
    """Events in (in order), :meth:`paragraphs` out."""

    def __init__(self) -> None:
        self._grouper = UtteranceGrouper()
        self._paragraphs: list[_Paragraph] = []
        self._current: _Paragraph | None = None  # the open utterance's paragraph
        self._names: dict[str, str] = {}  # label -> its latest name (speaker.named)
        self._carried: dict[str, str] = {}  # label -> the name its latest final carried

    def add(self, event: Event) -> None:
        if isinstance(event, TranscriptFinal):
            self._final(event)
        elif isinstance(event, TranscriptRevised):
            self._revised(event)
        elif isinstance(event, SpeakerTurns):
            self._turns(event)
        elif isinstance(event, SpeakerNamed):
            self._names[event.speaker] = event.name

    def name(self, label: str) -> str:
        if not label:
            return ""
        return (self._names[label] if label in self._names else self._carried.get(label, "")) or label

    def paragraphs(self) -> list[ShownParagraph]:
        out = []
        for paragraph in self._paragraphs:
            runs: list[tuple[str, list[str]]] = []
            for span in paragraph.spans:
                if not span.text:
                    continue
                if runs and (not span.speaker or runs[-1][0] in ("", span.speaker)):
                    runs[-1] = (runs[-1][0] or span.speaker, runs[-1][1] + [span.text])
                else:
                    runs.append((span.speaker, [span.text]))
            if runs:
                out.append(ShownParagraph(paragraph.start, [(self.name(who), " ".join(t)) for who, t in runs]))
        return out

    def _final(self, event: TranscriptFinal) -> None:
        self._grouper.add(event.text, event.start, event.end, event.utterance, event.utterance_end)
        text = " ".join(event.text.split())
        key = self._grouper.last_key
        if text:
            if self._current is None or self._current.key != key:
                self._current = _Paragraph(key or 0, event.utterance, event.start)
                self._paragraphs.append(self._current)
            self._current.spans.append(Span(text, event.start, event.end, event.speaker))
            self._label(self._current, event)
        elif self._current is not None and self._current.key == key:
            self._label(self._current, event)
        if not self._grouper.is_open:
            self._current = None

    def _label(self, paragraph: _Paragraph, event: TranscriptFinal) -> None:
        """A labelled final's label holds for its whole utterance (the last one's holds)."""
        if not event.speaker:
            return
        for span in paragraph.spans:
            span.speaker = event.speaker
        if event.speaker_name:
            self._carried[event.speaker] = event.speaker_name

    def _revised(self, event: TranscriptRevised) -> None:
        paragraph = next((p for p in reversed(self._paragraphs) if p.utterance == event.utterance > 0), None)
        if paragraph is None or not paragraph.spans or not event.text.strip():
            return
        paragraph.spans = revised_spans(
            paragraph.spans, event.text, event.start, event.end, event.words, event.speaker
        )

    def _turns(self, event: SpeakerTurns) -> None:
        for turn in event.turns:
            for paragraph in self._paragraphs:
                if paragraph.utterance != turn["utterance"] or not paragraph.utterance:
                    continue
                for span in paragraph.spans:
                    if turn["start"] <= span.middle < turn["end"]:
                        span.speaker = turn["speaker"]
