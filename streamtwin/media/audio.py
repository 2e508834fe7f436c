"""Audio normalisation: any PyAV audio frame becomes 16 kHz mono float32.

Every source (files, URLs, stdin, WebRTC tracks) hands decoded ``av.AudioFrame``
objects to one :class:`AudioConverter`, so the speech stage sees a single
format whatever the container, codec, rate or layout was.
"""

from __future__ import annotations

import av
import numpy as np

SAMPLE_RATE = 16_000


class AudioConverter:
    """Resamples with libswresample (keeps filter state across frames, so no clicks)."""

    def __init__(self) -> None:
        self._resampler = av.AudioResampler(format="flt", layout="mono", rate=SAMPLE_RATE)

    def convert(self, frame: av.AudioFrame) -> np.ndarray:
        return self._collect(self._resampler.resample(frame))

    def flush(self) -> np.ndarray:
        """Drain the resampler's delay line at the end of a stream."""
        return self._collect(self._resampler.resample(None))

    @staticmethod
    def _collect(frames: list[av.AudioFrame]) -> np.ndarray:
        if not frames:
            return np.zeros(0, dtype=np.float32)
        return np.concatenate([f.to_ndarray().reshape(-1) for f in frames]).astype(np.float32, copy=False)


class AudioBuffer:
    """A growing mono buffer addressed by media time, trimmed from the front.

    The recogniser decodes windows ``[start, end)`` of recent audio; this keeps
    just enough samples for that and maps media seconds to sample offsets.
    """

    def __init__(self, rate: int = SAMPLE_RATE):
        self.rate = rate
        self._data = np.zeros(0, dtype=np.float32)
        self._offset = 0  # absolute sample index of _data[0]

    @property
    def end_time(self) -> float:
        return (self._offset + len(self._data)) / self.rate

    def append(self, samples: np.ndarray) -> None:
        self._data = np.concatenate([self._data, samples.astype(np.float32, copy=False)])

    def slice(self, start: float, end: float) -> np.ndarray:
        lo = max(int(round(start * self.rate)) - self._offset, 0)
        hi = max(int(round(end * self.rate)) - self._offset, lo)
        return self._data[lo:hi]

    def trim_before(self, time: float) -> None:
        cut = int(round(time * self.rate)) - self._offset
        if cut > 0:
            self._data = self._data[cut:]
            self._offset += cut
