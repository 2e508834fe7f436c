"""The speech engine: one loaded Whisper per model, shared by every session of the process.

Sessions never own a model.  Each speech stream tells the engine when it has a
decode due (:meth:`SpeechEngine.want`); the engine picks streams with the pure
:class:`~streamtwin.speech.schedule.DecodeScheduler` (earliest deadline first,
batched when windows are alike), asks each chosen stream for its request only
then (so the window holds the freshest audio and nothing stale waits in a
queue), runs the batch on its own bounded pool of worker threads, and hands
each stream its result back on the event loop.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import os
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable, Protocol, TypeVar

from prometheus_client import Histogram

from streamtwin.speech.asr_models import ModelLoadError, resolve_speech_model
from streamtwin.config import Config
from streamtwin.speech.capacity import BusyMeter
from streamtwin.speech.schedule import DecodeScheduler
from streamtwin.speech.whisper import ShortWindowWhisper, WindowJob, WindowResult

log = logging.getLogger(__name__)

T = TypeVar("T")


class EngineClient(Protocol):
    """A speech stream, as the engine sees it."""

    def take_job(self) -> tuple[Any, WindowJob] | None:
        """The decode to run now (a request token and its window), or None if nothing is due any more."""

    def deliver(self, token: Any, result: WindowResult | BaseException) -> None:
        """The outcome of the decode ``token`` (on the event loop)."""


class EngineMetrics:
    """Process-wide, like the engines: what ``/metrics`` shows of speech decoding."""

    def __init__(self) -> None:
        # registry=None: every server's registry takes these in (streamtwin/service/metrics.py).
        self.decode_seconds = Histogram(
            "streamtwin_asr_decode_seconds", "Wall time of one engine batch (encode, generate, align).",
            buckets=(0.05, 0.1, 0.15, 0.2, 0.3, 0.5, 0.75, 1.0, 2.0, 5.0), registry=None,
        )
        self.batch_size = Histogram(
            "streamtwin_asr_batch_size", "Windows decoded together in one engine batch.",
            buckets=(1, 2, 3, 4, 8), registry=None,
        )

    @staticmethod
    def queue_depth() -> float:
        """Speech streams waiting for a decode, over every loaded engine."""
        return float(sum(engine.queue_depth for engine in _ENGINES))

    @staticmethod
    def recent_load() -> float:
        """The busiest loaded engine's recent peak share of its workers (0 to 1): measured capacity."""
        return max((engine.busy.peak(engine.clock()) for engine in _ENGINES), default=0.0)


ENGINE_METRICS = EngineMetrics()
_ENGINES: list[SpeechEngine] = []


class SpeechEngine:
    def __init__(
        self,
        model: ShortWindowWhisper,
        *,
        workers: int,
        max_batch: int = 4,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        """``clock``: when streams ask and decodes run, for the scheduler and the busy meter (seconds)."""
        self.model = model
        self.clock = clock
        self.workers = workers
        self.scheduler = DecodeScheduler(max_batch=max_batch, tail_s=model.tail_s)
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="whisper")
        self._running = 0
        # Measured capacity counts the time a stream has a decode running, once: a lone speaker's
        # overlapped decodes on the spare worker would otherwise make one session look like two
        # and refuse the next (admission).
        self.busy = BusyMeter(workers)
        self._counted_until: dict[EngineClient, float] = {}

    @property
    def queue_depth(self) -> int:
        return self.scheduler.depth

    @property
    def spare(self) -> bool:
        """A worker is free and no stream waits: a stream may overlap a second decode."""
        return self._running < self.workers and not self.scheduler.depth

    def want(self, client: EngineClient, kind: str, seconds: float) -> None:
        self.scheduler.want(client, self.clock(), kind, seconds)
        self._dispatch()

    def drop(self, client: EngineClient) -> None:
        self.scheduler.drop(client)
        self._counted_until.pop(client, None)

    async def run_cpu(self, fn: Callable[..., T], *args: Any) -> T:
        """Other CPU-heavy work of a session (a speaker embedding: tens of ms) in the engine's bounded
        pool, off the event loop; a decode dispatched meanwhile waits for a thread at most that long."""
        return await asyncio.get_running_loop().run_in_executor(self._pool, fn, *args)

    def _dispatch(self) -> None:
        while self._running < self.workers and self.scheduler.depth:
            chosen = self.scheduler.next_batch()
            work: list[tuple[EngineClient, Any, WindowJob]] = []
            for client in chosen:
                try:
                    job = client.take_job()
                except Exception:  # that stream's fault: the others in the batch are still decoded
                    log.exception("a speech stream could not prepare its decode")
                    continue
                if job is not None:
                    work.append((client, *job))
            if work:
                self._running += 1
                asyncio.get_running_loop().create_task(self._run(work))

    async def _run(self, work: list[tuple[EngineClient, Any, WindowJob]]) -> None:
        loop = asyncio.get_running_loop()
        started = time.perf_counter()
        started_at = self.clock()
        outcome: list[WindowResult] | BaseException
        try:
            outcome = await loop.run_in_executor(self._pool, self.model.decode, [job for _, _, job in work])
        except Exception as exc:  # reported to every stream in the batch; the engine keeps serving
            log.exception("speech decode failed")
            outcome = exc
        finally:
            self._running -= 1
        elapsed = time.perf_counter() - started
        self._count_busy([client for client, _, _ in work], started_at, self.clock())
        ENGINE_METRICS.decode_seconds.observe(elapsed)
        ENGINE_METRICS.batch_size.observe(len(work))
        for index, (client, token, _) in enumerate(work):
            client.deliver(token, outcome if isinstance(outcome, BaseException) else outcome[index])
        self._dispatch()

    def _count_busy(self, clients: list[EngineClient], start: float, end: float) -> None:
        """One worker busy from ``start`` to ``end``, less what a lone stream's earlier decode already counted."""
        if len(clients) == 1:
            start = max(start, self._counted_until.get(clients[0], start))
        if end > start:
            self.busy.add(start, end)
        for client in clients:
            self._counted_until[client] = max(end, self._counted_until.get(client, end))


def engine_threads(config: Config) -> tuple[int, int]:
    """(threads per decode, parallel workers) from the core count.

    One decode gains little from a second thread on these machines (NOTES.md:
    the int8 encoder of a short window is not wide enough), while two workers
    decode two sessions at once; ``--asr-threads N`` gives each decode N threads.
    """
    cores = os.cpu_count() or 1
    threads = config.asr_threads or 1
    return threads, max(1, cores // threads)


def load_engine(config: Config) -> SpeechEngine:
    """The process-wide engine for ``config.asr_model``, loaded once (slow the first time), language checked.

    Raises :class:`ModelLoadError` for an unknown model, a corrupt join or a language the model lacks.
    """
    threads, workers = engine_threads(config)
    engine = _load(config.asr_model, threads, workers, config.asr_tail_s)
    check_language(engine, config.asr_language)
    return engine


@functools.lru_cache(maxsize=4)
def _load(name: str, threads: int, workers: int, tail_s: float) -> SpeechEngine:
    path = resolve_speech_model(name)
    model = ShortWindowWhisper(path, threads=threads, workers=workers, tail_s=tail_s)
    engine = SpeechEngine(model, workers=workers)
    _ENGINES.append(engine)
    return engine


def check_language(engine: SpeechEngine, language: str) -> str:
    """``auto`` or a code the model transcribes; English-only models take only ``en``/``auto``."""
    code = (language or "auto").strip().lower()
    if code == "auto":
        return code
    if not engine.model.multilingual and code != "en":
        raise ModelLoadError(f"speech model {engine.model.path.name} transcribes English only, not {code!r}")
    if code not in engine.model.languages:
        raise ModelLoadError(f"unknown language code {code!r}: use auto or one of {', '.join(engine.model.languages)}")
    return code
