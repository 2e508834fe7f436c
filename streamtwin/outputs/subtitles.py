"""Subtitle outputs: transcript finals as SRT or WebVTT, written cue by cue as speech is committed.

A bus subscriber like the terminal outputs; the cue layout (two lines, ~7 s) is
the pure :class:`~streamtwin.outputs.cues.CueBuilder`.  Only finals become cues: a
partial may still change, and a subtitle file is never rewritten.
"""

from __future__ import annotations

import math
from typing import TextIO

from streamtwin.events import Event, SessionEnded, TranscriptFinal
from streamtwin.outputs.cues import Cue, CueBuilder, timed_words

SUBTITLE_FORMATS = ("srt", "vtt")


def timestamp(seconds: float, decimal_mark: str) -> str:
    """``HH:MM:SS,mmm`` (SRT) or ``HH:MM:SS.mmm`` (WebVTT), rounded to the millisecond."""
    millis = max(0, math.floor(seconds * 1000 + 0.5))
    hours, millis = divmod(millis, 3_600_000)
    minutes, millis = divmod(millis, 60_000)
    secs, millis = divmod(millis, 1000)
    return f"{hours:02d}:{minutes:02d}:{secs:02d}{decimal_mark}{millis:03d}"


def format_cue(cue: Cue, index: int, fmt: str) -> str:
    """One cue block, blank line included; SRT numbers its cues from 1, WebVTT needs no number."""
    mark = "," if fmt == "srt" else "."
    timing = f"{timestamp(cue.start, mark)} --> {timestamp(cue.end, mark)}"
    head = f"{index}\n{timing}" if fmt == "srt" else timing
    return head + "\n" + "\n".join(cue.lines) + "\n\n"


class SubtitleOutput:
    """Writes ``srt`` or ``vtt`` to ``out``; each cue as soon as the next one begins (or the source ends)."""

    def __init__(self, out: TextIO, fmt: str, builder: CueBuilder | None = None):
        if fmt not in SUBTITLE_FORMATS:
            raise ValueError(f"unknown subtitle format {fmt!r}")
        self._out = out
        self._fmt = fmt
        self._builder = builder or CueBuilder()
        self._count = 0
        if fmt == "vtt":
            self._out.write("WEBVTT\n\n")
            self._out.flush()

    def __call__(self, event: Event) -> None:
        if isinstance(event, TranscriptFinal):
            words = timed_words(event.text, event.start, event.end, event.words)
            self._write(self._builder.add(words, utterance_end=event.utterance_end))
        elif isinstance(event, SessionEnded):
            self._write(self._builder.flush())

    def _write(self, cues: list[Cue]) -> None:
        for cue in cues:
            self._count += 1
            self._out.write(format_cue(cue, self._count, self._fmt))
        if cues:
            self._out.flush()
