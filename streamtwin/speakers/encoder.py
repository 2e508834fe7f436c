"""Voice embeddings of an utterance as it is spoken: CAM++ on overlapping 1.6 s windows ("partials").

The speaker stage embeds an utterance while it is still going on, so it cuts the speech into partials: windows
of 160 frames of 10 ms (1.6 s) starting every 77 frames (1.3 per second, about half overlapping), the last kept
if at least 75% of it is speech (cut short there, never padded: CAM++ would hear padding as silence).  Each
partial is embedded alone by :class:`~streamtwin.speakers.campplus.Campplus` (its features are normalised per
window), so a partial's embedding never changes as the utterance grows; an utterance's (or a stretch of one
voice's) embedding is the mean of its partials', L2-normalised.  :mod:`streamtwin.speakers.turns` finds where
the voice changes inside an utterance from the same partials.

Why CAM++ and not resemblyzer (the encoder before it): on recordings of real people its same-voice and
different-voice similarities barely overlap (samples/voices/dev, whole turns: same voice 0.46-0.83 at the 5th and
95th percentiles, different voices 0.03-0.31; resemblyzer 0.73-0.93 and 0.47-0.72), docs/benchmarks.md.

Pure computation, no I/O after loading: callers run it off the event loop.
"""

from __future__ import annotations

import functools
import logging

import numpy as np

from streamtwin.numpy_threads import one_blas_thread
from streamtwin.speakers.campplus import (
    EMBEDDING_SIZE,
    FRAME,
    SAMPLE_RATE,
    Campplus,
    EncoderUnavailable,
    fbank,
    weights_path,
)

__all__ = ["EMBEDDING_SIZE", "EncoderUnavailable", "HOP", "SAMPLE_RATE", "VoiceEncoder", "average", "complete_partials",
           "partial_starts", "shared_encoder", "weights_path"]

log = logging.getLogger(__name__)

HOP = 160  # samples in a 10 ms frame
PARTIAL_FRAMES = 160  # 1.6 s
PARTIAL_STEP = 77  # frames between partials' starts: 1.3 partials a second
MIN_COVERAGE = 0.75


def partial_starts(n_samples: int) -> list[int]:
    """First frame of each partial of an utterance of ``n_samples``: every 77 frames, the last one kept if the
    utterance covers 75% of it (or if it is the only one)."""
    n_frames = int(np.ceil((n_samples + 1) / HOP))
    steps = max(1, n_frames - PARTIAL_FRAMES + PARTIAL_STEP + 1)
    starts = list(range(0, steps, PARTIAL_STEP))
    coverage = (n_samples - starts[-1] * HOP) / (PARTIAL_FRAMES * HOP)
    if coverage < MIN_COVERAGE and len(starts) > 1:
        starts.pop()
    return starts


def complete_partials(n_samples: int) -> list[int]:
    """Partials wholly inside ``n_samples`` so far: they stay the same however the utterance grows."""
    return [s for s in partial_starts(n_samples) if (s + PARTIAL_FRAMES) * HOP <= n_samples]


def average(partials: np.ndarray) -> np.ndarray:
    """A stretch's embedding: the mean of its partials' embeddings, L2-normalised."""
    mean = np.mean(partials, axis=0)
    return (mean / np.linalg.norm(mean)).astype(np.float32)


class VoiceEncoder:
    """Partials in, unit embeddings out; thread-safe (no state between calls)."""

    def __init__(self, network: Campplus | None = None) -> None:
        self._network = network if network is not None else Campplus()

    def embed_partials(self, wav: np.ndarray, starts: list[int]) -> np.ndarray:
        """The partials of 16 kHz mono ``wav`` (in [-1, 1]) beginning at frames ``starts``: (len(starts), 192).
        Partials of one length go through the network as one batch; one shorter than 25 ms stays zero."""
        out = np.zeros((len(starts), EMBEDDING_SIZE), dtype=np.float32)
        pieces = [wav[s * HOP : (s + PARTIAL_FRAMES) * HOP] for s in starts]
        by_length: dict[int, list[int]] = {}
        for i, piece in enumerate(pieces):
            if len(piece) >= FRAME:
                by_length.setdefault(len(piece), []).append(i)
        for members in by_length.values():
            raw = self._network.forward(np.stack([fbank(pieces[i]) for i in members]))
            out[members] = raw / np.maximum(np.linalg.norm(raw, axis=1, keepdims=True), 1e-12)
        return out

    def embed_utterance(self, wav: np.ndarray) -> np.ndarray:
        """The embedding of a whole utterance (speech already cut by a VAD): the mean of its partials'."""
        return average(self.embed_partials(wav, partial_starts(len(wav))))


@functools.lru_cache(maxsize=1)
def shared_encoder() -> VoiceEncoder:
    """One encoder per process (28 MB of weights, read once)."""
    one_blas_thread()
    encoder = VoiceEncoder()
    log.info("speaker encoder (CAM++) loaded from %s", weights_path())
    return encoder
