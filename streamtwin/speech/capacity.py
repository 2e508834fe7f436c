"""Measured speech capacity: how busy the speech engine's workers were lately.

Admission uses it to refuse a session the machine cannot hear in real time, rather than let
every session fall behind (``bench.sessions``: on 2 cores base holds one live session, tiny.en
four).  A speaking stream keeps about one decode in flight, so its share of the workers is what
the next session will cost too (a lone speaker's second, overlapped decode on a spare worker is
not counted: the engine leaves it out).  Plain bookkeeping: times are passed in.
"""

from __future__ import annotations


class BusyMeter:
    """Worker-seconds of decoding per time bucket; :meth:`peak` is the busiest recent bucket.

    The peak of the last minute, not the mean: sessions that are silent now will speak again.
    """

    def __init__(self, workers: int, bucket_s: float = 10.0, horizon_buckets: int = 6) -> None:
        self.workers = max(1, workers)
        self.bucket_s = bucket_s
        self.horizon_buckets = horizon_buckets
        self._busy: dict[int, float] = {}  # bucket index -> worker-seconds busy

    def add(self, start: float, end: float) -> None:
        """One worker decoded from ``start`` to ``end`` (seconds on one monotonic clock)."""
        at = start
        while at < end:
            index = int(at // self.bucket_s)
            until = min(end, (index + 1) * self.bucket_s)
            self._busy[index] = self._busy.get(index, 0.0) + (until - at)
            at = until
        oldest = int(end // self.bucket_s) - self.horizon_buckets
        for index in [i for i in self._busy if i < oldest]:
            del self._busy[index]

    def peak(self, now: float) -> float:
        """Highest share of the workers' time spent decoding in a bucket of the horizon (0 to 1)."""
        current = int(now // self.bucket_s)
        recent = [busy for index, busy in self._busy.items() if current - self.horizon_buckets < index <= current]
        return min(1.0, max(recent, default=0.0) / (self.workers * self.bucket_s))


def room_for_one_more(load: float, sessions: int, max_load: float) -> bool:
    """Would ``sessions + 1`` sessions stay under ``max_load``, each costing what one costs now?"""
    if sessions <= 0 or max_load <= 0:
        return True  # the first session is always heard; 0 turns the check off
    return load * (sessions + 1) / sessions <= max_load
