"""Where the voice changes inside one utterance: binary segmentation of its partial embeddings.

The speech stage ends an utterance after 0.4 s of silence; people answering quickly, or over each other, leave
less, so one utterance can hold two voices or more (on samples/voices/dev, 30% of utterances did; labelling
each utterance by its main voice at best puts 85% of the speech under the right label).  The speaker stage
already embeds every utterance as overlapping 1.6 s partials; :func:`change_points` splits the utterance where
the mean embedding of the partials before a point and of those after it are least alike, when that similarity is
under ``threshold``, then splits each side again, keeping every side at least ``min_side`` partials long.

Pure: embeddings and times in, times out.
"""

from __future__ import annotations

import numpy as np

PARTIAL_S = 1.6  # a partial's length (streamtwin.speakers.encoder.PARTIAL_FRAMES)
DEFAULT_SPLIT_THRESHOLD = 0.5
MIN_SIDE = 1  # partials on either side of a change: one CAM++ partial (1.6 s) is enough to tell a voice


def _unit(v: np.ndarray) -> np.ndarray:
    return v / (np.linalg.norm(v) or 1.0)


def change_points(
    partials: np.ndarray,
    starts_s: list[float],
    threshold: float = DEFAULT_SPLIT_THRESHOLD,
    min_side: int = MIN_SIDE,
) -> list[float]:
    """Media times where the voice changes, in order ([] for one voice).  ``partials`` (n, d) are the
    embeddings of the partials that start at ``starts_s`` (seconds, ascending)."""
    if len(partials) != len(starts_s):
        raise ValueError("one start per partial")
    points: list[float] = []
    _split(np.asarray(partials, dtype=np.float64), list(starts_s), threshold, min_side, points)
    return sorted(points)


def _split(partials: np.ndarray, starts: list[float], threshold: float, min_side: int, out: list[float]) -> None:
    n = len(partials)
    best, best_k = threshold, -1
    for k in range(min_side, n - min_side + 1):
        # partial k-1 ends where partial k+1 begins, about: the two sides overlap by no more than half a partial
        left, right = partials[:k], partials[k:]
        similarity = float(_unit(left.mean(axis=0)) @ _unit(right.mean(axis=0)))
        if similarity < best:
            best, best_k = similarity, k
    if best_k < 0:
        return
    # the change is where partial k-1 (the left side's last) and partial k overlap: the middle of that overlap
    out.append((starts[best_k] + starts[best_k - 1] + PARTIAL_S) / 2)
    _split(partials[:best_k], starts[:best_k], threshold, min_side, out)
    _split(partials[best_k:], starts[best_k:], threshold, min_side, out)


def segments(start: float, end: float, points: list[float]) -> list[tuple[float, float]]:
    """``[start, end)`` cut at ``points``."""
    edges = [start, *[p for p in points if start < p < end], end]
    return list(zip(edges, edges[1:]))
