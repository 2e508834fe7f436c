"""``streamtwin stream SOURCE --to ws://HOST:PORT``: publish media to a server, print the session's events.

The publishing is streamtwin/media/publisher.py; this command prints what comes back like ``run`` does.
When the source ends the session is asked to end, and the command exits once ``session.ended`` arrives.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from collections.abc import AsyncIterator, Callable
from typing import Any, Mapping

from streamtwin.config import Config
from streamtwin.events import Error, Event
from streamtwin.media.publisher import Publication, PublishError, open_player, ws_url
from streamtwin.media.redact import redact
from streamtwin.outputs.text import JsonlOutput, TextOutput


def system_language(env: Mapping[str, str] | None = None) -> str:
    """This system's language as its locale variables say it ("de_AT.UTF-8" -> "de_AT"), as a browser sends
    ``navigator.language``; "" for the C/POSIX locale or none."""
    env = os.environ if env is None else env
    for variable in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = env.get(variable, "").split(".")[0].split("@")[0]
        if value:
            return "" if value in ("C", "POSIX") else value
    return ""


async def stdin_lines() -> AsyncIterator[str]:
    """The lines typed or piped on standard input, read without blocking the event loop, until end of file."""
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    try:
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    except ValueError:  # a regular file, not a pipe or a terminal: it is all there already
        for line in sys.stdin.read().splitlines():
            yield line
        return
    while True:
        try:
            line = await reader.readline()
        except ValueError:  # a line past the reader's 64 kB limit: no question is that long
            sys.stderr.write("streamtwin: a line of over 64 kB on stdin; no more questions are read\n")
            return
        if not line:
            return
        yield line.decode(errors="replace")


async def stream(
    config: Config, source: str, url: str, *, name: str = "", session: str = "", join_token: str = "",
    ask: bool = False, language: str = "",
) -> int:
    """``streamtwin stream``: 0 once the session ended cleanly, 1 with one line on stderr otherwise.
    ``ask``: each line on standard input is a question typed to the assistant; ``language``: the hello's hint."""
    if ask and source == "-":
        sys.stderr.write("streamtwin: error: with --ask, standard input holds the questions: the source cannot be -\n")
        return 1
    fmt = config.format if config.format != "auto" else ("text" if sys.stdout.isatty() else "jsonl")
    output: Callable[[Event], None] = (
        JsonlOutput(sys.stdout) if fmt == "jsonl" else TextOutput(sys.stdout, sys.stderr, live=sys.stdout.isatty())
    )
    fatal: list[str] = []

    def on_event(event: Event) -> None:
        if isinstance(event, Error) and event.fatal:
            fatal.append(event.message)
        output(event)

    def on_message(message: dict[str, Any]) -> None:
        if message.get("type") in ("error", "notice"):
            sys.stderr.write(f"streamtwin: server {message['type']}: {message.get('message')}\n")
        elif message.get("type") == "welcome" and message.get("join_token") and not session:
            sys.stderr.write(  # how others join this room (a secret of this session only)
                f"streamtwin: room {message['session']}: others join with --session {message['session']} "
                f"--name NAME --join-token {message['join_token']} (page: {message.get('join_url', '')})\n"
            )

    player = None
    try:
        target = ws_url(url, config.token)
        player = open_player(source)
        publication = Publication(
            target, player.audio, player.video, on_event=on_event, on_message=on_message, label=redact(source),
            name=name, session=session, join_token=join_token, questions=stdin_lines() if ask else None,
            language=language,
        )
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, publication.finish)  # what was heard is still flushed
        try:
            await publication.run()
        finally:
            for sig in (signal.SIGINT, signal.SIGTERM):
                loop.remove_signal_handler(sig)
    except PublishError as exc:
        sys.stderr.write(f"streamtwin: error: {exc}\n")
        return 1
    finally:
        if player is not None:
            for track in (player.audio, player.video):
                if track is not None:
                    track.stop()
    if fatal:
        sys.stderr.write(f"streamtwin: error: {fatal[0]}\n")
        return 1
    return 0
