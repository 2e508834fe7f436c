"""Content-driven frame sampling: which video frames are worth anyone's attention.

A live camera sends 15-60 frames a second, nearly all of them repeats of the
last.  The LLM and the browser want a handful: one when the scene cuts, one
when something keeps moving, and an occasional fresh look while someone talks.
This module decides which, from cheap statistics of a tiny downscaled frame.
It is pure numpy with no clock: the adapter passes media time in.

Semantics of :meth:`FrameSampler.decide` (a kept frame is one it returns a
:class:`Decision` for):

* The first usable frame is kept as a ``keyframe``.
* ``scene_change``: the frame differs by at least ``scene_threshold`` from both
  the last kept frame and the previous frame (an abrupt cut, not a slow drift).
  It is kept at once, unless a frame was kept less than ``min_gap_s`` ago: then
  the cut is held and reported when the gap has passed, if the picture still
  differs from the last kept one.
* ``motion``: the smoothed share of changing pixels stays at or above
  ``motion_threshold`` for ``motion_sustain_s``.  One per episode; the episode
  ends when the level falls below half the threshold.
* ``keyframe``: the content changed since the last kept frame (at least
  ``duplicate_threshold`` of its pixels) and ``base_interval_s`` (while someone
  speaks) or ``idle_interval_s`` (otherwise) has passed since it.  A picture
  that does not change is never repeated: a still video yields one keyframe.
* Quality gate: a dark frame, or a flat (blank, featureless) and dim one, is
  never kept on its own merits.  Light is judged on each pixel's brightest
  channel, so a saturated colour counts as light: a solid blue slide is a scene
  (a cut to it is a ``scene_change`` at once), a dim grey or black blank is a
  covered lens.  When such frames last ``covered_after_s``, one frame is kept
  with the note "camera appears covered or dark" (kind ``scene_change``, or
  ``keyframe`` if nothing was kept before).  The camera counts as back once
  usable frames last ``uncover_after_s``: that frame is kept as a
  ``scene_change``, and flashes shorter than that are ignored, so flickering
  darkness gives one note, not a stream.  A blackout shorter than
  ``covered_after_s`` (a hand passing the lens) leaves no trace.
* Media time running backwards (a new source, a seek) restarts the timers.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

FEATURE_WIDTH = 64
FEATURE_HEIGHT = 48
HISTOGRAM_BINS = 32
HASH_GRID = 8  # the average hash compares an 8x8 grid of block means: 64 bits
HASH_MARGIN = 4.0  # grey levels a block must exceed the mean by to set its bit (keeps flat frames at 0)
CHANGE_LEVEL = 16  # grey levels a pixel must move by to count as changed (above codec and sensor noise)
MOTION_SMOOTHING_S = 0.3  # time constant of the motion level: rides over duplicated frames

LOW_CONTRAST = 0.08  # below this the summary says "low contrast"
BLURRY_SHARPNESS = 0.002  # below this (and with contrast) the summary says "blurry"

COVERED_NOTE = "camera appears covered or dark"

_HUE_NAMES = (  # upper bound of the hue range in degrees, name
    (15, "red"),
    (45, "orange"),
    (70, "yellow"),
    (165, "green"),
    (195, "cyan"),
    (260, "blue"),
    (300, "purple"),
    (345, "magenta"),
    (361, "red"),
)
_SATURATED_CHROMA = 48  # max - min channel spread that makes a pixel "coloured"
_COLOURED_SHARE = 0.3  # share of coloured pixels before the frame is called coloured at all
_DOMINANT_SHARE = 0.5  # share of coloured pixels one hue needs to be "mostly" that hue


@dataclass(frozen=True, eq=False)
class FrameFeatures:
    """Cheap statistics of one tiny frame; all scores are on a 0..1 scale."""

    gray: np.ndarray  # the small grey image itself (uint8), for pixel-wise comparisons
    histogram: np.ndarray  # HISTOGRAM_BINS shares of grey levels, summing to 1
    ahash: int  # 64-bit average hash: bit set where an 8x8 block is brighter than the frame
    brightness: float  # mean grey level
    brightest_channel: float  # mean of each pixel's brightest channel: a saturated blue is dim in grey, bright here
    contrast: float  # standard deviation of the grey levels
    sharpness: float  # variance of a 4-neighbour Laplacian: low for blurred or blank frames
    motion: float  # share of pixels that changed since the previous frame (0 for the first)
    colour: str  # dominant hue ("blue"), "colourful", "grey"; "" when only grey was given


@dataclass(frozen=True)
class Decision:
    """Why a frame was kept: kind is scene_change, motion or keyframe."""

    kind: str
    score: float
    note: str


def compute_features(image: np.ndarray, previous: FrameFeatures | None = None) -> FrameFeatures:
    """Features of a small uint8 image (HxW grey or HxWx3 RGB), motion measured against ``previous``."""
    if image.ndim == 3:
        rgb = image[:, :, :3].astype(np.uint16)
        gray = ((77 * rgb[:, :, 0] + 150 * rgb[:, :, 1] + 29 * rgb[:, :, 2]) >> 8).astype(np.uint8)
        colour = _colour_name(rgb)
        # Pairwise maximum: a reduction over the 3-long last axis is ~8x slower here.
        brightest_channel = float(np.maximum(np.maximum(rgb[:, :, 0], rgb[:, :, 1]), rgb[:, :, 2]).mean()) / 255.0
    else:
        gray = np.asarray(image, dtype=np.uint8)
        colour = ""
        brightest_channel = float(gray.mean()) / 255.0
    levels = gray.astype(np.float32)
    histogram = np.bincount((gray >> 3).ravel(), minlength=HISTOGRAM_BINS).astype(np.float32)
    histogram /= histogram.sum()
    laplacian = (
        4 * levels[1:-1, 1:-1] - levels[:-2, 1:-1] - levels[2:, 1:-1] - levels[1:-1, :-2] - levels[1:-1, 2:]
    ) / 255.0
    motion = 0.0
    if previous is not None and previous.gray.shape == gray.shape:
        motion = changed_fraction(gray, previous.gray)
    return FrameFeatures(
        gray=gray,
        histogram=histogram,
        ahash=_average_hash(levels),
        brightness=float(levels.mean()) / 255.0,
        brightest_channel=brightest_channel,
        contrast=float(levels.std()) / 255.0,
        sharpness=float(laplacian.var()) if laplacian.size else 0.0,
        motion=motion,
        colour=colour,
    )


def _average_hash(levels: np.ndarray) -> int:
    rows = levels.shape[0] // HASH_GRID * HASH_GRID
    cols = levels.shape[1] // HASH_GRID * HASH_GRID
    if rows == 0 or cols == 0:
        return 0
    blocks = levels[:rows, :cols].reshape(HASH_GRID, rows // HASH_GRID, HASH_GRID, cols // HASH_GRID)
    means = blocks.mean(axis=(1, 3))
    bits = means > means.mean() + HASH_MARGIN
    return int.from_bytes(np.packbits(bits.ravel()).tobytes(), "big")


def _build_colour_table() -> tuple[np.ndarray, tuple[str, ...]]:
    """Hue class (0: not clearly coloured) of every RGB colour quantised to 4 bits a channel."""
    names = tuple(dict.fromkeys(name for _, name in _HUE_NAMES))
    levels = np.arange(16, dtype=np.float32) * 16 + 8
    r, g, b = np.meshgrid(levels, levels, levels, indexing="ij")
    chroma = np.maximum(np.maximum(r, g), b) - np.minimum(np.minimum(r, g), b)
    hue = np.degrees(np.arctan2(math.sqrt(3) * (g - b), 2 * r - g - b)) % 360
    bounds = [bound for bound, _ in _HUE_NAMES]
    hue_class = np.array([names.index(name) + 1 for _, name in _HUE_NAMES])[np.searchsorted(bounds, hue, side="right")]
    table = np.where(chroma >= _SATURATED_CHROMA, hue_class, 0).astype(np.uint8)
    return table.ravel(), names


_COLOUR_TABLE, _COLOUR_NAMES = _build_colour_table()


def _colour_name(rgb: np.ndarray) -> str:
    """Name the dominant hue among clearly coloured pixels; "grey" when there are few."""
    quantised = (rgb[:, :, 0] >> 4) << 8 | (rgb[:, :, 1] >> 4) << 4 | rgb[:, :, 2] >> 4
    counts = np.bincount(_COLOUR_TABLE[quantised].ravel(), minlength=len(_COLOUR_NAMES) + 1)
    coloured = int(counts[1:].sum())
    if coloured < _COLOURED_SHARE * quantised.size:
        return "grey"
    dominant = int(counts[1:].argmax())
    return _COLOUR_NAMES[dominant] if counts[dominant + 1] >= _DOMINANT_SHARE * coloured else "colourful"


def histogram_distance(a: FrameFeatures, b: FrameFeatures) -> float:
    """Total variation between grey-level histograms: 0 same tones, 1 disjoint."""
    return 0.5 * float(np.abs(a.histogram - b.histogram).sum())


def hash_distance(a: FrameFeatures, b: FrameFeatures) -> float:
    """Share of differing average-hash bits: catches layout changes with similar tones."""
    return (a.ahash ^ b.ahash).bit_count() / (HASH_GRID * HASH_GRID)


def scene_distance(a: FrameFeatures, b: FrameFeatures) -> float:
    """How different two pictures are: tones or layout, whichever changed more."""
    return max(histogram_distance(a, b), hash_distance(a, b))


def changed_fraction(a: np.ndarray, b: np.ndarray) -> float:
    """Share of pixels that moved by more than CHANGE_LEVEL grey levels."""
    difference = np.abs(a.astype(np.int16) - b.astype(np.int16))
    return float((difference > CHANGE_LEVEL).mean())


def summarize(features: FrameFeatures, motion: float | None = None) -> str:
    """A few words on a frame, e.g. "mostly blue, bright, little motion" (no motion words without ``motion``)."""
    words = []
    if features.colour in ("grey", "colourful"):
        words.append(features.colour)
    elif features.colour:
        words.append(f"mostly {features.colour}")
    light = features.brightest_channel  # the measure the covered-camera gate uses: a vivid blue is not "dark"
    if light < 0.1:
        words.append("very dark")
    elif light < 0.3:
        words.append("dark")
    elif light > 0.65:
        words.append("bright")
    else:
        words.append("medium light")
    if features.contrast < LOW_CONTRAST:
        words.append("low contrast")
    elif features.sharpness < BLURRY_SHARPNESS:
        words.append("blurry")
    if motion is not None:
        words.append("little motion" if motion < 0.02 else "some motion" if motion < 0.15 else "lots of motion")
    return ", ".join(words)


def observation_text(kind: str, score: float, note: str = "") -> str:
    """One observation as compact text for a prompt: "scene change (score 0.81): mostly blue, bright"."""
    label = f"{kind.replace('_', ' ')} (score {score:.2f})"
    return f"{label}: {note}" if note else label


class FrameSampler:
    """Decides which frames to keep; see the module docstring for the rules."""

    def __init__(
        self,
        base_interval_s: float = 1.0,
        idle_interval_s: float = 5.0,
        scene_threshold: float = 0.35,
        duplicate_threshold: float = 0.02,
        motion_threshold: float = 0.15,
        motion_sustain_s: float = 1.0,
        min_gap_s: float = 0.5,
        dark_level: float = 0.06,
        dim_level: float = 0.3,
        flat_contrast: float = 0.02,
        flat_sharpness: float = 0.0005,
        covered_after_s: float = 1.5,
        uncover_after_s: float = 0.5,
    ):
        self.base_interval_s = base_interval_s
        self.idle_interval_s = idle_interval_s
        self.scene_threshold = scene_threshold
        self.duplicate_threshold = duplicate_threshold
        self.motion_threshold = motion_threshold
        self.motion_sustain_s = motion_sustain_s
        self.min_gap_s = min_gap_s
        self.dark_level = dark_level
        self.dim_level = dim_level
        self.flat_contrast = flat_contrast
        self.flat_sharpness = flat_sharpness
        self.covered_after_s = covered_after_s
        self.uncover_after_s = uncover_after_s

        self.last_kept: FrameFeatures | None = None
        self._last_kept_t = -math.inf
        self.previous: FrameFeatures | None = None  # the last frame decided on, kept or not
        self._last_t: float | None = None
        self._held_cut = False
        self._covered = False  # a covered note went out and the picture has not been back for long
        self._dark_since: float | None = None
        self._light_since: float | None = None
        self.motion_level = 0.0
        self._motion_since: float | None = None
        self._motion_reported = False

    def obscured(self, features: FrameFeatures) -> bool:
        """Very dark, or blank and dim: nothing for anyone to look at.

        A blank but light frame (a solid colour slide, a white wall) is left to the
        scene rules: reporting it as a covered camera would also report it late.
        """
        light = features.brightest_channel
        flat = features.contrast < self.flat_contrast and features.sharpness < self.flat_sharpness
        return light < self.dark_level or (flat and light < self.dim_level)

    def decide(self, t: float, features: FrameFeatures, speaking: bool) -> Decision | None:
        """Look at the frame shown at media time ``t``; return a Decision to keep it, else None."""
        if self._last_t is not None and t < self._last_t:
            self._restart_timers()
        dt = 0.0 if self._last_t is None else t - self._last_t
        self._last_t = t
        previous, self.previous = self.previous, features

        if self.obscured(features):
            self._light_since = None
            return self._dark(t, features)
        self._dark_since = None
        if self._covered:
            if self._light_since is None:
                self._light_since = t
            if t - self._light_since < self.uncover_after_s:
                return None  # a flash in the dark is not the camera coming back
            self._covered = False
            self._held_cut = True  # the picture is back: report it as a change from the dark one

        if self.last_kept is None:
            return self._keep(t, features, "keyframe", 1.0, summarize(features))

        novelty = scene_distance(features, self.last_kept)
        jump = 0.0 if previous is None else scene_distance(features, previous)
        if novelty < self.scene_threshold:
            self._held_cut = False  # the picture went back to what was kept: nothing to report
        elif jump >= self.scene_threshold or self._held_cut:
            if t - self._last_kept_t < self.min_gap_s:
                self._held_cut = True
                return None
            self._reset_motion()  # a cut changes every pixel once; that is not motion
            return self._keep(t, features, "scene_change", novelty, summarize(features))

        if self._motion_sustained(t, dt, features.motion):
            self._motion_reported = True
            return self._keep(t, features, "motion", self.motion_level, summarize(features, self.motion_level))

        interval = self.base_interval_s if speaking else self.idle_interval_s
        if t - self._last_kept_t >= interval:
            changed = changed_fraction(features.gray, self.last_kept.gray)
            if changed >= self.duplicate_threshold:
                return self._keep(t, features, "keyframe", changed, summarize(features, self.motion_level))
        return None

    def _keep(self, t: float, features: FrameFeatures, kind: str, score: float, note: str) -> Decision:
        self.last_kept = features
        self._last_kept_t = t
        self._held_cut = False
        return Decision(kind=kind, score=round(min(max(score, 0.0), 1.0), 3), note=note)

    def _dark(self, t: float, features: FrameFeatures) -> Decision | None:
        """An obscured frame: one covered note once the darkness has lasted, else nothing."""
        self._reset_motion()
        if self._dark_since is None:
            self._dark_since = t
        if self._covered or t - self._dark_since < self.covered_after_s:
            return None
        self._covered = True
        if self.last_kept is None:
            return self._keep(t, features, "keyframe", 1.0, COVERED_NOTE)
        return self._keep(t, features, "scene_change", scene_distance(features, self.last_kept), COVERED_NOTE)

    def _motion_sustained(self, t: float, dt: float, motion: float) -> bool:
        """Smooth the per-frame motion over time; True once per sustained episode."""
        weight = 1.0 - math.exp(-max(dt, 0.0) / MOTION_SMOOTHING_S)
        self.motion_level += (motion - self.motion_level) * weight
        if self.motion_level < self.motion_threshold / 2:
            self._motion_since = None
            self._motion_reported = False
        elif self.motion_level >= self.motion_threshold and self._motion_since is None:
            self._motion_since = t
        return (
            not self._motion_reported
            and self._motion_since is not None
            and self.motion_level >= self.motion_threshold
            and t - self._motion_since >= self.motion_sustain_s
        )

    def _reset_motion(self) -> None:
        self.motion_level = 0.0
        self._motion_since = None

    def _restart_timers(self) -> None:
        self._last_kept_t = -math.inf
        self._dark_since = None
        self._light_since = None
        self._held_cut = False
        self._reset_motion()
