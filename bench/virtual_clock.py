"""Stream a file through the speech stage on a virtual clock: load-proof latency and accuracy.

A real-time run measures what this machine does while it runs, so a second
process on the two cores moves both the latency and (through which hypotheses
exist when) the transcript.  Here audio "arrives" at its media time and each
decode takes the time it takes on an idle machine of this kind (a linear fit of
the window's length, measured below), so the same file gives the same events
however busy the machine is.  Real-time figures still come from ``bench.asr_stream``
on an idle machine; this is the tuning loop.
"""

from __future__ import annotations

import asyncio
from typing import Any

import numpy as np

from pipeline.config import Config
from pipeline.engine import EngineClient, SpeechEngine
from pipeline.events import Event
from pipeline.speech import SpeechStage
from pipeline.whisper import WindowJob

FRAME_S = 0.02  # audio arrives as 20 ms frames, as from WebRTC
# Seconds per decode = a + b * window seconds: the best of 3 wall times of 1, 2, 4 and 8 s windows of
# samples/meeting.wav on an idle 2-core machine (one thread; base 0.16/0.25/0.33/0.47 s, tiny.en
# 0.07/0.10/0.14/0.24 s).  Process CPU time is no substitute: it counted 0.1 s more than the wall time.
DECODE_COST = {"base": (0.15, 0.040), "tiny.en": (0.05, 0.024)}


class VirtualEngine:
    """The engine's interface (``want``/``drop``/``model``) with decodes on a virtual clock, one worker."""

    def __init__(self, engine: SpeechEngine, cost: tuple[float, float]) -> None:
        self.model = engine.model
        self._cost = cost
        self.now = 0.0
        self._waiting: list[tuple[EngineClient, str, float]] = []
        self._running: tuple[float, EngineClient, Any, Any] | None = None  # (done at, client, token, result)

    def want(self, client: EngineClient, kind: str, seconds: float) -> None:
        self._waiting.append((client, kind, seconds))
        self._start()

    def drop(self, client: EngineClient) -> None:
        self._waiting = [w for w in self._waiting if w[0] is not client]

    def advance(self, until: float) -> None:
        """Deliver every decode that finishes by ``until`` (each may ask for the next)."""
        while self._running is not None and self._running[0] <= until:
            done, client, token, result = self._running
            self._running = None
            self.now = done
            client.deliver(token, result)
            self._start()
        self.now = until

    def _start(self) -> None:
        while self._running is None and self._waiting:
            client, _, _ = self._waiting.pop(0)
            job: tuple[Any, WindowJob] | None = client.take_job()
            if job is None:
                continue
            token, window = job
            result = self.model.decode([window])[0]
            took = self._cost[0] + self._cost[1] * len(window.audio) / 16_000
            self._running = (self.now + took, client, token, result)


async def stream_virtual(samples: np.ndarray, config: Config, engine: SpeechEngine) -> tuple[list[tuple[float, Event]], SpeechStage]:
    """Every event with the virtual time it was emitted; the stage (for its counters)."""
    if config.asr_model not in DECODE_COST:
        raise SystemExit(f"no measured decode cost for {config.asr_model!r}: use one of {', '.join(DECODE_COST)}")
    virtual = VirtualEngine(engine, DECODE_COST[config.asr_model])
    seen: list[tuple[float, Event]] = []
    stage = SpeechStage(config, lambda e: seen.append((virtual.now, e)), virtual, wait_for_decodes=False)  # type: ignore[arg-type]
    step = int(FRAME_S * 16_000)
    for offset in range(0, len(samples), step):
        chunk = samples[offset : offset + step]
        virtual.advance((offset + len(chunk)) / 16_000)
        await stage.push(chunk)
    end = len(samples) / 16_000
    # finish() waits for the last decodes: let virtual time run on until they are delivered.
    task = asyncio.ensure_future(stage.finish())
    while not task.done():
        await asyncio.sleep(0)
        end += FRAME_S
        virtual.advance(end)
    await task
    return seen, stage
