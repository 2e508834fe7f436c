"""The reduce step's quotes: what the chunks' readers quoted, checked and numbered for the call that combines
their notes, and that call's answer assembled with them.

A small model asked to combine notes restates their facts and drops their quotes (the first accuracy run with
the local Qwen: none of its answers kept one).  So the reduce call sees each checked quote under a number,
``[3] M5 00:09 Sam: "the exact words"``, and is asked to cite by number, which it can; :func:`assemble` puts
each cited quote in place of its number before the answer's quotes are checked as any answer's are, and an
answer that cites none gets the quotes it was combined from after it.  Every quote shown is the transcript's.

Plain functions: no I/O.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from streamtwin.meetings.layout import found_nothing, label, stamp
from streamtwin.meetings.quotes import Checked, Source, check
from streamtwin.meetings.transcript import Meeting

MAX_APPENDED = 8  # quotes put after an answer that cites none: the first ones the readers found
APPENDED_HEADING = "From the meetings:"  # the line before them
_QUOTED = r'[\"“][^\"”\n]{0,600}[\"”]'
# A number cited as the reduce prompt asks, "[3]" or "[3, 5]", with the quote the model may have copied before it,
# or after it as the notes write it: [3] M5 00:09 Sam: "the words".
_REFERENCE = re.compile(rf'(?:({_QUOTED})\s*)?\[\s*(\d{{1,3}}(?:\s*[,;]\s*\d{{1,3}})*)\s*\]'
                        rf'(?:\s*M\d+\s+\d{{1,2}}(?::\d{{2}}){{1,2}}\s+[^:\n"“\[\]]{{1,60}}:\s*({_QUOTED}))?')


@dataclass
class Evidence:
    """One question's checked quotes from every chunk (``sources``, numbered from 1 in order of finding) and the
    chunks' notes as the reduce call reads them, each quote written as its number and citation."""

    sources: list[Source] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def citation(source: Source, meetings: list[Meeting]) -> str:
    """``[M5 00:09 Sam] "the words"``: a quote as the answers cite it (and :func:`~.quotes.check` reads it)."""
    return f'[{_where(source, meetings)}] "{source.quote}"'


def gather(notes: list[str], meetings: list[Meeting]) -> Evidence:
    """The chunks' notes for one question, their quotes checked: one found is numbered (once, however many
    chunks quote it), one found nowhere is taken out, a chunk that found nothing is left out."""
    evidence = Evidence()
    numbers: dict[Source, int] = {}

    def cite(source: Source, _local: int) -> str:
        if source not in numbers:
            numbers[source] = len(evidence.sources) + 1
            evidence.sources.append(source)
        return f'[{numbers[source]}] {_where(source, meetings)}: "{source.quote}"'

    for note in notes:
        if found_nothing(note):
            continue
        text = check(note, meetings, cite).text
        if text.strip():
            evidence.notes.append(text)
    return evidence


def assemble(answer: str, evidence: Evidence, meetings: list[Meeting]) -> Checked:
    """The reduce call's answer with its quotes: each number it cites replaced by that quote's citation (a quote
    the model wrote before the number gives way to the transcript's words), then checked as any answer is;
    an answer left with no quote gets the first :data:`MAX_APPENDED` of the readers' quotes after it."""

    def expand(match: re.Match[str]) -> str:
        cited = [int(n) for n in re.split(r"\s*[,;]\s*", match.group(2).strip())]
        found = [evidence.sources[n - 1] for n in cited if 1 <= n <= len(evidence.sources)]
        if not found:  # not one of ours: a quote with it is still checked as it stands
            return " ".join(quote for quote in match.group(1, 3) if quote)
        return " ".join(citation(source, meetings) for source in found)

    expanded = _REFERENCE.sub(expand, answer)
    checked = check(expanded, meetings)
    if checked.sources or not evidence.sources:
        return checked
    quoted = "\n".join(f"- {citation(source, meetings)}" for source in evidence.sources[:MAX_APPENDED])
    return check(f"{expanded.rstrip()}\n\n{APPENDED_HEADING}\n{quoted}", meetings)


def own_words(text: str) -> tuple[str, bool]:
    """An answer without the readers' quotes put after it, and whether there were any (the answer may be empty)."""
    parts = re.split(rf"(?:^|\n\n){re.escape(APPENDED_HEADING)}\n", text, maxsplit=1)
    return parts[0], len(parts) > 1


def _where(source: Source, meetings: list[Meeting]) -> str:
    """``M5 00:09 Sam``: the meeting's label in this question's prompts, the time and the speaker."""
    at = next(i for i, m in enumerate(meetings) if (m.name, m.session, m.source) ==
              (source.meeting, source.session, source.recording))
    return f"{label(at)} {stamp(source.start)} {source.speaker or 'unknown'}"
