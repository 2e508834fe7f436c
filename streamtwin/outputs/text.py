"""Terminal outputs: bus subscribers that render events as JSONL or as live text.

JSONL writes exactly one event per line to stdout and nothing else, so it can be
piped into other tools; logs and progress go to stderr.  The text renderer keeps
one live line at the bottom (the utterance being spoken, its tentative tail in
grey, or the streaming answer) and prints committed text above it, a paragraph
per utterance.  Subtitles and Markdown notes are in subtitles.py and notes.py.
"""

from __future__ import annotations

import shutil
from typing import TextIO

from streamtwin.events import (
    AssistantDelta,
    AssistantDone,
    AssistantStarted,
    AssistantSwitched,
    Error,
    Event,
    Notice,
    ParticipantJoined,
    ParticipantLeft,
    Progress,
    SessionEnded,
    TranscriptFinal,
    TranscriptPartial,
    TranscriptRevised,
    TwinPatch,
    TwinState,
    VisionObservation,
)
from streamtwin.utterances import Utterance, UtteranceGrouper

DIM, PLAIN = "\033[2m", "\033[0m"


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

    Committed fragments of one utterance become one paragraph with its time stamp,
    printed when the utterance ends; until then the live line shows it growing,
    the tentative tail after it in grey.
    """

    def __init__(self, out: TextIO, err: TextIO, *, live: bool):
        self._out = out
        self._err = err
        self._live = live
        self._line = ("", "")  # what the live line shows now: text and its grey tail
        self._answers: dict[int, str] = {}
        self._utterances = UtteranceGrouper()

    def __call__(self, event: Event) -> None:
        if isinstance(event, TranscriptFinal):
            done = self._utterances.add(
                event.text, event.start, event.end, event.utterance, event.utterance_end,
                event.speaker_name or event.speaker,
            )
            self._print_paragraphs(done)
            self._show_speaking("")
        elif isinstance(event, TranscriptPartial):
            self._print_paragraphs(self._utterances.on_speech(event.start))
            self._show_speaking(event.text)
        elif isinstance(event, TranscriptRevised):
            who = event.speaker_name or event.speaker
            self._print(f"[{clock(event.start)}] {who + ': ' if who else ''}{event.text}  (revised)")
        elif isinstance(event, AssistantStarted):
            self._answers[event.generation] = ""
        elif isinstance(event, AssistantSwitched):
            if event.restart:  # the answer starts again on the backend that took over
                self._answers[event.generation] = ""
            self._show("")
            self._err.write(f"note: {event.backend} took the answer over ({event.reason})\n")
            self._err.flush()
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
        elif isinstance(event, (ParticipantJoined, ParticipantLeft)):
            verb = "joined" if isinstance(event, ParticipantJoined) else "left"
            self._print(f"  [{clock(event.media_time or 0)}] {event.name} {verb} the room")
        elif isinstance(event, Notice):
            self._print(f"  [{clock(event.media_time or 0)}] {event.message}")
        elif isinstance(event, Progress) and self._live and event.duration:
            pct = min(100.0, 100.0 * event.position / event.duration)
            self._err.write(f"\r\033[K{pct:5.1f}% of {clock(event.duration)}")
            self._err.flush()
        elif isinstance(event, Error):
            self._show("")
            self._err.write(f"{'error' if event.fatal else 'warning'}: {event.message}\n")
            self._err.flush()
        elif isinstance(event, SessionEnded):
            self._print_paragraphs(self._utterances.flush())
            self._show("")
            if self._live:
                self._err.write("\r\033[K")
            stats = event.stats
            self._err.write(
                f"done: {stats.get('audio_s', 0):.1f} s of audio, "
                f"{stats.get('processing_s', 0):.1f} s of speech decoding (rtf {stats.get('rtf')})\n"
            )
            self._err.flush()

    def _print_paragraphs(self, utterances: list[Utterance]) -> None:
        for utterance in utterances:
            who = f"{utterance.speaker}: " if utterance.speaker else ""
            self._print(f"[{clock(utterance.start)}] {who}{utterance.text}")

    def _show_speaking(self, tentative: str) -> None:
        """The open utterance so far, and the tentative tail after it in grey."""
        committed = self._utterances.pending_text
        tentative = " ".join(tentative.split())
        if not committed and not tentative:
            self._show("")
            return
        self._show(f"  … {committed}", f" {tentative}" if committed and tentative else tentative)

    def _print(self, text: str) -> None:
        line = self._line
        self._show("")
        self._out.write(text + "\n")
        self._show(*line)

    def _show(self, text: str, dim_tail: str = "") -> None:
        """Replace the live line with ``text`` and a grey ``dim_tail``, cut from the left to the terminal's width."""
        if not self._live:
            return
        width = shutil.get_terminal_size((100, 20)).columns - 1
        whole = text + dim_tail
        if len(whole) > width:
            cut = len(whole) - width
            text, dim_tail = text[cut:], dim_tail[max(0, cut - len(text)) :]
        self._out.write("\r\033[K" + text + (f"{DIM}{dim_tail}{PLAIN}" if dim_tail else ""))
        self._out.flush()
        self._line = (text, dim_tail)


def describe_twin_change(event: TwinState | TwinPatch) -> str:
    if isinstance(event, TwinState):
        summary = str(event.state.get("summary", "")).strip()
        return summary[:120] or "(empty)"
    paths = sorted({op.get("path", "").split("/")[1] for op in event.patch if op.get("path")})
    return "changed " + ", ".join(paths) if paths else "no change"
