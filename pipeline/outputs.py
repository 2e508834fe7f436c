"""Terminal outputs: bus subscribers that render events as JSONL or as live text.

JSONL writes exactly one event per line to stdout and nothing else, so it can be
piped into other tools; logs and progress go to stderr.  The text renderer keeps
one live line at the bottom (the tentative transcript or the streaming answer)
and prints committed text above it.
"""

from __future__ import annotations

import shutil
from typing import TextIO

from .events import (
    AssistantDelta,
    AssistantDone,
    AssistantStarted,
    Error,
    Event,
    Progress,
    SessionEnded,
    TranscriptFinal,
    TranscriptPartial,
    TwinPatch,
    TwinState,
    VisionObservation,
)


class JsonlOutput:
    def __init__(self, out: TextIO):
        self._out = out

    def __call__(self, event: Event) -> None:
        self._out.write(event.to_json() + "\n")
        self._out.flush()


def clock(seconds: float) -> str:
    minutes, secs = divmod(int(seconds), 60)
    return f"{minutes:02d}:{secs:02d}"


class TextOutput:
    """Human view; ``live`` (a terminal) enables the updating line and progress.

    Committed fragments of one utterance become one paragraph, printed when the
    utterance ends; until then the live line shows it growing, the tentative tail after it.
    """

    def __init__(self, out: TextIO, err: TextIO, *, live: bool):
        self._out = out
        self._err = err
        self._live = live
        self._line = ""  # what the live line shows now
        self._answers: dict[int, str] = {}
        self._paragraph: list[str] = []  # committed text of the utterance still being spoken
        self._paragraph_start = 0.0

    def __call__(self, event: Event) -> None:
        if isinstance(event, TranscriptFinal):
            if event.text and not self._paragraph:
                self._paragraph_start = event.start
            if event.text:
                self._paragraph.append(event.text)
            if event.utterance_end or not event.utterance:  # (producers without utterances: line by line)
                self._end_paragraph()
            else:
                self._show(f"  … {' '.join(self._paragraph)}")
        elif isinstance(event, TranscriptPartial):
            tentative = " ".join([*self._paragraph, event.text]).strip()
            self._show(f"  … {tentative}" if tentative else "")
        elif isinstance(event, AssistantStarted):
            self._answers[event.generation] = ""
        elif isinstance(event, AssistantDelta):
            text = self._answers.get(event.generation, "") + event.text
            self._answers[event.generation] = text
            self._show(f"  assistant ▸ {text}")
        elif isinstance(event, AssistantDone):
            text = self._answers.pop(event.generation, "").strip()
            if text and not event.cancelled:
                self._print(f"  assistant ▸ {text}")
            else:
                self._show("")
        elif isinstance(event, (TwinState, TwinPatch)):
            self._print(f"  twin v{event.version}: {describe_twin_change(event)}")
        elif isinstance(event, VisionObservation):
            self._print(f"  [{clock(event.media_time or 0)}] seen: {event.kind} {event.note}".rstrip())
        elif isinstance(event, Progress) and self._live and event.duration:
            pct = min(100.0, 100.0 * event.position / event.duration)
            self._err.write(f"\r\033[K{pct:5.1f}% of {clock(event.duration)}")
            self._err.flush()
        elif isinstance(event, Error):
            self._show("")
            self._err.write(f"{'error' if event.fatal else 'warning'}: {event.message}\n")
            self._err.flush()
        elif isinstance(event, SessionEnded):
            self._end_paragraph()
            self._show("")
            if self._live:
                self._err.write("\r\033[K")
            stats = event.stats
            self._err.write(
                f"done: {stats.get('audio_s', 0):.1f} s of audio, "
                f"{stats.get('processing_s', 0):.1f} s of speech decoding (rtf {stats.get('rtf')})\n"
            )
            self._err.flush()

    def _end_paragraph(self) -> None:
        if self._paragraph:
            self._show("")
            self._print(f"[{clock(self._paragraph_start)}] {' '.join(self._paragraph)}")
            self._paragraph = []

    def _print(self, text: str) -> None:
        line = self._line
        self._show("")
        self._out.write(text + "\n")
        self._show(line)

    def _show(self, text: str) -> None:
        if not self._live:
            return
        width = shutil.get_terminal_size((100, 20)).columns - 1
        self._out.write("\r\033[K" + text[-width:] if len(text) > width else "\r\033[K" + text)
        self._out.flush()
        self._line = text


def describe_twin_change(event: TwinState | TwinPatch) -> str:
    if isinstance(event, TwinState):
        summary = str(event.state.get("summary", "")).strip()
        return summary[:120] or "(empty)"
    paths = sorted({op.get("path", "").split("/")[1] for op in event.patch if op.get("path")})
    return "changed " + ", ".join(paths) if paths else "no change"
