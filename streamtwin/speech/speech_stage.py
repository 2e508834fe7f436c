"""The speech stage: VAD + the streaming-agreement policy, decoding through the shared engine.

The adapter only moves audio and events; every decision (when to decode, what
to commit, when to trim) lives in :class:`~streamtwin.speech.agreement.StreamingTranscriber`,
and every decode runs in the process-wide :class:`~streamtwin.speech.engine.SpeechEngine`,
so the event loop never blocks and no session loads a model of its own.  Live,
decodes overlap incoming audio; reading a file as fast as possible, the source
waits for each decode, which keeps the same code path faster than real time.
"""

from __future__ import annotations

import asyncio
import logging
import re
from typing import Callable

import numpy as np

from streamtwin.media.audio import SAMPLE_RATE, AudioBuffer
from streamtwin.config import Config
from streamtwin.speech.engine import SpeechEngine, check_language
from streamtwin.events import Error, Event
from streamtwin.speech.agreement import DecodeRequest, StreamingTranscriber
from streamtwin.speech.hypotheses import DecodedSegment, speech_words
from streamtwin.speech.endpoint import Endpointer
from streamtwin.speech.whisper import WindowJob, WindowResult

log = logging.getLogger(__name__)

VAD_WINDOW = 512  # samples: Silero's window at 16 kHz (32 ms)
VAD_CONTEXT = 64
# Language detection settles on the first confident window of at least DETECT_FROM_S (a shorter
# one is a guess: 1.5 s of espeak German read as Thai, p=0.62), or on the best guess at DETECT_UNTIL_S.
DETECT_FROM_S = 3.0
DETECT_UNTIL_S = 6.0
# With a hint (the language a room's other participants speak, or the one a publisher's hello says), a
# detection that agrees with it at least HINT_CONFIRMED sure settles from this much speech: short turns are
# heard in time, and a speaker of another language still is.
HINTED_FROM_S = 1.0
# How sure such a detection must be.  After 1 s of speech, on the window's own encoding, English read as
# English this sure for 20 of 23 real speakers (espeak voices: 19 of 42, then 29 by 2 s); no German,
# Spanish, French or Chinese window read as English above 0.59 (espeak German 0.587, Spanish 0.55) at
# that padding or at 30 s.
HINT_CONFIRMED = 0.6
LANGUAGE_TAG = re.compile(r"([A-Za-z]{2,3})(?:[-_][A-Za-z0-9]{1,8})*")  # BCP 47 as navigator.language says it


def primary_language(tag: str) -> str:
    """The primary subtag of a language tag or locale ("de" of "de-AT" or "de_AT"); "" for none; ValueError for
    anything that is not one."""
    match = LANGUAGE_TAG.fullmatch(tag.strip())
    if tag.strip() and not match:
        raise ValueError(f"a language hint is a language tag such as 'en' or 'de-AT', not {tag[:40]!r}")
    return match.group(1).lower() if match else ""


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


class SpeechStage:
    """Feeds 16 kHz mono audio through VAD and streaming Whisper; emits transcript events."""

    def __init__(
        self,
        config: Config,
        emit: Callable[[Event], object],
        engine: SpeechEngine,
        *,
        wait_for_decodes: bool,
        on_language: Callable[[str], object] = lambda language: None,
    ):
        """``on_language``: called once the language is detected (``--language auto``)."""
        self._config = config
        self._on_language = on_language
        self._hint: str | None = None
        self._emit = emit
        self._engine = engine
        self._wait = wait_for_decodes
        language = check_language(engine, config.asr_language)
        self.language = "en" if language == "auto" and not engine.model.multilingual else language
        self._vad = StreamingVAD()
        expected = [*config.participants, *config.vocabulary]
        self._glossary = f"{', '.join(expected)}." if expected else ""  # names and words Whisper should expect
        self._buffer = AudioBuffer()
        self._pending = np.zeros(0, dtype=np.float32)  # samples not yet scored by the VAD
        self._policy = StreamingTranscriber(
            Endpointer(
                threshold=config.vad_threshold,
                pause_s=config.vad_pause_ms / 1000,
                end_s=config.vad_min_silence_ms / 1000,
            ),
            # Live, decode as often as the engine allows; a file gains nothing from more than one per second.
            step_s=config.asr_step_s or (1.0 if wait_for_decodes else 0.25),
            max_window_s=config.asr_max_window_s,
            language_window_s=DETECT_FROM_S,
            revise_within_s=config.asr_revise_s,
        )
        self._revise_beam = config.asr_revise_beam
        if self.language != "auto":
            self._policy.language = self.language
        self._policy.awaiting_language = self.language == "auto"
        self._wanted = False
        self._stopped = False  # finish() gave up waiting: late decodes are ignored
        self._in_flight: list[DecodeRequest] = []
        self._settled = asyncio.Event()
        self._settled.set()
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
            self._emit_all(self._policy.on_vad(float(prob), w_start, w_end))
            self._request_if_due()
            if self._wait:
                await self._settle()
        self.audio_seconds = start + usable / SAMPLE_RATE
        self._buffer.trim_before(self._policy.keep_from)

    async def finish(self, wait_s: float | None = None) -> None:
        """End of audio: flush the open utterance as final and wait for the last decode.

        ``wait_s`` bounds that wait (Ctrl-C, where a person waits about a second): past it the words
        already shown as tentative become final, and a decode still running is not waited for."""
        self.audio_seconds += len(self._pending) / SAMPLE_RATE
        self._policy.on_audio(self.audio_seconds)
        self._emit_all(self._policy.finish())
        self._request_if_due()
        try:
            await asyncio.wait_for(self._settle(), wait_s)
        except TimeoutError:
            log.info("speech not flushed within %.1f s: ending with the tentative words", wait_s)
            self._stopped = True
            self._engine.drop(self)
            self._emit_all(self._policy.stop_now())

    def close(self) -> None:
        """Stop asking the engine for decodes (the session is gone)."""
        self._engine.drop(self)

    async def _settle(self) -> None:
        """Wait until no decode is asked for or running, including the ones results make due."""
        while self._wanted or self._in_flight:
            self._settled.clear()
            await self._settled.wait()

    def _request_if_due(self) -> None:
        if self._wanted:
            return
        # A second decode while one runs only on a worker no other stream is waiting for.
        overlap = bool(self._in_flight)
        if overlap and not self._engine.spare:
            return
        request = self._policy.next_decode(peek=True, overlap=overlap)
        if request is not None and request.kind == "revise" and not self._engine.spare:
            return  # a revision takes only the engine's spare time (asked again with the next audio)
        if request is not None:
            self._wanted = True
            self._engine.want(self, request.kind, request.end - request.start)

    # --- the engine's side ----------------------------------------------------------

    def take_job(self) -> tuple[DecodeRequest, WindowJob] | None:
        self._wanted = False
        request = self._policy.next_decode(overlap=bool(self._in_flight))
        if request is None:
            self._settled.set()
            return None
        self._in_flight.append(request)
        try:
            audio = self._buffer.slice(request.start, request.end)
            language = None if self.language == "auto" else self.language
            revise = request.kind == "revise"
            beam = self._revise_beam if revise else 0
            # A hinted stream's windows too short to detect from only need the hint confirmed: cheaply.
            cheap = self._hint is not None and request.end - request.start < DETECT_FROM_S
            return request, WindowJob(audio, request.prompt, language, beam, timestamps=revise,
                                      trim_loops=request.kind == "step", glossary=self._glossary,
                                      cheap_detection=cheap)
        except Exception as exc:  # reported like a failed decode: nothing waits for it, nothing committed is lost
            # Not asked for again from here (the engine is choosing its batch): the next audio asks.
            self._apply(request, exc)
            return None

    def deliver(self, request: DecodeRequest, result: WindowResult | BaseException) -> None:
        """Apply one decode; whatever goes wrong is reported and transcription goes on."""
        if self._apply(request, result):
            self._request_if_due()

    def _apply(self, request: DecodeRequest, result: WindowResult | BaseException) -> bool:
        """The outcome of ``request``; False when finish() had stopped waiting for it (nothing more to ask)."""
        self._in_flight.remove(request)
        if self._stopped:  # finish() stopped waiting for this one and closed the utterance without it
            return False
        try:
            if isinstance(result, BaseException):
                raise result
            self.decodes += 1
            self.decode_seconds += result.seconds
            self._settle_language(result, request.end - request.start)
            words = speech_words([DecodedSegment(result.words, result.no_speech_prob)])
            log.debug("decode %s [%.2f, %.2f] %.3fs -> %r", request.kind, request.start, request.end,
                      result.seconds, result.text)
            self._emit_all(self._policy.on_decoded(request, words))
        except Exception as exc:  # a failed decode loses no committed text
            log.error("speech decode failed: %s", exc, exc_info=not isinstance(exc, RuntimeError))
            self._policy.abandon(request)
            self._emit(Error(code="asr_failed", message=f"speech decode failed: {exc}", media_time=request.end))
        finally:
            self._buffer.trim_before(self._policy.keep_from)
            self._settled.set()
        return True

    def hint_language(self, language: str) -> None:
        """The language this stream's speaker most likely speaks (a room's other participants speak it, the
        publisher's hello or ``--language-hint`` says it): while still detecting, decode after less speech and
        settle on a confident detection that agrees."""
        if self.language == "auto" and self._hint is None and language:
            self._hint = language
            self._policy.language_window_s = HINTED_FROM_S

    def _settle_language(self, result: WindowResult, seconds: float) -> None:
        """``--language auto``: take the first confident detection (or the best after a few seconds)."""
        if self.language != "auto":
            return
        self._policy.language = result.language  # what this window was transcribed in, settled or not
        confident = result.language_prob >= 0.5
        agrees = result.language_prob >= HINT_CONFIRMED and result.language == self._hint and seconds >= HINTED_FROM_S
        if (confident and seconds >= DETECT_FROM_S) or agrees or seconds >= DETECT_UNTIL_S:
            self.language = result.language
            self._policy.language = result.language
            self._policy.awaiting_language = False
            self._policy.language_window_s = DETECT_FROM_S
            log.info("language detected: %s (p=%.2f)", result.language, result.language_prob)
            self._on_language(result.language)

    def _emit_all(self, events: list[Event]) -> None:
        for event in events:
            self._emit(event)
