"""Short-window Whisper on CTranslate2: decode a few seconds of speech without paying for 30.

faster-whisper pads every window to 3000 mel frames (30 s).  CTranslate2's
encoder accepts fewer, so a window is encoded with a silence tail only (about
6 s, which keeps the decoder from looping, capped at 3000 frames in all): a
3 s window costs a third of a padded one (NOTES.md).  faster-whisper still
provides the feature extractor, the tokenizer, the word alignment (the model's
alignment heads, exactly as ``transcribe(word_timestamps=True)`` computes them)
and the offline reference transcription.

Runs in a worker thread: no asyncio here.  One :class:`ShortWindowWhisper` per
model is shared by every session (see :mod:`streamtwin.speech.engine`).
"""

from __future__ import annotations

import logging
import os
import threading
import time
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from streamtwin.numpy_threads import one_blas_thread
from streamtwin.speech.asr_models import ModelLoadError

log = logging.getLogger(__name__)

SAMPLE_RATE = 16_000
HOP = 160  # samples per mel frame (10 ms)
FULL_FRAMES = 3000
# Encoder widths are rounded up to a multiple of this many frames: every new input shape compiles
# another oneDNN kernel, so widths that varied by the frame cost a compile per decode.
WIDTH_STEP = 50
# oneDNN keeps every kernel it compiled, one per input shape, up to 1,024 of them: with windows,
# batches and prompts of every length, RSS climbed by ~1 MB per new shape through a live session
# (base, random windows: +110 MB over 80 decodes, then still rising; off: flat, and no slower, since a
# compile costs little next to a decode).  An environment that sets it keeps its own value.
ONEDNN_CACHE = ("ONEDNN_PRIMITIVE_CACHE_CAPACITY", "0")
PREPEND_PUNCTUATIONS = "\"'“¿([{-"
APPEND_PUNCTUATIONS = "\"'.。,，!！?？:：”)]}、"


def encoder_width(frames: int, tail_frames: int) -> int:
    """Mel frames to encode: the window, a silence tail, rounded up to ``WIDTH_STEP``, capped at 30 s."""
    return min(-(-(frames + tail_frames) // WIDTH_STEP) * WIDTH_STEP, FULL_FRAMES)


MAX_PROMPT_TOKENS = 100  # earlier text (and glossary) a window is decoded after
MAX_GLOSSARY_TOKENS = 48


@dataclass(frozen=True)
class WindowJob:
    """One window to transcribe: mono 16 kHz audio, earlier text as context, a language or None to detect."""

    audio: np.ndarray
    prompt: str = ""
    language: str | None = "en"
    beam_size: int = 0  # 0: the model's own (a second reading affords a wider search)
    # Whisper's timestamp mode (no <|notimestamps|>): how it was mostly trained and how offline decoding
    # reads; the second reading of a whole utterance uses it (streamtwin/speech/revision.py says why).
    timestamps: bool = False
    # A tentative decode (a growing-window step: the next one checks it) that loops keeps the words up to
    # where it started to say them again, instead of paying for a decode at full padding.
    trim_loops: bool = False
    glossary: str = ""  # names and words to expect ("Alice, Bob, Northwind."), kept ahead of the prompt
    # With no language: read it on the window's own encoding, not at 30 s padding (an encoder pass that
    # costs what 3-4 decodes do), because a language its speaker is expected to speak only needs confirming.
    cheap_detection: bool = False


@dataclass
class WindowResult:
    words: list[tuple[str, float, float, float]]  # text, start, end (s, window-relative), probability
    no_speech_prob: float
    language: str
    language_prob: float = 1.0
    retried: bool = False  # the short window looped and was decoded again at full padding
    looped_tokens: int = 0  # tokens of a loop cut off the end (``WindowJob.trim_loops``)
    detected_at_full_padding: bool = False  # the language took its own encoder pass at 30 s
    seconds: float = 0.0  # wall time of the batch this window was part of
    tokens: list[int] = field(default_factory=list)

    @property
    def text(self) -> str:
        return "".join(w[0] for w in self.words).strip()


def token_cap(seconds: float) -> int:
    """New tokens allowed for a window: fast speech is ~4 tokens/s, so 7/s leaves room, loops hit it."""
    return int(10 + 7 * seconds)


def timestamp_room(seconds: float) -> int:
    """Timestamp tokens a window may add in timestamp mode: two per segment, a segment a second at most."""
    return int(2 + 2 * seconds)


def looks_degenerate(tokens: list[int], text: str, cap: int) -> bool:
    """A decoder loop: the cap was hit, the output ends by saying something again (a short n-gram 3+
    times, or 4+ tokens it already said: "Do you need any help with that? Do you need any help"), or
    the text compresses too well."""
    if len(tokens) >= cap or loop_start(tokens) is not None:
        return True
    data = text.encode("utf-8")
    return len(data) > 40 and len(data) / len(zlib.compress(data)) > 2.4


def loop_start(tokens: list[int]) -> int | None:
    """How many tokens to keep of an output that ends by saying something again: its first telling
    ("Hi, I'm Tom. Hi, I'm Tom." -> "Hi, I'm Tom."), or None if it does not end in a repeat."""
    for n in range(1, 4):
        if len(tokens) >= 3 * n and tokens[-n:] == tokens[-2 * n : -n] == tokens[-3 * n : -2 * n]:
            keep = len(tokens) - n
            while keep >= 2 * n and tokens[keep - 2 * n : keep - n] == tokens[-n:]:
                keep -= n
            return keep
    # A repeated phrase of any length 4+ ends with a repeated 4-gram: checking that one is enough.
    tail = tokens[-4:]
    told = [i for i in range(len(tokens) - 7) if tokens[i : i + 4] == tail]
    if not told:
        return None
    # The loop's period is the distance to the latest earlier telling of the last 4-gram; the loop
    # starts where the output last differs from itself one period back (a cap may cut the last telling).
    period = len(tokens) - 4 - told[-1]
    keep = len(tokens)
    while keep > period and tokens[keep - 1] == tokens[keep - 1 - period]:
        keep -= 1
    return keep


def _rows(encoded: Any, rows: list[int]) -> Any:
    """Some windows of an encoded batch, as a batch of their own."""
    import ctranslate2

    return ctranslate2.StorageView.from_array(np.asarray(encoded)[rows])


class ShortWindowWhisper:
    """A loaded Whisper model decoding batches of short windows (greedy, word times, language detection)."""

    def __init__(self, path: Path, *, threads: int, workers: int = 1, tail_s: float = 6.0, beam_size: int = 2) -> None:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")  # a local directory: never ask a hub
        os.environ.setdefault(*ONEDNN_CACHE)  # read by oneDNN when it compiles its first kernel
        one_blas_thread()  # the log-mel features must not depend on which model loaded first
        from faster_whisper import WhisperModel

        started = time.perf_counter()
        try:
            self._fw = WhisperModel(
                str(path), device="cpu", compute_type="int8", cpu_threads=threads, num_workers=workers
            )
        except Exception as exc:
            raise ModelLoadError(f"cannot load speech model at {path}: {exc}") from None
        self.path = path
        self.tail_s = tail_s
        # Two beams cost about what one does here (CTranslate2 batches them) and fix many
        # greedy slips: "The teeth are round servant" -> "It beats around 70" (NOTES.md voices).
        self.beam_size = beam_size
        self.multilingual = bool(self._fw.model.is_multilingual)
        self._tokenizers: dict[str | None, Any] = {}
        self._lock = threading.Lock()
        log.info("speech model %s loaded in %.2f s (%d threads)", path, time.perf_counter() - started, threads)

    @property
    def languages(self) -> list[str]:
        return list(self._fw.supported_languages)

    # --- decoding ---------------------------------------------------------------

    def decode(self, jobs: list[WindowJob]) -> list[WindowResult]:
        """Decode windows together (one encoder batch); a window that loops is retried at full padding
        (a tentative one keeps its first telling instead)."""
        if not jobs:
            return []
        started = time.perf_counter()
        frames = [len(job.audio) // HOP for job in jobs]
        width = encoder_width(max(frames), int(self.tail_s * 100))
        encoded = self._encode([job.audio for job in jobs], width)
        languages, full_detections = self._languages(jobs, encoded)
        results: list[WindowResult] = [None] * len(jobs)  # type: ignore[list-item]
        beams = [job.beam_size or self.beam_size for job in jobs]
        # One search width, one prompt form and one glossary per generate call: prompts in a batch are cut to
        # one length, and a glossary must not be cut for another session's shorter context.
        modes = [(beam, job.timestamps, job.glossary) for beam, job in zip(beams, jobs)]
        for mode in sorted(set(modes)):
            group = [i for i, m in enumerate(modes) if m == mode]
            view = encoded if len(group) == len(jobs) else _rows(encoded, group)
            decoded = self._generate([jobs[i] for i in group], view, [frames[i] for i in group],
                                     [languages[i] for i in group], mode[0])
            for i, result in zip(group, decoded):
                results[i] = result
        for i, result in enumerate(results):
            if looks_degenerate(result.tokens, result.text, token_cap(len(jobs[i].audio) / SAMPLE_RATE)):
                log.info("window %d looped (%r); decoding again at full padding", i, result.text[-60:])
                job = jobs[i]
                full = self._encode([job.audio], FULL_FRAMES)
                retry = self._generate([job], full, [frames[i]], [languages[i]], beams[i])[0]
                retry.retried = True
                results[i] = retry
        elapsed = time.perf_counter() - started
        for i, result in enumerate(results):
            result.seconds = elapsed
            result.detected_at_full_padding = i in full_detections
        return results

    def _encode(self, windows: list[np.ndarray], width: int) -> Any:
        import ctranslate2

        extractor = self._fw.feature_extractor
        batch = np.zeros((len(windows), extractor.mel_filters.shape[0], width), dtype=np.float32)
        for i, audio in enumerate(windows):
            # Silence appended as audio, as Whisper itself pads: the tail reads as digital silence.
            padded = np.concatenate([audio[: width * HOP], np.zeros(max(0, width * HOP - len(audio)), np.float32)])
            features = extractor(padded, padding=0)
            batch[i, :, : min(width, features.shape[-1])] = features[:, :width]
        return self._fw.model.encode(ctranslate2.StorageView.from_array(batch), to_cpu=False)

    def _languages(self, jobs: list[WindowJob], encoded: Any) -> tuple[list[tuple[str, float]], set[int]]:
        """The language of each window (given, or detected) and which windows were detected at 30 s padding.

        Detection reads a window padded to the full 30 s, as faster-whisper does: on a short
        tail it is far less sure, and wrong more often (2 s of German read as Thai).  That costs an
        encoder pass of 30 s (1 s of one core for base); ``WindowJob.cheap_detection`` reads the
        window's own encoding instead.
        """
        if not self.multilingual:
            return [("en", 1.0)] * len(jobs), set()
        out, full = [], set()
        for i, job in enumerate(jobs):
            if job.language:
                out.append((job.language, 1.0))
                continue
            if job.cheap_detection:
                own = encoded if len(jobs) == 1 else _rows(encoded, [i])
            else:
                own = self._encode([job.audio], FULL_FRAMES)
                full.add(i)
            token, prob = self._fw.model.detect_language(own)[0][0]
            out.append((token[2:-2], float(prob)))
        return out, full

    def _generate(
        self, jobs: list[WindowJob], encoded: Any, frames: list[int], languages: list[tuple[str, float]], beam: int
    ) -> list[WindowResult]:
        glossaries = [
            self.tokenizer(language).encode(" " + job.glossary.strip())[:MAX_GLOSSARY_TOKENS] if job.glossary else []
            for job, (language, _) in zip(jobs, languages)
        ]
        earlier = [
            self.tokenizer(language).encode(" " + job.prompt.strip())[-(MAX_PROMPT_TOKENS - len(glossary)):]
            if job.prompt.strip() else []
            for job, (language, _), glossary in zip(jobs, languages, glossaries)
        ]
        # CTranslate2 needs <|startoftranscript|> at one position in a batch: equal context lengths.  The
        # earlier text gives way (the batch shares one glossary).
        keep = min(len(glossary) + len(tokens) for glossary, tokens in zip(glossaries, earlier))
        prompts = []
        caps = []
        for job, (language, _), glossary, text in zip(jobs, languages, glossaries, earlier):
            tokenizer = self.tokenizer(language)
            context = [*glossary, *text[len(text) - (keep - len(glossary)) :]] if keep else []
            prompt = [tokenizer.sot_prev, *context] if keep else []
            mode = [] if job.timestamps else [tokenizer.no_timestamps]
            prompts.append([*prompt, *tokenizer.sot_sequence, *mode])
            caps.append(token_cap(len(job.audio) / SAMPLE_RATE))
        # Timestamp tokens come on top of the text's cap (looks_degenerate counts text tokens only).
        room = [cap + (timestamp_room(len(job.audio) / SAMPLE_RATE) if job.timestamps else 0)
                for job, cap in zip(jobs, caps)]
        generated = self._fw.model.generate(
            encoded,
            prompts,
            beam_size=beam,
            max_length=max(len(p) + r for p, r in zip(prompts, room)),
            return_scores=True,
            return_no_speech_prob=True,
            suppress_blank=True,
            suppress_tokens=[-1],
        )
        results = []
        for job, (language, prob), out, cap in zip(jobs, languages, generated, caps):
            tokenizer = self.tokenizer(language)
            tokens = [t for t in out.sequences_ids[0] if t < tokenizer.eot][:cap]
            looped = 0
            keep = loop_start(tokens) if job.trim_loops else None
            if keep is not None:
                tokens, looped = tokens[:keep], len(tokens) - keep
            results.append(WindowResult([], float(out.no_speech_prob), language, prob, tokens=tokens,
                                        looped_tokens=looped))
        self._align(results, encoded, frames)
        return results

    def _align(self, results: list[WindowResult], encoded: Any, frames: list[int]) -> None:
        """Word times from the alignment heads, through faster-whisper's own word-timestamp code."""
        todo = [i for i, r in enumerate(results) if r.tokens]
        if not todo:
            return
        if len(todo) < len(results):  # align only windows that said something
            encoded = _rows(encoded, todo)
        for language in {results[i].language for i in todo}:
            group = [k for k, i in enumerate(todo) if results[i].language == language]
            segments = [
                [{"tokens": results[todo[k]].tokens, "seek": 0, "start": 0.0, "end": frames[todo[k]] / 100}]
                for k in group
            ]
            view = encoded if len(group) == len(todo) else _rows(encoded, group)
            self._fw.add_word_timestamps(
                segments, self.tokenizer(language), view, [frames[todo[k]] for k in group],
                PREPEND_PUNCTUATIONS, APPEND_PUNCTUATIONS, 0.0,
            )
            for k, segment in zip(group, segments):
                results[todo[k]].words = [
                    (w["word"], float(w["start"]), float(w["end"]), float(w["probability"]))
                    for w in segment[0].get("words", [])
                ]

    def tokenizer(self, language: str | None) -> Any:
        from faster_whisper.tokenizer import Tokenizer

        key = language if self.multilingual else None
        with self._lock:
            if key not in self._tokenizers:
                self._tokenizers[key] = Tokenizer(
                    self._fw.hf_tokenizer, self.multilingual, task="transcribe", language=key or "en"
                )
            return self._tokenizers[key]

    # --- the offline reference --------------------------------------------------------

    def transcribe_offline(self, audio: np.ndarray | str, language: str | None, beam_size: int = 5) -> str:
        """The whole input, faster-whisper's way (30 s windows, beam search): the accuracy reference."""
        segments, _ = self._fw.transcribe(
            audio, language=language, beam_size=beam_size, temperature=0.0, vad_filter=True,
            condition_on_previous_text=False,
        )
        return " ".join(s.text.strip() for s in segments)
