"""A session: one event stream fed by one source through the stages.

``streamtwin run`` and ``streamtwin serve`` build the same :class:`Session`;
only where media comes from (a :class:`~streamtwin.media.ingest.MediaReader` or a WebRTC
track) and who listens to the bus (terminal, JSONL, websockets) differ.
"""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from typing import Any

import av
import numpy as np

from streamtwin.assistant.builder import build_assistant
from streamtwin.assistant.typed import AskRefused, check_question
from streamtwin.bus import EventBus
from streamtwin.config import Config
from streamtwin.speech.engine import load_engine
from streamtwin.events import (
    AssistantDone,
    Error,
    Event,
    Notice,
    Progress,
    SessionEnded,
    SessionStarted,
)
from streamtwin.media.ingest import AudioChunk, IngestError, MediaReader, VideoItem
from streamtwin.eventlog.snapshot import SnapshotFold
from streamtwin.rooms.room import Room, RoomStream
from streamtwin.speakers.speaker_stage import SpeakerStage, speakers_enabled
from streamtwin.speech.speech_stage import SpeechStage
from streamtwin.vision.vision_stage import VisionStage

log = logging.getLogger(__name__)

# Ctrl-C on `run`: a person waits about a second; a last decode or speaker label not back by then is not
# waited for (the process then exits without tearing the models down: ~0.25 s more, see cli._exit_at_once).
INTERRUPTED_FLUSH_S = 0.5


class Session:
    def __init__(
        self,
        config: Config,
        *,
        source: str,
        realtime: bool,
        session_id: str | None = None,
        backend: Any = None,
    ):
        self.config = config
        self.id = session_id or uuid.uuid4().hex[:12]
        self.source = source
        self.realtime = realtime
        self.bus = EventBus(self.id)
        engine = self.engine = load_engine(config)
        # Speaker labels sit between the speech stage and the bus: finals leave with their speaker.
        self.speakers = SpeakerStage(config, self.bus.emit, engine.run_cpu) if speakers_enabled(config) else None
        speech_out = self.speakers.relay if self.speakers is not None else self.bus.emit
        self.speech = SpeechStage(config, speech_out, engine, wait_for_decodes=not realtime)
        self.vision = VisionStage(config, self.bus.emit) if config.vision else None
        self.backend = backend
        # The assistant reads keyframes through a hook: it never depends on the stage itself.
        keyframes = self.vision.latest_keyframe if self.vision is not None else None
        wants_assistant = backend is not None or config.twin_without_llm
        self.assistant = (
            build_assistant(config, backend, self.bus.emit, latest_keyframe=keyframes) if wants_assistant else None
        )
        self._unsubscribe_assistant = self.bus.subscribe(self.assistant.on_event) if self.assistant else None
        # What a late viewer is sent before live events (whole utterances, never the middle of one).
        self._snapshot: SnapshotFold[Event] = SnapshotFold(self.id)
        self._started_at = time.perf_counter()
        self._ended = False
        self.room: Room | None = None  # several named publishers (rooms): made by the first join
        self.bus.subscribe(lambda event: self._snapshot.add(event, event))

    def join(self, name: Any) -> RoomStream:
        """A named participant's own speech and vision streams (the session becomes a room; voice labels
        are off for it: everyone's identity is known).  Raises :class:`~streamtwin.rooms.roster.RosterError`."""
        if self.room is None:
            self.room = Room(self.config, self.id, self.bus.emit, self.engine, realtime=self.realtime)
        return self.room.join(name)

    async def leave(self, name: str, reason: str = "") -> None:
        """One participant's streams end (their speech flushed); the session goes on."""
        if self.room is not None:
            await self.room.leave(name, reason)

    async def start(self) -> None:
        """Announce the session; load the LLM first so the first answer does not pay for it."""
        self._started_at = time.perf_counter()
        start_backend = getattr(self.backend, "start", None)
        if start_backend is not None:
            try:
                await start_backend()
            except Exception as exc:  # no model: the transcript still flows
                self.error(f"llm_{getattr(exc, 'code', 'failed')}", f"language model unavailable: {exc}")
                self._drop_assistant()
        self.bus.emit(
            SessionStarted(
                source=self.source,
                options={
                    "realtime": self.realtime,
                    "asr_model": self.config.asr_model,
                    "language": self.speech.language,
                    "llm": getattr(self.backend, "name", "none"),
                    "llm_model": getattr(self.backend, "model", ""),
                    "speakers": "names" if self.room else ("voice" if self.speakers is not None else "off"),
                },
                media_time=0.0,
            )
        )
        if self.room is not None:
            self.room.start()
        if self.assistant is not None:
            await self.assistant.start()

    def _drop_assistant(self) -> None:
        if self._unsubscribe_assistant is not None:
            self._unsubscribe_assistant()
        self.assistant = None

    def hint_language(self, language: str) -> None:
        """The language the publisher's side expects to speak (its hello's): a hint to the detection."""
        self.speech.hint_language(language)

    async def push_audio(self, samples: np.ndarray) -> None:
        """16 kHz mono float32, in order."""
        if self.speakers is not None:
            self.speakers.push(samples)  # first: the finals this audio brings refer to it
        await self.speech.push(samples)

    def push_video(self, frame: av.VideoFrame | np.ndarray, media_time: float) -> None:
        """Offer a decoded ``av.VideoFrame`` or a uint8 image array; cheap, never blocks the audio path
        (busy frames are skipped)."""
        if self.vision is None:
            return
        if isinstance(frame, np.ndarray):
            self.vision.offer_array(frame, media_time, speaking=self.speech.speaking)
        else:
            self.vision.offer(frame, media_time, speaking=self.speech.speaking)

    async def ask(self, text: str, asker: str = "viewer") -> list[Event]:
        """Ask the assistant a typed question; returns its answer's events (``assistant.started``, the answer,
        ``assistant.done``), which every viewer sees too.  Raises :class:`AskRefused` for a question that is
        not one, a session without an assistant, or while another answer runs."""
        question = check_question(text)
        if self.assistant is None or self._ended:
            raise AskRefused("no_assistant", "this session has no assistant (started with --llm none)")
        answer: list[Event] = []
        done = asyncio.get_running_loop().create_future()
        generation: int | None = None

        def collect(event: Event) -> None:
            if generation is not None and getattr(event, "generation", None) == generation:
                answer.append(event)
                if isinstance(event, AssistantDone) and not done.done():
                    done.set_result(None)
            elif isinstance(event, SessionEnded) and not done.done():  # a generation cancelled unstarted says nothing
                done.set_result(None)

        unsubscribe = self.bus.subscribe(collect)
        try:
            generation = self.assistant.ask(question, asker)
            if generation is None:
                raise AskRefused("assistant_busy", "the assistant is answering another question; ask again when "
                                 "it is done")
            await done
        finally:
            unsubscribe()
        return answer

    def rename_speaker(self, label: str, name: str) -> None:
        """A viewer names a voice label: a ``speaker.named`` event for everyone; ValueError when there is no
        such label (or no voice labels)."""
        if self.speakers is None or self.room is not None:
            raise ValueError("this session has no voice labels to rename (speaker labels off, or a room)")
        self.speakers.rename(label, name)

    def error(self, code: str, message: str, *, fatal: bool = False) -> None:
        self.bus.emit(Error(code=code, message=message, fatal=fatal, media_time=self.speech.audio_seconds))

    def notice(self, code: str, message: str) -> None:
        self.bus.emit(Notice(code=code, message=message, media_time=self.speech.audio_seconds))

    async def end(self, drain_s: float | None = None, flush_s: float | None = None) -> dict[str, Any]:
        """Flush speech (nothing heard is lost) and emit ``session.ended`` with stats.

        ``drain_s`` bounds the wait for the last answer (default ``llm_drain_s``): short on a shutdown.
        ``flush_s`` bounds the last decode and speaker labels together (Ctrl-C): past it the tentative
        words become final and held finals go out unlabelled."""
        if self._ended:
            return {}
        self._ended = True
        if self.room is not None:
            await self.room.close()
        loop = asyncio.get_running_loop()
        deadline = None if flush_s is None else loop.time() + flush_s
        await self.speech.finish(flush_s)
        self.speech.close()
        if self.speakers is not None:
            try:
                await asyncio.wait_for(self.speakers.drain(), None if deadline is None else max(0.0, deadline - loop.time()))
            except TimeoutError:
                log.info("speaker labels not done within %.1f s: finals go out unlabelled", flush_s)
            self.speakers.close()
        if self.assistant is not None:
            drain_s = self.config.llm_drain_s if drain_s is None else drain_s
            if not await self.assistant.drain(drain_s):
                if self.assistant.gave_up:
                    self.error("llm_unavailable", "the language model keeps failing: the session ends without its "
                               "last update (the twin holds what the rules found)")
                else:
                    self.error("llm_timeout", f"the language model did not finish within {drain_s:.0f} s")
            await self.assistant.close()
        room = self.room
        audio_s = self.speech.audio_seconds + (room.audio_seconds if room else 0.0)
        decode_s = self.speech.decode_seconds + (room.decode_seconds if room else 0.0)
        stats = {
            "audio_s": round(audio_s, 3),
            "processing_s": round(decode_s, 3),
            "wall_s": round(time.perf_counter() - self._started_at, 3),
            "rtf": round(decode_s / audio_s, 4) if audio_s else None,
            "decodes": self.speech.decodes + (room.decodes if room else 0),
        }
        if self.speakers is not None:
            stats["speakers"] = len(self.speakers.clusters.speakers)
            stats["speaker_embed_s"] = round(self.speakers.embed_seconds, 3)
            holds = sorted(self.speakers.holds)
            stats["speaker_hold_p90_s"] = round(holds[int(0.9 * (len(holds) - 1))], 3) if holds else None
        self.bus.emit(SessionEnded(stats=stats, media_time=round(audio_s, 3)))
        return stats

    def snapshot(self) -> list[Event]:
        """What a late viewer needs before live events: who is in the room, the twin, the last frame seen,
        recent whole utterances and the current partials (streamtwin/eventlog/snapshot.py)."""
        return self._snapshot.snapshot(lambda twin: twin)


async def run_reader(session: Session, reader: MediaReader) -> bool:
    """Pump one reader through a session; returns False when the source failed."""
    await session.start()
    last_progress = 0.0
    ok = True
    try:
        async for item in reader.items():
            if isinstance(item, VideoItem):
                session.push_video(item.frame, item.time)
            elif isinstance(item, AudioChunk):
                await session.push_audio(item.samples)
                now = time.monotonic()
                if reader.duration and now - last_progress >= 0.5:
                    last_progress = now
                    session.bus.emit(
                        Progress(position=round(item.time, 2), duration=round(reader.duration, 2), media_time=item.time)
                    )
    except IngestError as exc:
        ok = False
        session.error(exc.code, exc.message, fatal=True)
    finally:
        reader.close()
        if reader.interrupted:
            await session.end(drain_s=0.0, flush_s=INTERRUPTED_FLUSH_S)
        else:
            await session.end()
    return ok
