"""One publisher of a live session: its connection, resume token, media connection and liveness.

A session has one (the usual case, and every WHIP session) or several (a room: each named, each
its own speech and vision streams, see streamtwin/rooms/room.py).  A participant outlives its
connection by the resume grace period; a failed media connection may be replaced by a new offer.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any, Protocol

import av
import numpy as np

from streamtwin.service.channel import ClientChannel
from streamtwin.config import Config
from streamtwin.service.metrics import ServiceMetrics
from streamtwin.service.access import new_secret
from streamtwin.service.liveness import Liveness, Timeouts
from streamtwin.service.protocol import CLOSE_NORMAL, Refusal
from streamtwin.service.webrtc import OfferError, WebRTCIngest

log = logging.getLogger(__name__)


class MediaSink(Protocol):
    """Where a participant's media goes: the session itself, or their stream in a room."""

    id: str
    bus: Any

    async def push_audio(self, samples: np.ndarray) -> None: ...

    def push_video(self, frame: av.VideoFrame | np.ndarray, media_time: float) -> None: ...

    def hint_language(self, language: str) -> None: ...


def timeouts(config: Config) -> Timeouts:
    return Timeouts(
        offer_s=config.offer_timeout_s,
        first_media_s=config.first_media_timeout_s,
        idle_media_s=config.idle_media_timeout_s,
        resume_grace_s=config.resume_grace_s,
    )


class Participant:
    def __init__(
        self,
        sink: MediaSink,
        *,
        config: Config,
        metrics: ServiceMetrics,
        ice_servers: Callable[[], list[Any]],
        name: str = "",
        address: str = "",
    ):
        self.sink = sink
        self.name = name  # "" for the one publisher of a session that is not a room
        self.address = address
        self.channel: ClientChannel | None = None
        self.resume_token = new_secret()
        self.ingest: WebRTCIngest | None = None
        self.liveness = Liveness(timeouts(config), time.time())
        self.resumed = False  # may replace its media once after a resume
        self._config = config
        self._metrics = metrics
        self._ice_servers = ice_servers
        self._position = 0.0  # media seconds received by earlier ingests
        self._last_audio_at: float | None = None

    @property
    def who(self) -> str:
        return self.name or "the publisher"

    def attach(self, channel: ClientChannel) -> bool:
        """A connection (first, or back within the grace period); True when it came back."""
        previous, self.channel = self.channel, channel
        if previous is not None and previous is not channel:  # a half-dead old connection
            previous.finish(CLOSE_NORMAL, "replaced by a resumed connection")
        if self.liveness.away:
            self.liveness.publisher_back()
            return True
        return False

    def rotate_resume_token(self) -> None:
        """A resume succeeded: the token it used stops working, the welcome carries the next one."""
        self.resume_token = new_secret()

    def gone(self) -> None:
        """The connection dropped: the participant may resume within the grace period."""
        self.channel = None
        self.liveness.publisher_left(time.time())

    def media_flowing(self) -> bool:
        return self.ingest is not None and not self.ingest.ended

    def media_wall(self, media_time: float) -> float | None:
        """When audio at session ``media_time`` arrived at this participant's ingest."""
        if self.ingest is None:
            return None
        return self.ingest.media_wall(media_time - (getattr(self.sink, "offset", None) or 0.0))

    def verdict(self) -> tuple[str, str] | None:
        """Whether this participant has waited too long for something (see policy/liveness.py)."""
        if self.ingest is not None and self.ingest.last_audio_at is not None:
            self.liveness.media(self.ingest.last_audio_at)
        verdict = self.liveness.verdict(time.time())
        if verdict is not None and self.name:
            code, message = verdict
            return code, message.replace("the publisher", self.name, 1)
        return verdict

    async def drop_ingest(self) -> None:
        """Close the current media connection (its audio is flushed); its clock carries over."""
        ingest, self.ingest = self.ingest, None
        if ingest is None:
            return
        await ingest.close()
        self._position = ingest.position
        self._last_audio_at = ingest.last_audio_at or self._last_audio_at

    async def accept_offer(self, sdp: str, still_wanted: Callable[[], bool]) -> str:
        """Answer an offer with a new media connection (it replaces the current one); returns the answer
        SDP with every candidate.  Raises :class:`OfferError` for an offer that cannot be answered,
        :class:`Refusal` when ``still_wanted()`` turned false while answering; either way the new
        connection is closed again."""
        await self.drop_ingest()
        away = time.time() - self._last_audio_at if self._last_audio_at is not None else 0.0
        ingest = WebRTCIngest(
            self.sink,  # type: ignore[arg-type]  # a Session or a RoomStream: what the ingest uses of one
            self._ice_servers(),
            on_ended=self._media_ended,
            metrics=self._metrics,
            start_s=self._position,
            lead_in_s=away,  # the time media was away stays a gap
            max_gap_s=self._config.idle_media_timeout_s + self._config.resume_grace_s,
        )
        try:
            answer = await ingest.answer(sdp)
        except OfferError:
            await ingest.close()
            raise
        if not still_wanted():  # the publisher left (or the session ended) while we answered
            await ingest.close()
            raise Refusal("session_ended", "this session has ended")
        self.ingest = ingest
        self.liveness.answered(time.time())
        return answer

    def _media_ended(self, error: tuple[str, str] | None) -> None:
        """The media stopped (track ended or connection failed): a new offer may follow within the
        grace period (a publisher replacing its connection closes the old one); ``end`` ends it."""
        if error is None:
            error = ("media_ended", "the media connection ended")
        log.info("session %s: %s: %s; waiting for a new offer", self.sink.id, self.who, error[1])
        self.liveness.media_lost(time.time())
        if self.channel is not None:
            self.channel.send({"type": "notice", "code": "media_lost", "message": f"{error[1]}: send a new offer"})
