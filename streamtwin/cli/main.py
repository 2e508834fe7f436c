"""The ``streamtwin`` command line: ``run`` a source locally (``serve`` and ``stream`` join later)."""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import signal
import sys
from contextlib import ExitStack
from typing import Any, Mapping, Sequence

from streamtwin.cli.flags import add_llm_flags, add_speech_flags, csv_list
from streamtwin.cli.hooks import add_webhook_flags, subscribe_webhooks, with_webhooks_of
from streamtwin.cli.subcommands import add_parsers, run_subcommand
from streamtwin.config import Config
from streamtwin.events import Error
from streamtwin.outputs.formats import OUTPUT_FORMATS, make_output, output_format
from streamtwin.service.native_memory import use_allocator

log = logging.getLogger("streamtwin")


EXAMPLES = """\
examples:
  streamtwin run samples/meeting.wav                 transcript as fast as the CPU allows
  streamtwin run samples/meeting.mp4 --realtime      as if it were live: partials, then finals
  streamtwin run samples/meeting.wav --format jsonl  one JSON event per line on stdout
  streamtwin run talk.mp4 --out talk.srt            subtitles (also .vtt); the format follows the name
  streamtwin run meeting.wav --out notes.md         meeting notes and the transcript in Markdown
  ffmpeg -i talk.mp4 -f matroska - | streamtwin run -      a stream on stdin
  streamtwin run rtsp://camera.local/stream          a live camera (paced by the network)
  streamtwin run meeting.wav --record meeting.jsonl  also keep the event log: streamtwin replay meeting.jsonl
  streamtwin serve --replay meeting.jsonl            ...or watch it on the page as if it were live

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
        "--format", choices=["auto", *OUTPUT_FORMATS], default=None,
        help="text: readable live view (default on a terminal); jsonl: one event per line (default when piped); "
        "srt, vtt: subtitles from the final transcript (cues of at most 2 lines and ~7 s, written as they "
        "close); md: meeting notes from the digital twin, then the transcript a paragraph per utterance "
        "(written when the source ends). auto with --out: from the file name's extension",
    )
    run.add_argument(
        "--out", default=None, metavar="FILE",
        help="write the output to FILE instead of stdout; on a terminal the live text view still shows progress",
    )
    run.add_argument(
        "--language-hint", default=None, metavar="LANG",
        help="with --language auto: the language SOURCE most likely speaks (en, de-AT, ...); a detection of it at "
        "least 0.6 sure settles after 1 s of speech instead of 3, so the first words come sooner, and another "
        "language is still detected (default: this system's locale, as `stream` sends it; '' for none)",
    )
    run.add_argument(
        "--record", default=None, metavar="FILE.jsonl",
        help="also write the session's event log to FILE.jsonl (every event, one per line), for streamtwin replay",
    )
    add_speech_flags(run)
    add_llm_flags(run)
    add_webhook_flags(run, csv_list)

    from streamtwin.cli.replay import add_replay_parser, non_negative_number

    add_replay_parser(commands)
    add_parsers(commands, add_llm_flags, csv_list)

    from streamtwin.cli.voices import add_voices_parser

    add_voices_parser(commands, add_speech_flags, csv_list)

    serve = commands.add_parser(
        "serve",
        help="run the live service: WebRTC in, websocket events out, the browser view",
        description="Serve the page at http://HOST:PORT, /healthz, /metrics and the websocket endpoint /ws.",
    )
    serve.add_argument("--host", default=None, help="address to listen on (default: 127.0.0.1)")
    serve.add_argument("--port", type=int, default=None, help="port (default: 8080)")
    serve.add_argument(
        "--token", default=None,
        help="access token required on /ws (env STREAMTWIN_TOKEN); required unless --host is a loopback address",
    )
    serve.add_argument(
        "--allow-origin", dest="allow_origin", type=csv_list, default=None, metavar="ORIGIN,...",
        help="browser origins allowed to open /ws besides this server's own pages (default: none; * for any)",
    )
    serve.add_argument(
        "--allow-host", dest="allow_host", type=csv_list, default=None, metavar="NAME,...",
        help="host names this server answers to besides IP addresses and localhost (DNS rebinding guard)",
    )
    serve.add_argument(
        "--allow-embed", dest="allow_embed", type=csv_list, default=None, metavar="ORIGIN,...",
        help="origins whose pages may show the page in a frame (Content-Security-Policy frame-ancestors; "
        "default: none, the page refuses to be framed; * for any)",
    )
    serve.add_argument(
        "--trusted-proxy", dest="trusted_proxy", type=csv_list, action="extend", default=None, metavar="CIDR",
        help="a reverse proxy in front (an address or CIDR block; repeatable): from it, and only from it, the client "
        "address is read from Forwarded or X-Forwarded-For (the right-most hop not a trusted proxy), for the "
        "per-address caps, the wrong-token lockout and the logs (default: none, every peer is the client)",
    )
    serve.add_argument(
        "--ice-servers", type=csv_list, default=None, metavar="URL,...",
        help="STUN/TURN servers for WebRTC (default: none, fine on a LAN or loopback)",
    )
    serve.add_argument(
        "--turn-secret", default=None, metavar="SECRET",
        help="secret shared with the TURN server (coturn use-auth-secret): publishers get 1-hour credentials",
    )
    serve.add_argument(
        "--max-sessions", type=int, default=None, metavar="N",
        help="concurrent sessions (default: 2); a room is one session, however many take part",
    )
    serve.add_argument(
        "--max-participants", type=int, default=None, metavar="N",
        help="publishers in one room (default: 8); each joins while --max-speech-load says speech keeps up",
    )
    serve.add_argument(
        "--max-speech-load", type=float, default=None, metavar="SHARE",
        help="refuse a new session (busy) when the speech engine's recent peak, shared by one more session, would "
        "pass this share of its workers: it would fall behind real time (default: 0.85; 0: off)",
    )
    serve.add_argument(
        "--max-viewers", type=int, default=None, metavar="N",
        help="viewers per session (default: 32); with --redis on all nodes together, as counted at their heartbeats",
    )
    serve.add_argument(
        "--resume-grace-s", type=float, default=None, metavar="S",
        help="how long a disconnected publisher may resume its session (default: 15)",
    )
    serve.add_argument(
        "--redis", default=None, metavar="URL",
        help="redis://[:PASSWORD@]HOST:PORT/DB: event logs and the session directory in Redis, shared by every "
        "node (viewers on any node, resume, failover); default: in memory, this process only",
    )
    serve.add_argument(
        "--replay", default=None, metavar="SOURCE",
        help="also serve a recording (streamtwin run --record FILE.jsonl, or redis://HOST:PORT/DB/SESSION) as a "
        "live session, at its recorded pace: its viewer link is printed at start",
    )
    serve.add_argument(
        "--replay-speed", dest="replay_speed", type=non_negative_number, default=None, metavar="N",
        help="with --replay: N times the recorded pace (default 1; 0: all at once)",
    )
    serve.add_argument(
        "--replay-max-gap-s", dest="replay_max_gap_s", type=non_negative_number, default=None, metavar="S",
        help="with --replay: wait at most S seconds between two events, whatever the recording says (default 10)",
    )
    add_speech_flags(serve)
    add_llm_flags(serve)
    add_webhook_flags(serve, csv_list)

    stream = commands.add_parser(
        "stream",
        help="publish a file, URL, RTSP stream or camera to a running server over WebRTC",
        description="Publish SOURCE to a streamtwin server and print the session's events like `run` does.",
    )
    stream.add_argument("source", help="media file, URL, rtsp:// stream, or a camera device such as /dev/video0")
    stream.add_argument("--to", required=True, metavar="URL", help="server, e.g. ws://127.0.0.1:8080")
    stream.add_argument("--token", default=None, help="access token, if the server requires one")
    stream.add_argument("--format", choices=["auto", "text", "jsonl"], default=None, help="as for run")
    stream.add_argument(
        "--name", default="", help="your name: starts a room others may join, or the name you join one with"
    )
    stream.add_argument("--session", default="", metavar="ID", help="join this room (with --name and --join-token)")
    stream.add_argument(
        "--join-token", default=os.environ.get("STREAMTWIN_JOIN_TOKEN", ""), metavar="TOKEN",
        help="the room's join token (printed for, and sent to, its first publisher; env STREAMTWIN_JOIN_TOKEN)",
    )
    stream.add_argument(
        "--language-hint", default=None, metavar="LANG",
        help="the language SOURCE speaks (en, de-AT, ...): a hint to the server's speech language detection, which "
        "a confident detection overrides (default: this system's locale; '' sends none)",
    )
    stream.add_argument(
        "--ask", action="store_true",
        help="each line on standard input is a question typed to the assistant, asked once media flows, the next "
        "after the previous one's answer (e.g. `echo 'What was decided?' | streamtwin stream talk.mp4 --to ... --ask`)",
    )
    return parser


def config_from_args(args: argparse.Namespace, env: Mapping[str, str] | None = None) -> Config:
    env = os.environ if env is None else env
    names = {name: value for name, value in vars(args).items() if value is not None}
    if args.command == "run" and args.language_hint is None and "STREAMTWIN_LANGUAGE_HINT" not in env:
        from streamtwin.cli.stream import system_language

        names["language_hint"] = system_language(env)  # a file is most likely in the language of its machine
    return Config.from_sources(names, env)


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    level = [logging.WARNING, logging.INFO, logging.DEBUG][min(args.verbose, 2)]
    logging.basicConfig(level=level, format="%(asctime)s %(levelname)s %(name)s: %(message)s", stream=sys.stderr)
    # The one-time join of the default LLM takes seconds: show its progress even when quiet.
    logging.getLogger("streamtwin.llm.gguf_models").setLevel(min(level, logging.INFO))
    config = config_from_args(args)
    if args.command in ("run", "serve"):  # the long-lived ones, before their threads and their input
        try:
            use_allocator(config.allocator, rerun=argv is None)
        except ValueError as exc:
            return _fail(str(exc))
    if args.command == "run":
        return _run_command(config, args)
    if args.command == "voices":
        from streamtwin.cli.voices import voices_command

        return voices_command(config, args)
    code = run_subcommand(args.command, config, args)
    if code is not None:
        return code
    if args.command == "replay":
        from streamtwin.cli.replay import replay_command

        return replay_command(config, args.source)
    if args.command == "serve":
        from streamtwin.cli.serve import serve

        try:
            return asyncio.run(serve(config))
        except KeyboardInterrupt:  # Ctrl-C while the models load, before the signal handlers are in place
            return 130
    if args.command == "stream":
        from streamtwin.cli.stream import stream, system_language

        if args.session and not args.name:
            print("streamtwin: error: joining a room (--session) needs --name", file=sys.stderr)
            return 2
        return asyncio.run(
            stream(config, args.source, args.to, name=args.name, session=args.session, join_token=args.join_token,
                   ask=args.ask, language=system_language() if args.language_hint is None else args.language_hint)
        )
    raise AssertionError(args.command)


def _run_command(config: Config, args: argparse.Namespace) -> int:
    try:
        code = asyncio.run(with_webhooks_of(config, lambda webhooks: _run(config, args.source, webhooks)))
    except KeyboardInterrupt:
        return 130
    if code > 128:
        _exit_at_once(code)
    return code


def _exit_at_once(code: int) -> None:
    """Stopped by a signal, with session.ended written: leave without the interpreter's teardown.

    Freeing the loaded models (CTranslate2, ONNX Runtime) in C took 2-2.7 s after ``main`` returned
    on a busy 2-core machine (measured by bench/ctrl_c.py), longer than the 1 s a person waits after
    Ctrl-C.  Nothing is left to do: the output files are closed, so flush what is buffered and go."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe: nobody is reading any more
            pass
    logging.shutdown()
    os._exit(code)


async def _run(config: Config, source: str, webhooks: Any) -> int:
    from streamtwin.api import build_session, close_backend
    from streamtwin.speech.asr_models import ModelLoadError
    from streamtwin.media.ingest import IngestError, MediaReader, is_live_spec
    from streamtwin.llm.backend import LLMError
    from streamtwin.media.redact import redact
    from streamtwin.session import run_reader

    realtime = config.realtime if config.realtime is not None else is_live_spec(source)
    terminal = sys.stdout.isatty()
    with ExitStack() as files:
        try:
            fmt = output_format(config, terminal)
            if config.voices:  # a bad profile folder fails before the models load
                from streamtwin.speakers.profiles import load_profiles

                load_profiles(config.voices)
            reader = MediaReader(source, realtime=realtime, video=config.vision)
            files.callback(reader.close)
            session = await build_session(config, source=redact(source), realtime=realtime)
        except (IngestError, ModelLoadError, LLMError, ValueError) as exc:
            return _fail(str(exc))
        try:  # only once the source opened and the models loaded, so a failed run leaves no empty file
            out = files.enter_context(open(config.out, "w", encoding="utf-8")) if config.out else sys.stdout
        except OSError as exc:
            return _fail(f"cannot write {config.out}: {exc.strerror or exc}")

        if config.record:
            try:
                record = files.enter_context(open(config.record, "w", encoding="utf-8"))
            except OSError as exc:
                return _fail(f"cannot write {config.record}: {exc.strerror or exc}")
            session.bus.subscribe(make_output("jsonl", record, sys.stderr, live=False))
        session.bus.subscribe(make_output(fmt, out, sys.stderr, live=terminal and out is sys.stdout))
        subscribe_webhooks(session.bus, webhooks)
        # Writing to a file, a person at the terminal still sees the transcript come in.
        text_view = fmt == "text" or bool(config.out and terminal)
        if config.out and terminal:
            session.bus.subscribe(make_output("text", sys.stdout, sys.stderr, live=True))
        fatal: list[str] = []
        session.bus.subscribe(lambda e: fatal.append(e.message) if isinstance(e, Error) and e.fatal else None)

        loop = asyncio.get_running_loop()
        caught: list[int] = []

        def interrupt(sig: int) -> None:
            """First signal: stop reading, flush what was heard, end.  A second one: the default (exit now)."""
            caught.append(sig)
            for each in (signal.SIGINT, signal.SIGTERM):
                loop.remove_signal_handler(each)
            reader.interrupt()

        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, interrupt, sig)
        try:
            await run_reader(session, reader)
        finally:
            await close_backend(session)
    if fatal:
        return _fail(fatal[0], print_line=not text_view)
    return 128 + caught[0] if caught else 0


def _fail(message: str, *, print_line: bool = True) -> int:
    if print_line:
        print(f"streamtwin: error: {message}", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
