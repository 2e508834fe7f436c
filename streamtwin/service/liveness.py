"""What a live session waits for, and when a wait has gone on too long.  No I/O; time is passed in.

A publisher that joined must offer within ``offer_s``; once answered, audio must arrive within
``first_media_s`` and may then pause at most ``idle_media_s``.  A publisher whose websocket drops,
or whose media connection fails, has ``resume_grace_s`` to come back (a resume hello, or a new
offer) before the session ends.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Timeouts:
    offer_s: float = 20.0
    first_media_s: float = 15.0
    idle_media_s: float = 20.0
    resume_grace_s: float = 15.0


class Liveness:
    def __init__(self, timeouts: Timeouts, now: float):
        self.timeouts = timeouts
        self._offer_wait_since: float | None = now
        self._answered_at: float | None = None
        self._last_media: float | None = None
        self._away_since: float | None = None
        self._lost_since: float | None = None

    @property
    def away(self) -> bool:
        return self._away_since is not None

    def publisher_left(self, now: float) -> None:
        self._away_since = now

    def publisher_back(self) -> None:
        self._away_since = None

    def answered(self, now: float) -> None:
        self._offer_wait_since = self._lost_since = self._last_media = None
        self._answered_at = now

    def media(self, now: float) -> None:
        self._last_media = now

    def media_lost(self, now: float) -> None:
        """The media connection failed: a new offer may follow within the grace period."""
        self._answered_at = self._last_media = None
        self._lost_since = now

    def verdict(self, now: float) -> tuple[str, str] | None:
        """``(error code, message)`` once the session should end, else None."""
        t = self.timeouts
        if self._away_since is not None and now - self._away_since > t.resume_grace_s:
            return "publisher_left", f"the publisher disconnected and did not resume within {t.resume_grace_s:g} s"
        if self._lost_since is not None and now - self._lost_since > t.resume_grace_s:
            return "media_failed", f"the media connection failed and no new offer came within {t.resume_grace_s:g} s"
        if self._offer_wait_since is not None and now - self._offer_wait_since > t.offer_s:
            return "offer_timeout", f"no offer within {t.offer_s:g} s of the hello"
        if self._answered_at is not None and self._last_media is None and now - self._answered_at > t.first_media_s:
            return "no_media", f"no audio arrived within {t.first_media_s:g} s of the answer"
        if self._last_media is not None and now - self._last_media > t.idle_media_s:
            return "media_timeout", f"no audio for {t.idle_media_s:g} s"
        return None
