"""Meeting notes in Markdown: the final digital twin as notes, then the transcript, a paragraph per utterance.

A bus subscriber that folds the session as the page shows it at the end
(:class:`~streamtwin.outputs.shown.ShownTranscript`: finals grouped into utterances with the
:class:`~streamtwin.utterances.UtteranceGrouper` the terminal view uses, each with its revision, the voices
``speaker.turns`` moved and the names ``speaker.named`` gave; and the twin as a viewer sees it); it writes
the document once, when the session ends, because the notes are only final then.  ``streamtwin/web/exports.js`` renders the same document in the page (a test
holds the two to the same output).
"""

from __future__ import annotations

import logging
import re
from typing import Any, TextIO

from streamtwin.events import Event, SessionEnded, TwinPatch, TwinState
from streamtwin.meetings.transcript import Line
from streamtwin.outputs.shown import ShownParagraph, ShownTranscript
from streamtwin.outputs.text import clock
from streamtwin.twin.mirror import TwinMirror

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


def _transcript_paragraph(paragraph: Line | ShownParagraph) -> str:
    """Who said it (a room's participant, or a voice's label or name) leads the paragraph, in bold, and again
    wherever the voice changes inside it."""
    runs = paragraph.runs if isinstance(paragraph, ShownParagraph) else [(paragraph.speaker, paragraph.text)]
    said = " ".join((f"**{escape(who)}:** " if who else "") + escape(text) for who, text in runs)
    return f"**{clock(paragraph.start)}** {said}"


def render_notes(paragraphs: list[Line] | list[ShownParagraph], twin: dict[str, Any] | None) -> str:
    """The document: the twin's non-empty sections (none without a twin), then the transcript."""
    blocks = ["# Meeting notes"]
    for title, lines in _notes_sections(twin or {}):
        if lines:
            blocks += [f"## {title}", "\n".join(lines)]
    blocks.append("## Transcript")
    blocks += [_transcript_paragraph(p) for p in paragraphs if p.text]
    return "\n\n".join(blocks) + "\n"


class MarkdownOutput:
    """Writes :func:`render_notes` to ``out`` when the session ends."""

    def __init__(self, out: TextIO):
        self._out = out
        self._transcript = ShownTranscript()
        self._twin = TwinMirror()

    def __call__(self, event: Event) -> None:
        if isinstance(event, (TwinState, TwinPatch)):
            self._twin.apply(event)
        else:
            self._transcript.add(event)
        if isinstance(event, SessionEnded):
            self._out.write(render_notes(self._transcript.paragraphs(), self._twin.state))
            self._out.flush()
