"""Media ingest with PyAV: files, http(s)/rtsp URLs and stdin become timed frames.

Demuxing and decoding run in one reader thread per source (PyAV calls block);
items cross to the event loop through a small bounded queue, so a fast file
waits for the pipeline instead of piling up in memory.  ``realtime`` paces
items to the wall clock exactly as a live stream would arrive.
"""

from __future__ import annotations

import asyncio
import logging
import os
import sys
import threading
import time
from dataclasses import dataclass
from typing import Any, AsyncIterator

import av
import numpy as np

from streamtwin.media.audio import SAMPLE_RATE, AudioConverter
from streamtwin.media.redact import redact

log = logging.getLogger(__name__)

NETWORK_PREFIXES = ("http://", "https://", "rtsp://", "rtmp://", "srt://", "udp://", "tcp://")
OPEN_TIMEOUT_S = 10.0
READ_TIMEOUT_S = 10.0


class IngestError(Exception):
    """A source problem worth one clear line: ``code`` is not_found, not_media,
    no_audio, unreachable, corrupt, truncated or dropped."""

    def __init__(self, code: str, message: str):
        message = redact(message)  # a URL's credentials never reach a log or an event
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass
class AudioChunk:
    samples: np.ndarray  # 16 kHz mono float32
    time: float  # media seconds of the first sample


@dataclass
class VideoItem:
    frame: av.VideoFrame
    time: float


MediaItem = AudioChunk | VideoItem


def is_live_spec(spec: str) -> bool:
    """URLs and stdin arrive live; files can be read as fast as the machine allows."""
    return spec == "-" or spec.startswith(NETWORK_PREFIXES)


def open_container(spec: str) -> Any:
    """Open ``spec`` with PyAV, turning its many exceptions into one clear :class:`IngestError`."""
    network = spec.startswith(NETWORK_PREFIXES)
    if spec != "-" and not network and not os.path.exists(spec):
        raise IngestError("not_found", f"no such file: {spec}")
    try:
        if spec == "-":
            return av.open(sys.stdin.buffer, mode="r")
        options = {"rw_timeout": str(int(READ_TIMEOUT_S * 1e6))} if network else {}
        return av.open(spec, mode="r", timeout=(OPEN_TIMEOUT_S, READ_TIMEOUT_S), options=options)
    except IsADirectoryError:
        raise IngestError("not_media", f"{spec} is a directory, not a media file") from None
    except av.error.InvalidDataError:
        raise IngestError("not_media", f"{spec} is not a media file (no decodable container found)") from None
    except (av.error.ExitError, av.error.HTTPError, OSError, av.error.FFmpegError) as exc:
        what = "cannot reach" if network else "cannot open"
        raise IngestError("unreachable" if network else "corrupt", f"{what} {spec}: {_reason(exc)}") from None


def _reason(exc: BaseException) -> str:
    return getattr(exc, "strerror", None) or str(exc) or type(exc).__name__


class MediaReader:
    """Decodes one source in a thread and yields :class:`AudioChunk` / :class:`VideoItem`."""

    def __init__(self, spec: str, *, realtime: bool, video: bool = True, queue_size: int = 64):
        self.spec = spec
        self.realtime = realtime
        self.want_video = video
        self.duration: float | None = None
        self.has_video = False
        self._container = open_container(spec)
        self._audio = next(iter(self._container.streams.audio), None)
        if self._audio is None:
            self._container.close()
            raise IngestError("no_audio", f"{spec} has no audio track")
        self._video = next(iter(self._container.streams.video), None) if video else None
        self.has_video = self._video is not None
        if self._container.duration:
            self.duration = self._container.duration / av.time_base
        self._queue_size = queue_size
        self._stop = threading.Event()
        self._queue: asyncio.Queue[Any] | None = None
        self.interrupted = False

    def close(self) -> None:
        """Stop reading.  On the event loop's thread while :meth:`items` runs, it also returns at once:
        the reader thread stops putting anything (its end marker included) once told to stop."""
        self._stop.set()
        queue = self._queue
        if queue is not None:
            while not queue.empty():
                queue.get_nowait()
            queue.put_nowait(None)

    def interrupt(self) -> None:
        """Ctrl-C: stop now; the session ends with what was heard, without waiting on the LLM."""
        self.interrupted = True
        self.close()

    async def items(self) -> AsyncIterator[MediaItem]:
        """Yield decoded items in media order; raises :class:`IngestError` on a broken stream."""
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue[Any] = asyncio.Queue(self._queue_size)
        self._queue = queue
        thread = threading.Thread(target=self._run, args=(loop, queue), name="ingest", daemon=True)
        thread.start()
        clock_origin: float | None = None
        try:
            while True:
                item = await queue.get()
                if item is None:
                    return
                if isinstance(item, IngestError):
                    raise item
                if self.realtime:
                    if clock_origin is None:
                        clock_origin = time.monotonic() - item.time
                    delay = clock_origin + item.time - time.monotonic()
                    if delay > 0:
                        await asyncio.sleep(delay)
                yield item
        finally:
            self._queue = None
            self._stop.set()
            while not queue.empty():  # unblock the reader if it waits on a full queue
                queue.get_nowait()

    def _run(self, loop: asyncio.AbstractEventLoop, queue: asyncio.Queue[Any]) -> None:
        def put(item: Any) -> bool:
            if self._stop.is_set():
                return False
            future = asyncio.run_coroutine_threadsafe(queue.put(item), loop)
            while not self._stop.is_set():
                try:
                    future.result(timeout=0.2)
                    return True
                except TimeoutError:
                    continue
            future.cancel()
            return False

        converter = AudioConverter()
        samples_out = 0
        streams = [s for s in (self._audio, self._video) if s is not None]
        try:
            for packet in self._container.demux(streams):
                if self._stop.is_set():
                    return
                for frame in packet.decode():
                    if isinstance(frame, av.AudioFrame):
                        samples = converter.convert(frame)
                        if len(samples):
                            if not put(AudioChunk(samples, samples_out / SAMPLE_RATE)):
                                return
                            samples_out += len(samples)
                    elif frame.time is not None:
                        if not put(VideoItem(frame, max(frame.time - self._video_origin(), 0.0))):
                            return
            tail = converter.flush()
            if len(tail):
                put(AudioChunk(tail, samples_out / SAMPLE_RATE))
            samples_out += len(tail)
            decoded = samples_out / SAMPLE_RATE
            if samples_out == 0:
                put(IngestError("corrupt", f"{self.spec}: no audio could be decoded"))
            elif self.duration and decoded < self.duration - 1.0:
                if is_live_spec(self.spec):
                    put(IngestError("dropped", f"{self.spec}: stream dropped at {decoded:.1f} s of {self.duration:.1f} s"))
                else:
                    put(IngestError("truncated", f"{self.spec}: truncated, audio ends at {decoded:.1f} s of {self.duration:.1f} s"))
        except av.error.FFmpegError as exc:
            at = samples_out / SAMPLE_RATE
            if is_live_spec(self.spec):
                put(IngestError("dropped", f"{self.spec}: stream dropped at {at:.1f} s: {_reason(exc)}"))
            else:
                put(IngestError("corrupt", f"{self.spec}: corrupt data at {at:.1f} s: {_reason(exc)}"))
        except Exception as exc:  # never let the thread die silently
            log.exception("reader failed")
            put(IngestError("corrupt", f"{self.spec}: {exc}"))
        finally:
            put(None)
            self._container.close()

    def _video_origin(self) -> float:
        stream = self._video
        if stream is None or stream.start_time is None:
            return 0.0
        return float(stream.start_time * stream.time_base)
