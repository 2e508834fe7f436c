"""Stream a file through the speech stage on a virtual clock: load-proof latency and accuracy.

A real-time run measures what this machine does while it runs, so a second
process on the two cores moves both the latency and (through which hypotheses
exist when) the transcript.  Here audio "arrives" at its media time and each
decode takes the time it takes on an idle machine of this kind (a fit of its
parts, measured below), so the same file gives the same events
however busy the machine is.  Real-time figures still come from ``bench.asr_stream``
on an idle machine; this is the tuning loop.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

import numpy as np

from streamtwin.config import Config
from streamtwin.speech.engine import EngineClient, SpeechEngine
from streamtwin.events import Event
from streamtwin.speech.speech_stage import SpeechStage
from streamtwin.speech.whisper import FULL_FRAMES, HOP, WindowJob, encoder_width

FRAME_S = 0.02  # audio arrives as 20 ms frames, as from WebRTC


@dataclass(frozen=True)
class DecodeCost:
    """Seconds one decode takes on an idle 2-core machine of this kind, one thread, from its parts.

    Fitted with the best of 3-5 wall times per part (bench/decode_cost.py): the encoder on the
    window plus its silence tail (``frames``, linear plus a little attention), the decoder per
    generated token (beam 2), the alignment pass, and the rest (features, word timing in Python),
    which grows with the tokens too.
    Process CPU time is no substitute: it counted 0.1 s more than the wall time.
    """

    encode: tuple[float, float]  # seconds per frame, per frame squared
    generate: tuple[float, float]  # seconds, per token
    align: tuple[float, float]  # seconds, per token
    rest: tuple[float, float]  # seconds, per token: features and the Python around the model calls
    wide_beam: float = 1.2  # a revision's beam of 5: seconds per generated token over beam 2's

    def seconds(self, frames: int, tokens: int, retried: bool, beam: int = 2, detected: bool = False) -> float:
        generate = self._generate(tokens, beam)
        took = self._encode(frames) + generate + self.align[0] + self.align[1] * tokens
        took += self.rest[0] + self.rest[1] * tokens
        if retried:  # the window looped and was decoded again at full padding
            took += self._encode(FULL_FRAMES) + generate
        if detected:  # its language was detected on its own encoder pass at full padding
            took += self._encode(FULL_FRAMES)
        return took

    def _encode(self, frames: int) -> float:
        return self.encode[0] * frames + self.encode[1] * frames * frames

    def _generate(self, tokens: int, beam: int) -> float:
        return self.generate[0] + self.generate[1] * tokens * (self.wide_beam if beam > 2 else 1.0)


DECODE_COST = {  # python -m bench.decode_cost, idle machine (load 1.1; wide_beam added later, load 0.4)
    "base": DecodeCost(encode=(8.43e-05, 4.69e-08), generate=(0.0312, 0.00489), align=(0.0245, 0.00051),
                       rest=(-0.0147, 0.00710), wide_beam=1.2),
    "tiny.en": DecodeCost(encode=(4.34e-05, 1.83e-08), generate=(0.0050, 0.00359), align=(0.0114, 0.00054),
                          rest=(-0.0030, 0.00346), wide_beam=1.3),
}


class VirtualEngine:
    """The engine's interface (``want``/``drop``/``spare``/``model``) with decodes on a virtual clock.

    ``workers`` decodes run at once, each at its idle speed: the 2-core machine gives one
    stream a second worker for overlapped decodes, as the real engine does when nobody else waits.
    """

    def __init__(self, engine: SpeechEngine, cost: DecodeCost, workers: int = 2) -> None:
        self.model = engine.model
        self._cost = cost
        self._workers = workers
        self.now = 0.0
        self.busy_seconds = 0.0
        self._waiting: list[tuple[EngineClient, str, float]] = []
        self._running: list[tuple[float, int, EngineClient, Any, Any]] = []  # (done at, order, client, token, result)
        self._started = 0

    @property
    def spare(self) -> bool:
        return len(self._running) < self._workers and not self._waiting

    def want(self, client: EngineClient, kind: str, seconds: float) -> None:
        self._waiting.append((client, kind, seconds))
        self._start()

    def drop(self, client: EngineClient) -> None:
        self._waiting = [w for w in self._waiting if w[0] is not client]

    def advance(self, until: float) -> None:
        """Deliver every decode that finishes by ``until`` (each may ask for the next)."""
        while self._running and min(self._running)[0] <= until:
            first = min(self._running)
            self._running.remove(first)
            done, _, client, token, result = first
            self.now = done
            client.deliver(token, result)
            self._start()
        self.now = until

    def _start(self) -> None:
        while len(self._running) < self._workers and self._waiting:
            client, _, _ = self._waiting.pop(0)
            job: tuple[Any, WindowJob] | None = client.take_job()
            if job is None:
                continue
            token, window = job
            result = self.model.decode([window])[0]
            frames = encoder_width(len(window.audio) // HOP, int(self.model.tail_s * 100))
            generated = len(result.tokens) + result.looped_tokens  # a loop cut short was generated all the same
            took = self._cost.seconds(frames, generated, result.retried, window.beam_size or self.model.beam_size,
                                      result.detected_at_full_padding)
            result.seconds = took  # what the stage counts as decode time: virtual, like the clock
            self.busy_seconds += took
            self._started += 1
            self._running.append((self.now + took, self._started, client, token, result))


async def stream_virtual(
    samples: np.ndarray, config: Config, engine: SpeechEngine, workers: int = 2
) -> tuple[list[tuple[float, Event]], SpeechStage]:
    """Every event with the virtual time it was emitted; the stage (for its counters)."""
    if config.asr_model not in DECODE_COST:
        raise SystemExit(f"no measured decode cost for {config.asr_model!r}: use one of {', '.join(DECODE_COST)}")
    virtual = VirtualEngine(engine, DECODE_COST[config.asr_model], workers)
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
