"""A room: several publishers in one session, each with their own speech and vision stages.

Each participant's audio is its own speech stream through the process's shared speech engine
(never mixed with anyone's), each video its own vision stream.  What a stream hears is labelled
with its participant's name (``speaker`` and ``speaker_name`` on finals, ``speaker`` on partials)
and moved onto the session's clock: media time 0 is when the room's first audio arrived, and a
participant who joins later starts at the session time of their own first audio.  Finals then go
through the :class:`~streamtwin.rooms.roster.Interleave` (an utterance at a time, in order of start)
on their way to the session's bus; who is in the room is the :class:`~streamtwin.rooms.roster.Roster`.
"""

from __future__ import annotations

import logging
import time
from typing import Any, Callable

import av
import numpy as np

from streamtwin.alarm import Alarm
from streamtwin.config import Config
from streamtwin.speech.engine import SpeechEngine
from streamtwin.events import (
    Event,
    ParticipantJoined,
    ParticipantLeft,
    Progress,
    TranscriptFinal,
    TranscriptPartial,
    TranscriptRevised,
)
from streamtwin.rooms.roster import Interleave, Member, Roster
from streamtwin.speech.speech_stage import SpeechStage
from streamtwin.vision.vision_stage import VisionStage

log = logging.getLogger(__name__)


class _StreamBus:
    """What a media ingest emits (progress) for one participant, moved onto the session clock."""

    def __init__(self, stream: RoomStream):
        self._stream = stream

    def emit(self, event: Event) -> Event:
        self._stream.to_session_clock(event)
        return self._stream.room.emit(event)


class RoomStream:
    """One participant's media: what a WebRTC ingest needs of a session (``id``, ``bus``, ``push_audio``,
    ``push_video``), feeding a speech stage and a vision stage of its own."""

    def __init__(self, room: Room, member: Member):
        self.room = room
        self.member = member
        self.id = room.session_id
        self.bus = _StreamBus(self)
        self.offset: float | None = None  # session seconds at this stream's media time 0 (its first audio)
        self.speech = SpeechStage(
            room.config, self._heard, room.engine, wait_for_decodes=not room.realtime, on_language=room.heard_language,
        )
        if room.language is not None:
            self.speech.hint_language(room.language)
        self.vision = VisionStage(room.config, room.emit) if room.config.vision else None
        self.finished = False

    @property
    def name(self) -> str:
        return self.member.name

    def hint_language(self, language: str) -> None:
        """The language this participant's side expects to speak (their hello's): a hint, as the room's is."""
        self.speech.hint_language(language)

    async def push_audio(self, samples: np.ndarray) -> None:
        if self.offset is None:
            self.offset = self.room.session_time()
        await self.speech.push(samples)

    def push_video(self, frame: av.VideoFrame | np.ndarray, media_time: float) -> None:
        if self.vision is None:
            return
        at = media_time + (self.offset if self.offset is not None else self.room.session_time())
        if isinstance(frame, np.ndarray):
            self.vision.offer_array(frame, at, speaking=self.speech.speaking)
        else:
            self.vision.offer(frame, at, speaking=self.speech.speaking)

    async def finish(self) -> None:
        """Flush this participant's speech (nothing heard is lost), then stop their stages."""
        if self.finished:
            return
        self.finished = True
        await self.speech.finish()
        self.speech.close()

    def to_session_clock(self, event: Event) -> None:
        """Shift a stage's own media times by this stream's offset (in place: the event is fresh)."""
        offset = self.offset or 0.0
        if event.media_time is not None:
            event.media_time = round(event.media_time + offset, 3)
        if isinstance(event, (TranscriptFinal, TranscriptPartial, TranscriptRevised)):
            event.start = round(event.start + offset, 3)
        if isinstance(event, (TranscriptFinal, TranscriptRevised)):
            event.end = round(event.end + offset, 3)
            event.words = [[w[0], round(w[1] + offset, 3), round(w[2] + offset, 3), *w[3:]] for w in event.words]
        if isinstance(event, Progress):
            event.position = round(event.position + offset, 3)

    def _heard(self, event: Event) -> None:
        self.to_session_clock(event)
        if isinstance(event, TranscriptFinal):
            event.speaker = event.speaker_name = self.name
            self.room.interleave_final(self.name, event)
            return
        if isinstance(event, TranscriptRevised):
            event.speaker = event.speaker_name = self.name
            self.room.revise(self.name, event)
            return
        if isinstance(event, TranscriptPartial):
            event.speaker = self.name
        self.room.emit(event)


class Room:
    def __init__(
        self,
        config: Config,
        session_id: str,
        emit: Callable[[Event], Any],
        engine: SpeechEngine,
        *,
        realtime: bool,
        clock: Callable[[], float] = time.monotonic,
    ):
        self.config = config
        self.session_id = session_id
        self.emit = emit
        self.engine = engine
        self.realtime = realtime
        self.roster = Roster(config.max_participants)
        self.streams: dict[str, RoomStream] = {}
        self._interleave = Interleave(config.room_max_hold_s)
        self._clock = clock
        self._origin: float | None = None  # clock() at session time 0: the room's first audio
        # A held final is released by its deadline even if nobody says another word.
        self._alarm = Alarm(clock, lambda: self._release(self._interleave.release(self._clock())))
        self.started = False  # participant.joined waits for session.started
        self.language: str | None = None  # the first language a participant's stream detected
        self.audio_seconds = 0.0  # of participants who left
        self.decode_seconds = 0.0
        self.decodes = 0

    def heard_language(self, language: str) -> None:
        """A participant's stream detected its language: the others, still listening for theirs, take it as a
        hint (people in one room mostly share a language; one who does not is still heard as detected)."""
        if self.language is None:
            self.language = language
            for stream in self.streams.values():
                stream.speech.hint_language(language)

    def session_time(self) -> float:
        """Seconds since the room's first audio (which starts the session clock at 0)."""
        now = self._clock()
        if self._origin is None:
            self._origin = now
        return now - self._origin

    def join(self, name: Any) -> RoomStream:
        """Admit a participant by name; raises :class:`~streamtwin.rooms.roster.RosterError`."""
        at = 0.0 if self._origin is None else self._clock() - self._origin
        member = self.roster.join(name, at)
        stream = self.streams[member.name] = RoomStream(self, member)
        log.info("session %s: %s joined the room", self.session_id, member.name)
        if self.started:
            self.emit(ParticipantJoined(name=member.name, slot=member.slot, media_time=round(at, 3)))
        return stream

    def start(self) -> None:
        """The session started: announce who joined before it (its first publisher)."""
        self.started = True
        for member in self.roster.members.values():
            self.emit(ParticipantJoined(name=member.name, slot=member.slot, media_time=round(member.joined_at, 3)))

    async def leave(self, name: str, reason: str = "") -> None:
        """End one participant's streams: their speech flushed first, then ``participant.left``."""
        stream = self.streams.pop(name, None)
        if stream is None:
            return
        await stream.finish()
        self._release(self._interleave.remove(name, self._clock()))
        self.audio_seconds += stream.speech.audio_seconds
        self.decode_seconds += stream.speech.decode_seconds
        self.decodes += stream.speech.decodes
        member = self.roster.leave(name) or stream.member
        log.info("session %s: %s left the room%s", self.session_id, name, f" ({reason})" if reason else "")
        at = self.session_time() if self._origin is not None else 0.0
        self.emit(ParticipantLeft(name=name, slot=member.slot, reason=reason, media_time=round(at, 3)))

    async def close(self) -> None:
        """The session ends: every participant leaves (each flushed)."""
        for name in list(self.streams):
            await self.leave(name)
        self._alarm.cancel()

    def snapshot(self) -> list[Event]:
        """Who is in the room, for a late viewer."""
        return [ParticipantJoined(session=self.session_id, name=m.name, slot=m.slot) for m in self.roster.members.values()]

    def interleave_final(self, name: str, final: TranscriptFinal) -> None:
        released = self._interleave.push(
            name, final, utterance=final.utterance, start=final.start, ends=final.utterance_end, now=self._clock()
        )
        self._release(released)

    def revise(self, name: str, revision: TranscriptRevised) -> None:
        """A participant's utterance revised: sent under the room's number, after its last final."""
        self._release(self._interleave.revise(name, revision, utterance=revision.utterance))

    def _release(self, released: list[tuple[TranscriptFinal | TranscriptRevised, int]]) -> None:
        for event, number in released:
            event.utterance = number
            self.emit(event)
        self._alarm.set(self._interleave.next_deadline())
