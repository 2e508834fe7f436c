"""Meeting notes in Markdown: the final digital twin as notes, then the transcript, a paragraph per utterance.

A bus subscriber that folds the session as a past meeting is read
(:class:`~streamtwin.meetings.transcript.MeetingFold`: finals grouped into utterances with the
:class:`~streamtwin.utterances.UtteranceGrouper` the terminal view uses, each with its revision, and the twin
as a viewer sees it); it writes the document once, when the session ends, because the notes are only
final then.  ``streamtwin/web/exports.js`` renders the same document in the page (a test
holds the two to the same output).
"""

from __future__ import annotations

import logging
import re
from typing import Any, TextIO

from streamtwin.events import Event, SessionEnded
from streamtwin.meetings.transcript import Line, MeetingFold
from streamtwin.outputs.text import clock

log = logging.getLogger(__name__)

_MARKDOWN_SPECIAL = re.compile(r"([\\`*_\[\]<>#])")


def escape(text: str) -> str:
    """Spoken text is never markup: characters Markdown would act on get a backslash."""
    return _MARKDOWN_SPECIAL.sub(r"\\\1", " ".join(str(text).split()))


def _bullets(items: list[str]) -> list[str]:
    return [f"- {escape(item)}" for item in items if str(item).strip()]


def _notes_sections(twin: dict[str, Any]) -> list[tuple[str, list[str]]]:
    actions = []
    for item in twin.get("action_items") or []:
        details = ", ".join(
            part for part in (str(item.get("owner") or ""), f"due {item['due']}" if item.get("due") else "") if part
        )
        actions.append(f"- [ ] {escape(item.get('text', ''))}" + (f" ({escape(details)})" if details else ""))
    people = [
        f"- {escape(person.get('name', ''))}" + (f" ({escape(person['role'])})" if person.get("role") else "")
        for person in twin.get("people") or []
    ]
    summary = escape(twin.get("summary") or "")
    scene = escape((twin.get("scene") or {}).get("description") or "")
    return [
        ("Summary", [summary] if summary else []),
        ("Action items", actions),
        ("Decisions", _bullets(twin.get("decisions") or [])),
        ("Open questions", _bullets(twin.get("open_questions") or [])),
        ("People", people),
        ("Topics", _bullets(twin.get("topics") or [])),
        ("Scene", [scene] if scene else []),
    ]


def render_notes(paragraphs: list[Line], twin: dict[str, Any] | None) -> str:
    """The document: the twin's non-empty sections (none without a twin), then the transcript."""
    blocks = ["# Meeting notes"]
    for title, lines in _notes_sections(twin or {}):
        if lines:
            blocks += [f"## {title}", "\n".join(lines)]
    blocks.append("## Transcript")
    # Who said it (a room's participant, or a voice's label or name) leads the paragraph, in bold.
    blocks += [
        f"**{clock(p.start)}** " + (f"**{escape(p.speaker)}:** " if p.speaker else "") + escape(p.text)
        for p in paragraphs if p.text
    ]
    return "\n\n".join(blocks) + "\n"


class MarkdownOutput:
    """Writes :func:`render_notes` to ``out`` when the session ends."""

    def __init__(self, out: TextIO):
        self._out = out
        self._meeting = MeetingFold("", "")

    def __call__(self, event: Event) -> None:
        self._meeting.add(event)
        if isinstance(event, SessionEnded):
            meeting = self._meeting.meeting()
            self._out.write(render_notes(meeting.lines, meeting.twin))
            self._out.flush()
