"""Media time from RTP timestamps: a gap in the packets stays a gap on the session's clock.

Counting received samples would compress time whenever packets are lost (the words after a
drop-out would be stamped too early).  :class:`AudioTimeline` compares each frame's timestamp
with where the previous frame ended and says how much silence is missing before it.  RTP
timestamps are 32-bit and wrap; a frame that lies behind (a duplicate, an overlap) adds nothing.
Gaps are capped so a forged timestamp cannot make the server invent hours of silence.
"""

from __future__ import annotations

RTP_WRAP = 1 << 32


class AudioTimeline:
    def __init__(self, max_gap_s: float, lead_in_s: float = 0.0):
        self.max_gap_s = max_gap_s
        self._lead_in_s = min(max(lead_in_s, 0.0), max_gap_s)
        self._expected: int | None = None

    def gap(self, pts: int | None, samples: int, rate: int) -> float:
        """Seconds of silence missing before a frame of ``samples`` at ``pts`` (ticks of 1/``rate``)."""
        if pts is None:
            return 0.0
        if self._expected is None:  # the first frame: only the lead-in (time the media was away)
            self._expected = (pts + samples) % RTP_WRAP
            return self._lead_in_s
        ahead = (pts - self._expected) % RTP_WRAP
        if ahead >= RTP_WRAP // 2:  # behind: keep the furthest end seen
            return 0.0
        self._expected = (pts + samples) % RTP_WRAP
        return min(ahead / rate, self.max_gap_s)
