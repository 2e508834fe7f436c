"""Push your own audio and video frames into a session: 16 kHz mono float32 numpy audio, RGB frames.

    pip install .        # once, from the repository
    python examples/push_media.py samples/standup.wav

The audio here comes from a wav file read with the standard library, and the "camera" is numpy: a red
picture for ten seconds, then a blue one, so the vision stage reports a scene change at 10 s.  In your
program the samples might come from a microphone callback (pass realtime=True for live capture) and
the frames from a camera.
"""

from __future__ import annotations

import asyncio
import sys
import wave

import numpy as np

import streamtwin

CHUNK_S = 0.5


def read_wav(path: str) -> np.ndarray:
    """A 16 kHz mono 16-bit wav as float32 samples in [-1, 1]."""
    with wave.open(path) as wav:
        if (wav.getframerate(), wav.getnchannels(), wav.getsampwidth()) != (16_000, 1, 2):
            raise SystemExit(f"{path}: this example reads 16 kHz mono 16-bit wav files")
        return np.frombuffer(wav.readframes(wav.getnframes()), dtype=np.int16).astype(np.float32) / 32768


def camera_frame(seconds: float) -> np.ndarray:
    frame = np.zeros((240, 320, 3), dtype=np.uint8)
    frame[..., 0 if seconds < 10 else 2] = 200  # red, then blue
    return frame


async def print_events(session: streamtwin.PushSession) -> None:
    async for event in session.events():
        if isinstance(event, streamtwin.TranscriptFinal) and event.text:
            print(f"{event.start:6.1f} s  {event.text}")
        elif isinstance(event, streamtwin.VisionObservation):
            print(f"{event.media_time:6.1f} s  [seen: {event.kind}]")


async def main(path: str) -> None:
    audio = read_wav(path)
    step = int(CHUNK_S * 16_000)
    async with streamtwin.PushSession(llm="none") as session:
        printer = asyncio.create_task(print_events(session))
        for offset in range(0, len(audio), step):
            seconds = offset / 16_000
            session.push_video(camera_frame(seconds), media_time=seconds)
            await session.push_audio(audio[offset : offset + step])
    # Leaving the block flushed the last words and ended the session; the printer has seen it all.
    await printer


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1] if len(sys.argv) > 1 else "samples/standup.wav"))
