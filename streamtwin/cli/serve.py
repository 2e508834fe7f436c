"""``streamtwin serve``: the process around the live service.

Refuse an unsafe bind and open the event store before anything slow (one line, exit status 1 or 2),
load the speech engine and the LLM once, start the :class:`~streamtwin.service.server.Server`, and run until
SIGINT or SIGTERM, when every session is flushed and ended on the way out.  With ``--replay`` a recording
is also served as a live session (streamtwin/cli/replay.py), its viewer link printed once at start.
"""

from __future__ import annotations

import asyncio
import signal
import sys
from typing import Any

from streamtwin.cli.hooks import start_webhooks, stop_webhooks, with_webhooks
from streamtwin.config import Config
from streamtwin.eventlog.open import StoreError
from streamtwin.service.access import new_secret, token_digest
from streamtwin.media.redact import redact
from streamtwin.eventlog.recording import ReplayError, check_source, replay_to_log
from streamtwin.service.server import ConfigError, Server, make_session_factory
from streamtwin.webhooks.sender import WebhookCollector


async def serve(config: Config) -> int:
    """``streamtwin serve``: run until SIGINT/SIGTERM; every session is flushed and ended on the way out."""
    from streamtwin.llm.backend import LLMError
    from streamtwin.llm.factory import make_backend

    # What is wrong with the command line fails in a second, before anything slow.
    webhooks = None
    try:
        backend = make_backend(config)  # cheap: a local model loads in start()
        if config.voices:  # a bad profile folder fails now, not in the first session
            from streamtwin.speakers.profiles import load_profiles

            load_profiles(config.voices)
        webhooks = start_webhooks(config)
        factory = with_webhooks(make_session_factory(backend), webhooks)
        server = Server(config, session_factory=factory, backend=backend)  # refuses an unsafe bind
    except ConfigError as exc:
        sys.stderr.write(f"streamtwin: error: {exc}\n")
        await stop_webhooks(webhooks, 0)
        return 2
    except (LLMError, ValueError) as exc:
        sys.stderr.write(f"streamtwin: error: {exc}\n")
        await stop_webhooks(webhooks, 0)
        return 1
    if webhooks is not None:
        server.metrics.registry.register(WebhookCollector(webhooks))
    try:
        return await _serve(config, server, backend)
    finally:
        await server.close()  # a second close, after a clean shutdown, does nothing
        # The notes of the sessions that shutdown ended, to receivers that are up.
        await stop_webhooks(webhooks, config.webhook_drain_s)
        if backend is not None:
            await backend.aclose()


async def _serve(config: Config, server: Server, backend: Any) -> int:
    """The recording and the store, then the models, then the server, until a signal."""
    from streamtwin.llm.backend import LLMError
    from streamtwin.speech.asr_models import ModelLoadError
    from streamtwin.speech.engine import load_engine

    try:
        if config.replay:
            check_source(config.replay)
        await server.open_store()
    except (ReplayError, StoreError) as exc:
        prefix = "--replay: " if isinstance(exc, ReplayError) else ""
        sys.stderr.write(f"streamtwin: error: {prefix}{exc}\n")
        return 1
    loop = asyncio.get_running_loop()
    try:  # load the models once, before the first visitor waits for them
        await loop.run_in_executor(None, load_engine, config)
    except ModelLoadError as exc:
        sys.stderr.write(f"streamtwin: error: {exc}\n")
        return 1
    start_backend = getattr(backend, "start", None)
    if start_backend is not None:
        try:
            await start_backend()
        except LLMError as exc:  # sessions still transcribe; each one reports the missing model
            sys.stderr.write(f"streamtwin: warning: language model unavailable: {exc}\n")
    try:
        await server.start()
    except OSError as exc:
        reason = exc.strerror or exc
        sys.stderr.write(f"streamtwin: error: cannot listen on {config.host}:{config.port}: {reason}\n")
        return 1
    stop = asyncio.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    host = f"[{config.host}]" if ":" in config.host else config.host
    routes = "websocket /ws, WHIP /whip, /healthz, /metrics"
    sys.stderr.write(f"streamtwin: serving http://{host}:{server.port} ({routes})\n")
    replaying = start_replay(config, server)
    if replaying is not None:
        sys.stderr.write(f"streamtwin: replaying {redact(config.replay)}: http://{host}:{server.port}{replaying[1]}\n")
    await stop.wait()
    sys.stderr.write("streamtwin: shutting down\n")
    if replaying is not None:
        replaying[0].cancel()
        await asyncio.gather(replaying[0], return_exceptions=True)
    await server.close()
    return 0


def start_replay(config: Config, server: Server) -> tuple[asyncio.Task[int], str] | None:
    """``--replay``: the recording re-emitted as a new session in the server's log, and the page that watches
    it (relative to the server's address; its viewer token lets one watch this session and nothing else)."""
    if not config.replay or server.log is None:
        return None
    session, viewer_token = new_secret(), new_secret()
    task = asyncio.ensure_future(replay_to_log(config, config.replay, server.log, session, token_digest(viewer_token)))
    return task, f"/?session={session}&role=viewer&token={viewer_token}"
