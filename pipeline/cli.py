"""The ``streamtwin`` command line: ``run`` a source locally (``serve`` and ``stream`` join later)."""

from __future__ import annotations

import argparse
import asyncio
import logging
import signal
import sys
from typing import Any, Sequence

from .config import Config

log = logging.getLogger("streamtwin")

EXAMPLES = """\
examples:
  streamtwin run samples/meeting.wav                 transcript as fast as the CPU allows
  streamtwin run samples/meeting.mp4 --realtime      as if it were live: partials, then finals
  streamtwin run samples/meeting.wav --format jsonl  one JSON event per line on stdout
  ffmpeg -i talk.mp4 -f matroska - | streamtwin run -      a stream on stdin
  streamtwin run rtsp://camera.local/stream          a live camera (paced by the network)

Every flag also reads STREAMTWIN_<NAME> from the environment (e.g. STREAMTWIN_ASR_MODEL).
"""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="streamtwin",
        description="Real-time multimodal pipeline: live transcript, LLM commentary and a digital twin of a stream.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=EXAMPLES,
    )
    parser.add_argument("-v", "--verbose", action="count", default=0, help="more logging on stderr (-vv: debug)")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    run = commands.add_parser(
        "run",
        help="process a file, URL or stdin and print events",
        description="Transcribe (and later watch and summarise) one media source; events go to stdout.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=EXAMPLES,
    )
    run.add_argument("source", help="media file, http(s)/rtsp URL, or - for a stream on stdin")
    pacing = run.add_mutually_exclusive_group()
    pacing.add_argument(
        "--realtime", dest="realtime", action="store_true", default=None,
        help="feed media at wall-clock speed, as a live stream arrives (default for URLs and stdin)",
    )
    pacing.add_argument(
        "--fast", dest="realtime", action="store_false",
        help="process as fast as the machine allows (default for files)",
    )
    run.add_argument(
        "--format", choices=["auto", "text", "jsonl"], default=None,
        help="text: readable live view (default on a terminal); jsonl: one event per line (default when piped)",
    )
    _add_speech_flags(run)
    return parser


def _add_speech_flags(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("speech")
    group.add_argument(
        "--asr-model", default=None, metavar="NAME|DIR",
        help="faster-whisper model: 'embedded' (tiny.en shipped on PyPI, default), a directory, or a model name",
    )
    group.add_argument("--asr-threads", type=int, default=None, metavar="N", help="CPU threads for Whisper (default: all cores)")
    group.add_argument("--asr-language", default=None, metavar="LANG", help="spoken language (default: en)")
    group.add_argument(
        "--vad-min-silence-ms", type=int, default=None, metavar="MS",
        help="silence that ends an utterance and flushes it as final (default: 400)",
    )


def config_from_args(args: argparse.Namespace) -> Config:
    names = {name: value for name, value in vars(args).items() if value is not None}
    return Config.from_sources(names)


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    level = [logging.WARNING, logging.INFO, logging.DEBUG][min(args.verbose, 2)]
    logging.basicConfig(level=level, format="%(asctime)s %(levelname)s %(name)s: %(message)s", stream=sys.stderr)
    config = config_from_args(args)
    if args.command == "run":
        return _run_command(config, args)
    raise AssertionError(args.command)


def _run_command(config: Config, args: argparse.Namespace) -> int:
    try:
        return asyncio.run(_run(config, args.source))
    except KeyboardInterrupt:
        return 130


async def _run(config: Config, source: str) -> int:
    from .ingest import IngestError, MediaReader, is_live_spec
    from .outputs import JsonlOutput, TextOutput
    from .session import Session, run_reader
    from .speech import ModelLoadError

    realtime = config.realtime if config.realtime is not None else is_live_spec(source)
    fmt = config.format if config.format != "auto" else ("text" if sys.stdout.isatty() else "jsonl")
    try:
        reader = MediaReader(source, realtime=realtime, video=False)
        session = Session(config, source=source, realtime=realtime)
    except (IngestError, ModelLoadError) as exc:
        return _fail(str(exc))

    output: Any = JsonlOutput(sys.stdout) if fmt == "jsonl" else TextOutput(sys.stdout, sys.stderr, live=sys.stdout.isatty())
    session.bus.subscribe(output)
    fatal: list[str] = []
    session.bus.subscribe(lambda e: fatal.append(e.message) if e.type == "error" and getattr(e, "fatal", False) else None)

    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, reader.close)  # stop reading; what was heard is still flushed
    await run_reader(session, reader)
    if fatal:
        return _fail(fatal[0], print_line=fmt == "jsonl")
    return 0


def _fail(message: str, *, print_line: bool = True) -> int:
    if print_line:
        print(f"streamtwin: error: {message}", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
