"""``streamtwin serve``: the process around the live service.

Refuse an unsafe bind and open the event store before anything slow (one line, exit status 1 or 2),
load the speech engine and the LLM once, start the :class:`~pipeline.server.Server`, and run until
SIGINT or SIGTERM, when every session is flushed and ended on the way out.
"""

from __future__ import annotations

import asyncio
import signal
import sys

from .config import Config
from .eventlog.open import StoreError, open_store
from .policy.access import check_bind
from .server import Server, make_session_factory


async def serve(config: Config) -> int:
    """``streamtwin serve``: run until SIGINT/SIGTERM; every session is flushed and ended on the way out."""
    from .llm.base import LLMError
    from .llm.factory import make_backend
    from .asr_models import ModelLoadError
    from .engine import load_engine

    problem = check_bind(config.host, config.token)
    if problem:  # before loading models: fail in a second, not after them
        sys.stderr.write(f"streamtwin: error: {problem}\n")
        return 2
    try:
        store = await open_store(config)
    except StoreError as exc:
        sys.stderr.write(f"streamtwin: error: {exc}\n")
        return 1
    loop = asyncio.get_running_loop()
    try:  # load the models once, before the first visitor waits for them
        await loop.run_in_executor(None, load_engine, config)
        backend = make_backend(config)
    except (ModelLoadError, LLMError, ValueError) as exc:
        sys.stderr.write(f"streamtwin: error: {exc}\n")
        await store.close()
        return 1
    try:
        start_backend = getattr(backend, "start", None)
        if start_backend is not None:
            try:
                await start_backend()
            except LLMError as exc:  # sessions still transcribe; each one reports the missing model
                sys.stderr.write(f"streamtwin: warning: language model unavailable: {exc}\n")
        server = Server(config, session_factory=make_session_factory(backend), store=store)
        try:
            await server.start()
        except OSError as exc:
            reason = exc.strerror or exc
            sys.stderr.write(f"streamtwin: error: cannot listen on {config.host}:{config.port}: {reason}\n")
            await server.close()
            return 1
        stop = asyncio.Event()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        host = f"[{config.host}]" if ":" in config.host else config.host
        routes = "websocket /ws, WHIP /whip, /healthz, /metrics"
        sys.stderr.write(f"streamtwin: serving http://{host}:{server.port} ({routes})\n")
        await stop.wait()
        sys.stderr.write("streamtwin: shutting down\n")
        await server.close()
        return 0
    finally:
        if backend is not None:
            await backend.aclose()
