"""The video stage: offer it every decoded frame, it emits the few worth attention.

Thin adapter around :class:`~streamtwin.vision.frames.FrameSampler`.  Per frame
it only downscales to a 64x48 RGB image with swscale (well under a millisecond
at 640x480) and computes cheap features; JPEG encoding happens only for the
rare frames the policy keeps.  ``offer`` is synchronous and never raises into
the caller's decode loop: a frame that cannot be converted is skipped with a
logged warning.

Busy-skipping: frames closer together in media time than ``1 / max_rate`` are
dropped before any work.  The gate uses media time, not the wall clock, so a
file processed as fast as possible samples exactly like the same file played
live, and nothing is ever queued.
"""

from __future__ import annotations

import base64
import logging
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction

import av
import numpy as np

from streamtwin.config import Config
from streamtwin.events import Event, VisionObservation
from streamtwin.vision.frames import FEATURE_HEIGHT, FEATURE_WIDTH, FrameSampler, compute_features, observation_text

log = logging.getLogger(__name__)

THUMBNAIL_MAX_SIDE = 160  # goes over the websocket in every observation
KEYFRAME_MAX_SIDE = 512  # for vision-capable LLMs: enough detail, few image tokens
JPEG_QUANTIZER = 5  # mjpeg qscale, 2 (best) .. 31 (worst)

# Frames above this many pixels are point-sampled to PREFILTER_SIZE before the
# area-averaging downscale: swscale's area filter over a whole 4K RGB frame costs
# ~25 ms, the two steps well under 2 ms, and the 64x48 features barely notice.
PREFILTER_ABOVE_PIXELS = 2 * 640 * 480
PREFILTER_SIZE = (4 * FEATURE_WIDTH, 4 * FEATURE_HEIGHT)
FAILURE_LOG_EVERY = 300  # a broken stream fails on every frame: warn on the first and then rarely

_ARRAY_FORMATS = {1: "gray", 3: "rgb24", 4: "rgba"}  # channels of a numpy image -> pixel format


@dataclass(frozen=True)
class Keyframe:
    """The latest kept frame as a JPEG, sized for a vision-capable LLM."""

    jpeg: bytes
    width: int
    height: int
    media_time: float
    kind: str
    note: str

    def data_url(self) -> str:
        """The image as an OpenAI-style ``image_url`` value."""
        return "data:image/jpeg;base64," + base64.b64encode(self.jpeg).decode("ascii")


@dataclass
class VisionStats:
    offered: int = 0  # frames handed to offer()/offer_array()
    analysed: int = 0  # frames that passed the rate gate and were looked at
    kept: int = 0  # frames that produced an observation
    failed: int = 0  # frames that could not be converted


class VisionStage:
    """Samples frames by content and emits :class:`VisionObservation` events.

    The session calls :meth:`offer` for every decoded frame from its media loop,
    with ``speaking`` from the speech stage's voice activity (keyframes come at
    ``vision_base_fps`` while someone speaks, ``vision_idle_fps`` otherwise).
    Observation ``width``/``height`` are those of the base64 JPEG ``thumbnail``.
    """

    def __init__(
        self,
        config: Config,
        emit: Callable[[Event], object],
        *,
        max_rate: float = 10.0,
        sampler: FrameSampler | None = None,
    ):
        if max_rate <= 0:
            raise ValueError("max_rate must be positive (frames analysed per second of media)")
        self._emit = emit
        self._slot_s = 1.0 / max_rate
        self._next_slot: float | None = None
        self.sampler = sampler or FrameSampler(
            base_interval_s=_interval(config.vision_base_fps),
            idle_interval_s=_interval(config.vision_idle_fps),
        )
        self._latest: Keyframe | None = None
        self.stats = VisionStats()

    def offer(self, frame: av.VideoFrame, media_time: float, speaking: bool = False) -> bool:
        """Look at one decoded frame (any size or pixel format); True if it was kept."""
        self.stats.offered += 1
        if not self._take_slot(media_time):
            return False
        return self._analyse(frame, lambda: frame, media_time, speaking)

    def offer_array(self, image: np.ndarray, media_time: float, speaking: bool = False) -> bool:
        """Like :meth:`offer` for a uint8 numpy image: HxW grey, HxWx3 RGB or HxWx4 RGBA."""
        self.stats.offered += 1
        if not self._take_slot(media_time):
            return False
        channels = 1 if image.ndim == 2 else image.shape[2] if image.ndim == 3 else 0
        pixel_format = _ARRAY_FORMATS.get(channels)
        if pixel_format is None or image.dtype != np.uint8 or min(image.shape[:2]) == 0:
            self._failed(f"unsupported array {image.dtype} {image.shape}")
            return False
        # Striding first keeps a 4K array from being copied whole on every frame.
        step = max(1, min(image.shape[0] // PREFILTER_SIZE[1], image.shape[1] // PREFILTER_SIZE[0]))
        try:
            small = av.VideoFrame.from_ndarray(np.ascontiguousarray(image[::step, ::step]), format=pixel_format)
        except (av.FFmpegError, ValueError) as exc:
            self._failed(str(exc))
            return False

        def full() -> av.VideoFrame:
            return av.VideoFrame.from_ndarray(np.ascontiguousarray(image), format=pixel_format)

        return self._analyse(small, full, media_time, speaking)

    def latest_keyframe(self) -> Keyframe | None:
        """The most recent kept frame (JPEG, longest side at most KEYFRAME_MAX_SIDE), if any."""
        return self._latest

    @staticmethod
    def describe(observation: VisionObservation) -> str:
        """Compact text for the LLM context: "[12.0s] scene change (score 0.81): mostly blue, bright"."""
        when = "" if observation.media_time is None else f"[{observation.media_time:.1f}s] "
        return when + observation_text(observation.kind, observation.score, observation.note)

    def _take_slot(self, media_time: float) -> bool:
        """Rate gate on media time: at most max_rate analyses per second, with a little slack for jitter."""
        slack = 0.1 * self._slot_s
        if self._next_slot is not None:
            if self._next_slot - self._slot_s - slack <= media_time < self._next_slot - slack:
                return False
            # Re-anchor after a gap in the input or when time ran backwards (new source, seek).
            anchored = self._next_slot - slack <= media_time < self._next_slot + self._slot_s
            self._next_slot = (self._next_slot if anchored else media_time) + self._slot_s
        else:
            self._next_slot = media_time + self._slot_s
        return True

    def _analyse(
        self,
        source: av.VideoFrame,
        full_frame: Callable[[], av.VideoFrame],
        media_time: float,
        speaking: bool,
    ) -> bool:
        """Features of ``source``, the policy's verdict, and on a keep the JPEGs of ``full_frame()``."""
        try:
            small = _downscale(source)
        except (av.FFmpegError, ValueError) as exc:
            self._failed(str(exc))
            return False
        self.stats.analysed += 1
        features = compute_features(small, self.sampler.previous)
        decision = self.sampler.decide(media_time, features, speaking)
        if decision is None:
            return False
        self.stats.kept += 1
        observation = VisionObservation(
            kind=decision.kind, score=decision.score, note=decision.note, media_time=media_time
        )
        try:
            keyframe_jpeg, keyframe = _encode_jpeg(full_frame(), KEYFRAME_MAX_SIDE)
            thumbnail_jpeg, thumbnail = _encode_jpeg(keyframe, THUMBNAIL_MAX_SIDE)
        except (av.FFmpegError, ValueError) as exc:
            # The policy has counted this frame as seen: still tell the context what it saw.
            log.warning("vision: no JPEG for the frame at %.2fs (%s); observation sent without image", media_time, exc)
        else:
            self._latest = Keyframe(
                keyframe_jpeg, keyframe.width, keyframe.height, media_time, decision.kind, decision.note
            )
            observation.thumbnail = base64.b64encode(thumbnail_jpeg).decode("ascii")
            observation.width, observation.height = thumbnail.width, thumbnail.height
        self._emit(observation)
        return True

    def _failed(self, reason: str) -> None:
        self.stats.failed += 1
        if self.stats.failed % FAILURE_LOG_EVERY == 1:
            log.warning(
                "vision: skipped a frame that could not be converted (%s); %d so far", reason, self.stats.failed
            )


def _interval(fps: float) -> float:
    """Seconds between keyframes for a rate in frames per second; 0 or less means never."""
    return 1.0 / fps if fps > 0 else float("inf")


def _downscale(frame: av.VideoFrame) -> np.ndarray:
    """The frame as a FEATURE_WIDTH x FEATURE_HEIGHT RGB array, whatever its size and format."""
    if frame.width * frame.height > PREFILTER_ABOVE_PIXELS:
        width, height = PREFILTER_SIZE
        frame = frame.reformat(width=width, height=height, interpolation="POINT")
    small = frame.reformat(width=FEATURE_WIDTH, height=FEATURE_HEIGHT, format="rgb24", interpolation="AREA")
    return small.to_ndarray()


def _fit(width: int, height: int, max_side: int) -> tuple[int, int]:
    """Scale to fit ``max_side`` keeping the aspect ratio; even sides, as 4:2:0 JPEG wants."""
    scale = min(1.0, max_side / max(width, height))
    return max(2, round(width * scale / 2) * 2), max(2, round(height * scale / 2) * 2)


def _encode_jpeg(frame: av.VideoFrame, max_side: int) -> tuple[bytes, av.VideoFrame]:
    """JPEG bytes of ``frame`` fitted into ``max_side``, and the scaled frame for further shrinking."""
    width, height = _fit(frame.width, frame.height, max_side)
    scaled = frame.reformat(width=width, height=height, format="yuvj420p", interpolation="AREA")
    encoder = av.CodecContext.create("mjpeg", "w")
    encoder.width = width
    encoder.height = height
    encoder.pix_fmt = "yuvj420p"
    encoder.time_base = Fraction(1, 1)
    encoder.qmin = encoder.qmax = JPEG_QUANTIZER
    packets = encoder.encode(scaled) + encoder.encode(None)
    return b"".join(bytes(packet) for packet in packets), scaled
