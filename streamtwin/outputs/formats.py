"""Which output ``run`` and ``replay`` write, and the bus subscriber that writes it."""

from __future__ import annotations

from pathlib import Path
from typing import TextIO

from streamtwin.bus import Subscriber
from streamtwin.config import Config

OUTPUT_FORMATS = ("text", "jsonl", "srt", "vtt", "md")
FORMAT_BY_EXTENSION = {".txt": "text", ".jsonl": "jsonl", ".json": "jsonl", ".srt": "srt", ".vtt": "vtt", ".md": "md"}


def output_format(config: Config, stdout_is_terminal: bool) -> str:
    """``--format``, or for auto: the extension of ``--out``, else text on a terminal and jsonl in a pipe."""
    if config.format != "auto":
        return config.format
    if config.out:
        fmt = FORMAT_BY_EXTENSION.get(Path(config.out).suffix.lower())
        if fmt is None:
            raise ValueError(f"cannot tell the format from {config.out!r}: name it .srt, .vtt, .md or .jsonl, or give --format")
        return fmt
    return "text" if stdout_is_terminal else "jsonl"


def make_output(fmt: str, out: TextIO, err: TextIO, *, live: bool) -> Subscriber:
    """The bus subscriber that renders ``fmt`` to ``out``."""
    from streamtwin.outputs.notes import MarkdownOutput
    from streamtwin.outputs.text import JsonlOutput, TextOutput
    from streamtwin.outputs.subtitles import SubtitleOutput

    if fmt == "text":
        return TextOutput(out, err, live=live)
    if fmt == "jsonl":
        return JsonlOutput(out)
    if fmt == "md":
        return MarkdownOutput(out)
    return SubtitleOutput(out, fmt)
