"""Every quote in an answer checked against the transcripts before it is shown.

The model cites as it is told, ``[M3 12:04 Anna] "the exact words"`` (or the quote first and the label after
it); a quote of four words or more without a label is checked too, against every meeting.  Each quote is looked up in the cited meeting's transcript, word for word once case and punctuation are
set aside, then in the other meetings (a model can mislabel); failing that, the line of the cited meeting
it best matches, if most of its words are there in order.  What is shown is the transcript's own words, with
the meeting, time stamp and speaker of the line they were found in, never the model's version.  A quote
found nowhere is taken out of the answer and listed as rejected.

Plain functions: no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from difflib import SequenceMatcher

from streamtwin.meetings.layout import label
from streamtwin.meetings.transcript import Meeting

_LABEL = r"\[\s*(M\d+)\b([^\]\n]{0,80})\]"
_QUOTE = r"[\"“]([^\"”\n]{3,600})[\"”]"
# [M3 12:04 Anna] "words"  or  [M3 12:04 Anna]: "words"  or  "words" [M3 12:04 Anna]  or  "words" alone
CITATION = re.compile(rf"{_LABEL}\s*[:,-]?\s*{_QUOTE}|{_QUOTE}\s*[,(]?\s*{_LABEL}\)?|{_QUOTE}")
BARE_LABEL = re.compile(_LABEL)
_WORD = re.compile(r"[\w']+")
MIN_FUZZY_WORDS = 4
MIN_BARE_WORDS = 4  # a quote without a label, shorter than this, is a phrase (a name, a title): left as it is
FUZZY_SHARE = 0.8  # of the quote's words found in order in one line (or two consecutive lines)


@dataclass(frozen=True)
class Source:
    """Where a quote was said: the meeting (its name, session and source), the time and the speaker."""

    meeting: str
    session: str
    recording: str
    start: float
    speaker: str
    quote: str  # the transcript's words

    def to_dict(self) -> dict[str, object]:
        return dict(self.__dict__)


@dataclass
class Checked:
    text: str  # the answer, each quote followed by its source number: "the exact words" [1]
    sources: list[Source] = field(default_factory=list)
    rejected: list[str] = field(default_factory=list)  # quotes found in no transcript, taken out


def words(text: str) -> list[str]:
    return [word.strip("'") for word in _WORD.findall(text.lower()) if word.strip("'")]


class _Index:
    """One meeting's words in order, each with the line it belongs to."""

    def __init__(self, meeting: Meeting) -> None:
        self.meeting = meeting
        self.line_words = [words(line.text) for line in meeting.lines]
        self.flat: list[str] = []
        self.owner: list[int] = []
        for number, line_words in enumerate(self.line_words):
            self.flat += line_words
            self.owner += [number] * len(line_words)

    def exact(self, quote: list[str]) -> tuple[int, int] | None:
        """(first line, last line) of the quote's words as one run, or None."""
        size = len(quote)
        first = quote[0]
        for at, word in enumerate(self.flat):
            if word == first and self.flat[at:at + size] == quote:
                return self.owner[at], self.owner[at + size - 1]
        return None

    def closest(self, quote: list[str]) -> tuple[int, int] | None:
        """The line (or two consecutive lines) holding most of the quote's words in order, if enough do."""
        best, where = 0, None
        for span in (1, 2):  # a single line first: two lines win only with more of the quote's words
            for number in range(len(self.line_words) - span + 1):
                text = [w for line in self.line_words[number:number + span] for w in line]
                if not text:
                    continue
                matcher = SequenceMatcher(None, quote, text, autojunk=False)
                found = sum(block.size for block in matcher.get_matching_blocks())
                if found > best:
                    best, where = found, (number, number + span - 1)
        return where if where is not None and best >= FUZZY_SHARE * len(quote) else None


def numbered(source: Source, number: int) -> str:
    """How a checked quote is shown: the transcript's words, then its source's number."""
    return f'"{source.quote}" [{number}]'


def check(answer: str, meetings: list[Meeting], cite: Callable[[Source, int], str] = numbered) -> Checked:
    """``answer`` with every quote checked, numbered and sourced (see the module's docstring); ``cite`` writes
    each quote found in the text, from its source and number."""
    indexes: dict[int, _Index] = {}

    def index_of(position: int) -> _Index:
        if position not in indexes:
            indexes[position] = _Index(meetings[position])
        return indexes[position]

    by_label = {label(position): position for position in range(len(meetings))}
    result = Checked(text="")
    numbers: dict[Source, int] = {}
    pieces: list[str] = []
    last = 0
    for match in CITATION.finditer(answer):
        cited = match.group(1) or match.group(5) or ""
        quote = match.group(3) or match.group(4) or match.group(7)
        pieces.append(answer[last:match.start()])
        last = match.end()
        if not cited and len(words(quote)) < MIN_BARE_WORDS:
            pieces.append(match.group())
            continue
        source = _find(quote, by_label.get(cited.upper()), len(meetings), index_of)
        if source is None:
            result.rejected.append(quote.strip())
            continue
        if source not in numbers:
            numbers[source] = len(result.sources) + 1
            result.sources.append(source)
        pieces.append(cite(source, numbers[source]))
    pieces.append(answer[last:])
    # A label left without a quote says nothing checkable: dropped, so no unchecked source is shown.
    text = BARE_LABEL.sub("", "".join(pieces))
    result.text = re.sub(r"[ \t]+([.,;:])", r"\1", re.sub(r"[ \t]{2,}", " ", text)).strip()
    return result


def _find(quote: str, cited: int | None, count: int, index_of) -> Source | None:  # type: ignore[no-untyped-def]
    wanted = words(quote)
    if not wanted:
        return None
    order = ([cited] if cited is not None else []) + [p for p in range(count) if p != cited]
    for position in order:  # word for word: the cited meeting first, then any
        index = index_of(position)
        span = index.exact(wanted)
        if span is not None:
            return _source(index, span, wanted)
    if len(wanted) < MIN_FUZZY_WORDS or cited is None:
        return None
    # Near words only in the meeting cited: a paraphrase elsewhere would be a guess (and costly to look for).
    index = index_of(cited)
    span = index.closest(wanted)
    return _source(index, span, None) if span is not None else None


def _source(index: _Index, span: tuple[int, int], exact: list[str] | None) -> Source:
    meeting = index.meeting
    first, last = span
    lines = meeting.lines[first:last + 1]
    text = " ".join(line.text for line in lines)
    if exact is not None:
        text = _cut(text, exact)
    return Source(
        meeting=meeting.name, session=meeting.session, recording=meeting.source, start=lines[0].start,
        speaker=lines[0].speaker, quote=text,
    )


def _cut(text: str, quote: list[str]) -> str:
    """The part of ``text`` (the transcript's own spelling) that the quote's words cover."""
    spans = [(m.start(), m.end()) for m in _WORD.finditer(text) if m.group().strip("'")]
    lowered = [text[a:b].lower().strip("'") for a, b in spans]
    for at in range(len(lowered) - len(quote) + 1):
        if lowered[at:at + len(quote)] == quote:
            return text[spans[at][0]:spans[at + len(quote) - 1][1]]
    return text

