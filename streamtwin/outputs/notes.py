"""Meeting notes in Markdown: the final digital twin as notes, then the transcript, a paragraph per utterance.

A bus subscriber that follows the twin (``twin.state`` then ``twin.patch``es) and
groups finals into utterances with the same
:class:`~streamtwin.utterances.UtteranceGrouper` the terminal view uses;
it writes the document once, when the session ends, because the notes are only
final then.  ``streamtwin/web/exports.js`` renders the same document in the page (a test
holds the two to the same output).
"""

from __future__ import annotations

import logging
import re
from dataclasses import replace
from typing import Any, TextIO

from streamtwin.events import Event, SessionEnded, TranscriptFinal, TranscriptRevised, TwinPatch, TwinState
from streamtwin.outputs.text import clock
from streamtwin.twin.mirror import TwinMirror
from streamtwin.utterances import Utterance, UtteranceGrouper

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


def render_notes(paragraphs: list[Utterance], twin: dict[str, Any] | None) -> str:
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
        self._grouper = UtteranceGrouper()
        self._paragraphs: list[Utterance] = []
        self._numbered: dict[int, int] = {}  # an utterance's number -> its paragraph (for its revision)
        self._twin = TwinMirror()

    def __call__(self, event: Event) -> None:
        if isinstance(event, TranscriptFinal):
            done = self._grouper.add(
                event.text, event.start, event.end, event.utterance, event.utterance_end,
                event.speaker_name or event.speaker,
            )
            self._paragraphs += done
            if event.utterance_end and done:
                self._numbered[event.utterance] = len(self._paragraphs) - 1
        elif isinstance(event, TranscriptRevised) and event.utterance in self._numbered:
            index = self._numbered.pop(event.utterance)
            self._paragraphs[index] = replace(self._paragraphs[index], text=event.text)
        elif isinstance(event, (TwinState, TwinPatch)):
            self._twin.apply(event)
        elif isinstance(event, SessionEnded):
            self._paragraphs += self._grouper.flush()
            self._out.write(render_notes(self._paragraphs, self._twin.state))
            self._out.flush()
