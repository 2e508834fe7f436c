"""``streamtwin replay``: a recorded session's events again, at the pace they were emitted.

Events are re-emitted to the same outputs ``run`` has, each when its ``wall`` time comes round again
(divided by ``speed``; 0: all at once).  Reading recordings is streamtwin/eventlog/recording.py;
``streamtwin serve --replay SOURCE`` re-emits them into the server's event log instead.
"""

from __future__ import annotations

import argparse
import asyncio
import sys

from streamtwin.config import Config
from streamtwin.eventlog.recording import ReplayError, replay
from streamtwin.outputs.formats import OUTPUT_FORMATS, make_output, output_format

REPLAY_EXAMPLES = """\
examples:
  streamtwin run meeting.wav --record meeting.jsonl   record a session's event log first
  streamtwin replay meeting.jsonl                     then watch it again, at the pace it happened
  streamtwin replay meeting.jsonl --speed 10          ten times as fast
  streamtwin replay meeting.jsonl --speed 0 --format jsonl > copy.jsonl   all at once, byte for byte
  streamtwin replay meeting.jsonl --format srt > meeting.srt              subtitles from a recording
  streamtwin replay redis://127.0.0.1:6379/0/SESSION  a session from a server's Redis event log
                                                      (followed to its end if it is still live)

A recording is any JSONL event log: `run --record FILE`, `run --format jsonl`, or the page's *Events .jsonl*.
"""


def add_replay_parser(commands: argparse._SubParsersAction) -> None:
    replay = commands.add_parser(
        "replay",
        help="re-emit a recorded session (JSONL file or Redis event log) at its original pace",
        description="Re-emit the events of a recorded session to stdout, each when its time comes round again\n"
        "(its `wall` time), through the same outputs as run: the live text view, jsonl, srt, vtt or md.\n"
        "A file that is not an event log, a bad URL or a Redis that does not answer: one line, exit status 1.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=REPLAY_EXAMPLES,
    )
    replay.add_argument(
        "source", metavar="SOURCE",
        help="a JSONL event log (streamtwin run --record FILE.jsonl), or redis://HOST:PORT/DB/SESSION",
    )
    replay.add_argument(
        "--speed", dest="replay_speed", type=non_negative_number, default=None, metavar="N",
        help="N times the recorded pace (default 1: as it happened; 0: everything at once)",
    )
    replay.add_argument(
        "--max-gap-s", dest="replay_max_gap_s", type=non_negative_number, default=None, metavar="S",
        help="wait at most S seconds between two events, whatever the recording says (default 10)",
    )
    replay.add_argument(
        "--format", choices=["auto", *OUTPUT_FORMATS], default=None,
        help="as for run: text on a terminal, jsonl when piped (the recorded lines again)",
    )


def non_negative_number(value: str) -> float:
    """A pace or a time: a number, 0 or more (and finite)."""
    try:
        speed = float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {value}") from None
    if not 0 <= speed < float("inf"):
        raise argparse.ArgumentTypeError(f"must be 0 or more, not {value}")
    return speed


def replay_command(config: Config, source: str) -> int:
    """``streamtwin replay``: 0, or 1 after one line on stderr."""
    terminal = sys.stdout.isatty()
    try:
        output = make_output(output_format(config, terminal), sys.stdout, sys.stderr, live=terminal)
        asyncio.run(replay(config, source, output))
    except (ReplayError, ValueError) as exc:
        print(f"streamtwin: error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    return 0
