"""What a language model gets to see of the video: rationed images, and an honest twin scene.

Images are the dear part of a prompt (hundreds to thousands of tokens each, and
providers cap images per request and per minute), while the text observations in
the context already say what changed and when.  So :class:`ImageBudget` rations
the keyframe JPEGs that go to a vision-capable model:

* only frames newer than the last image sent are candidates: a picture goes out
  once, and a still scene costs nothing after its first keyframe;
* at most ``per_request`` images in one prompt: the newest scene changes, then
  the newest frame if it is a plain keyframe (or motion) and no image went out for
  ``2 * window_s / per_minute``.  Plain keyframes come about once a second
  while someone speaks and say little the text does not; paced like this they
  use at most half the budget, and a scene change always finds room;
* at most ``per_minute`` images in any ``window_s``, counted when they are sent,
  on the caller's clock (wall time: it is the provider's rate and bill being
  protected, and a file read faster than real time must not send more);
* a JPEG larger than ``max_bytes`` is never sent (its text observation still is);
* a request cancelled or failed before it answered gives its images back: what
  the model never got to answer about is still news (it has spent budget, though).

:func:`settle_scene` decides the twin's ``scene`` section after an update.

Plain module: no I/O, no clock; ``now`` is passed in.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

SCENE_CHANGE = "scene_change"

T = TypeVar("T")


@dataclass(frozen=True)
class _Candidate(Generic[T]):
    item: T
    media_time: float
    scene_change: bool


class ImageBudget(Generic[T]):
    """Chooses which offered keyframes (opaque items of type ``T``) go into the next prompt."""

    def __init__(
        self,
        per_minute: int,
        *,
        per_request: int = 2,
        max_bytes: int = 256_000,
        window_s: float = 60.0,
        max_pending: int = 8,
    ) -> None:
        if per_request < 1 or max_pending < 1:
            raise ValueError("per_request and max_pending must be >= 1")
        self.per_minute = per_minute
        self.per_request = per_request
        self.max_bytes = max_bytes
        self.window_s = window_s
        self.max_pending = max_pending
        self._pending: list[_Candidate[T]] = []  # oldest first
        self._in_flight: dict[int, _Candidate[T]] = {}  # id(item) -> candidate, until the request settles
        self._sent_at: deque[float] = deque()
        self._newest_offered = -math.inf
        self._plain_after = -math.inf  # when a plain keyframe may go again

    def offer(self, item: T, media_time: float, kind: str, size_bytes: int) -> bool:
        """A new keyframe shown at ``media_time``; True if it became a candidate."""
        if self.per_minute <= 0 or size_bytes > self.max_bytes:
            return False
        if media_time == self._newest_offered:
            return False  # the same frame again
        if media_time < self._newest_offered:
            self._pending.clear()  # media time ran backwards (a new source, a seek): a new timeline
        self._newest_offered = media_time
        # Of the plain keyframes only the newest can ever go: keep the scene changes and this one.
        self._pending = [c for c in self._pending if c.scene_change]
        self._pending.append(_Candidate(item, media_time, kind == SCENE_CHANGE))
        del self._pending[: -self.max_pending]
        return True

    def available(self, now: float) -> int:
        """Images the per-minute budget allows at ``now``."""
        while self._sent_at and self._sent_at[0] <= now - self.window_s:
            self._sent_at.popleft()
        return max(0, self.per_minute - len(self._sent_at))

    @property
    def plain_gap_s(self) -> float:
        """Least time between an image and the next plain (not scene change) keyframe."""
        return 2 * self.window_s / self.per_minute if self.per_minute > 0 else math.inf

    def take(self, now: float) -> list[T]:
        """The images for a prompt sent at ``now``, oldest first; they count as sent.

        Candidates older than the newest one taken are dropped: the model has seen a later picture.
        """
        room = min(self.per_request, self.available(now))
        if room == 0 or not self._pending:
            return []
        chosen = [c for c in self._pending if c.scene_change][-room:]
        newest = self._pending[-1]
        if len(chosen) < room and not newest.scene_change and now >= self._plain_after:
            chosen.append(newest)
        if not chosen:
            return []
        self._pending = [c for c in self._pending if c.media_time > chosen[-1].media_time]
        self._sent_at.extend([now] * len(chosen))
        self._plain_after = now + self.plain_gap_s
        for candidate in chosen:
            self._in_flight[id(candidate.item)] = candidate
        return [c.item for c in chosen]

    def settle(self, items: Sequence[T], answered: bool) -> None:
        """The request that carried ``items`` ended; if it never answered they are candidates again."""
        returned = [self._in_flight.pop(id(item)) for item in items if id(item) in self._in_flight]
        if not answered and returned:
            merged = sorted(self._pending + returned, key=lambda c: c.media_time)
            self._pending = merged[-self.max_pending :]


@dataclass(frozen=True)
class Sighting:
    """The newest observation that set the scene (the first frame, or a scene change) as compact text."""

    at: float
    text: str


def settle_scene(
    written: dict[str, Any], previous: dict[str, Any], sighting: Sighting | None, context_time: float
) -> dict[str, Any]:
    """The twin's ``scene`` after an update: the model's words when it changed them, else the newest sighting.

    Models do not know media time, and small text-only ones leave the scene empty or
    copy it unchanged after the picture changed, while the observations say exactly
    what the camera showed and when.  So ``updated_at`` never comes from the model: a
    description the model changed is stamped with ``context_time`` (the media time its
    prompt reached); an empty or unchanged one gives way to a sighting newer than its
    stamp.  With no sighting at all there is no camera to describe: the scene stays.
    """
    if sighting is None:
        return dict(previous)
    description = written.get("description") or ""
    if description and description != previous["description"]:
        return {"description": description, "updated_at": context_time}
    if previous["updated_at"] is None or sighting.at > previous["updated_at"]:
        return {"description": sighting.text, "updated_at": sighting.at}
    return dict(previous)
