"""The Python API for headless use: the typed events of a source, or a session you push media into.

::

    import streamtwin

    async for event in streamtwin.stream("talk.mp4", llm="none", realtime=False):
        if isinstance(event, streamtwin.TranscriptFinal):
            print(event.text)

    async with streamtwin.PushSession(llm="none") as session:
        await session.push_audio(samples)               # 16 kHz mono float32, in order
        session.push_video(rgb, media_time=1.5)         # HxWx3 uint8 (or an av.VideoFrame)
    # leaving the block flushes speech and ends the session

Both build the same :class:`~streamtwin.session.Session` as ``streamtwin run`` and
``serve``.  Options are :class:`~streamtwin.config.Config` fields as keywords
(``asr_model="tiny.en"``, ``asr_language="de"``, ``llm="groq"``, ``vision=False``...),
over ``STREAMTWIN_*`` environment variables, over the defaults, exactly as flags are.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator, Mapping
from dataclasses import fields
from types import TracebackType
from typing import Any

import av
import numpy as np

from streamtwin.bus import EventBus
from streamtwin.config import Config
from streamtwin.speech.engine import load_engine
from streamtwin.speech.speech_stage import primary_language
from streamtwin.events import Event, SessionEnded
from streamtwin.media.ingest import MediaReader, is_live_spec
from streamtwin.llm.factory import make_backend
from streamtwin.media.redact import redact
from streamtwin.session import Session, run_reader

OPTION_NAMES = tuple(f.name for f in fields(Config))


def make_config(options: Mapping[str, Any]) -> Config:
    """A :class:`Config` from keyword options; a misspelt option is an error, not silently ignored."""
    unknown = sorted(set(options) - set(OPTION_NAMES))
    if unknown:
        raise TypeError(f"unknown option(s) {', '.join(unknown)}: options are Config fields ({', '.join(OPTION_NAMES)})")
    return Config.from_sources(options)


async def build_session(config: Config, *, source: str, realtime: bool) -> Session:
    """A session with its backend and the shared speech engine (loaded off the event loop, once per process).

    Raises :class:`~streamtwin.speech.asr_models.ModelLoadError`, :class:`~streamtwin.llm.backend.LLMError`
    or ValueError for a configuration that cannot run."""
    hint = primary_language(config.language_hint)  # a bad one fails before the models load
    backend = make_backend(config)
    await asyncio.get_running_loop().run_in_executor(None, load_engine, config)
    session = Session(config, source=source, realtime=realtime, backend=backend)
    if hint:  # what a page's hello says for a served session (the server takes it from there, not from here)
        session.hint_language(hint)
    return session


async def close_backend(session: Session) -> None:
    if session.backend is not None:
        await session.backend.aclose()


class _EventQueue:
    """Every event of a bus from now on, for ``async for``, up to and including ``session.ended``."""

    _CLOSED = object()

    def __init__(self, bus: EventBus) -> None:
        self._queue: asyncio.Queue[Any] = asyncio.Queue()
        self._unsubscribe = bus.subscribe(self._queue.put_nowait)
        self._failure: BaseException | None = None

    def close(self, failure: BaseException | None = None) -> None:
        """No more events will come (the producer stopped, perhaps with ``failure``)."""
        self._failure = self._failure or failure
        self._queue.put_nowait(self._CLOSED)

    async def __aiter__(self) -> AsyncIterator[Event]:
        try:
            while True:
                item = await self._queue.get()
                if item is self._CLOSED:
                    if self._failure is not None:
                        raise self._failure
                    return
                yield item
                if isinstance(item, SessionEnded):
                    return
        finally:
            self._unsubscribe()


async def stream(source: str | os.PathLike[str], *, realtime: bool | None = None, **options: Any) -> AsyncIterator[Event]:
    """The typed events of one media source (file, URL or ``"-"`` for stdin), ``session.started``
    to ``session.ended``.

    ``realtime`` paces the source at wall-clock speed (default: on for URLs and stdin, off for
    files, which then run as fast as the machine allows through the same streaming code).  A
    source that cannot be opened raises :class:`~streamtwin.media.ingest.IngestError` before any event; one
    that breaks later yields an ``error`` event (``fatal``) and still ends with ``session.ended``.
    To stop early, close the iterator (``contextlib.aclosing``): speech heard so far is flushed.
    """
    config = make_config(options)
    spec = os.fspath(source)
    realtime = is_live_spec(spec) if realtime is None else realtime
    reader = MediaReader(spec, realtime=realtime, video=config.vision)
    try:
        session = await build_session(config, source=redact(spec), realtime=realtime)
    except BaseException:
        reader.close()
        raise
    events = _EventQueue(session.bus)
    pump = asyncio.ensure_future(run_reader(session, reader))
    pump.add_done_callback(lambda task: events.close(None if task.cancelled() else task.exception()))
    try:
        async for event in events:
            yield event
    finally:
        if not pump.done():
            reader.interrupt()
        await asyncio.gather(pump, return_exceptions=True)
        await close_backend(session)


class PushSession:
    """A session you feed yourself: 16 kHz mono float32 audio and video frames, in media order.

    ``realtime=False`` (the default) makes :meth:`push_audio` wait for the speech model, so
    audio pushed faster than real time is still transcribed completely; pass ``realtime=True``
    for live capture, where waiting would fall behind the microphone.  Read the events with
    :meth:`events` (in another task while pushing, or after :meth:`end`); they queue up until read.
    """

    def __init__(self, *, realtime: bool = False, source: str = "push", **options: Any) -> None:
        self.config = make_config(options)
        self.realtime = realtime
        self.source = source
        self._session: Session | None = None
        self._events: _EventQueue | None = None
        self._stats: dict[str, Any] | None = None

    @property
    def id(self) -> str:
        return self._live().id

    async def start(self) -> None:
        """Load the models (once per process) and emit ``session.started``."""
        if self._session is not None:
            return
        session = await build_session(self.config, source=self.source, realtime=self.realtime)
        self._events = _EventQueue(session.bus)
        self._session = session
        await session.start()

    async def push_audio(self, samples: np.ndarray) -> None:
        """Append audio: a 1-D float array at 16 kHz in [-1, 1], continuing where the last one ended."""
        samples = np.asarray(samples)
        if samples.ndim != 1 or samples.dtype.kind != "f":
            raise ValueError(f"audio is 1-D float samples at 16 kHz in [-1, 1], not {samples.dtype} {samples.shape}")
        await self._live().push_audio(samples.astype(np.float32, copy=False))

    def push_video(self, frame: np.ndarray | av.VideoFrame, media_time: float) -> None:
        """Offer a frame seen at ``media_time`` seconds: an HxWx3 RGB (HxW grey, HxWx4 RGBA) uint8 array
        or an ``av.VideoFrame``.  Cheap: frames that arrive while one is analysed are skipped."""
        self._live().push_video(frame, media_time)

    async def ask(self, question: str) -> list[Event]:
        """Ask the assistant a typed question, answered with the twin and the whole context; returns the
        answer's events (``assistant.started``, the answer's delta, ``assistant.done``), which
        :meth:`events` yields too.  Raises :class:`~streamtwin.assistant.typed.AskRefused` for an empty or
        oversized question, a session without an assistant (``llm="none"``) or while another answer runs."""
        return await self._live().ask(question, asker="viewer")

    async def end(self) -> dict[str, Any]:
        """Flush speech (nothing pushed is lost), wait for the last answer, emit ``session.ended``;
        returns its stats.  Ending twice is harmless."""
        session = self._live()
        if self._stats is None:
            self._stats = await session.end()
            await close_backend(session)
        return self._stats

    def events(self) -> AsyncIterator[Event]:
        """Every event from ``session.started`` to ``session.ended``; iterate it once."""
        self._live()
        assert self._events is not None
        return self._events.__aiter__()

    async def __aenter__(self) -> PushSession:
        await self.start()
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        if self._session is not None:
            await self.end()

    def _live(self) -> Session:
        if self._session is None:
            raise RuntimeError("the session has not started: use `async with PushSession(...)` or await start()")
        return self._session
