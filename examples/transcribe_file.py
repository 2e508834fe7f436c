"""Transcribe a media file with the Python API: a paragraph per utterance, with its time stamp.

    pip install .        # once, from the repository
    python examples/transcribe_file.py samples/meeting.wav

Options are Config fields as keywords (see streamtwin/config.py); each also reads STREAMTWIN_<NAME>,
so `STREAMTWIN_ASR_MODEL=tiny.en python examples/transcribe_file.py ...` picks the faster model.
"""

from __future__ import annotations

import asyncio
import sys

import streamtwin


async def transcribe(path: str) -> None:
    paragraph: list[str] = []
    started_at = 0.0
    async for event in streamtwin.stream(path, llm="none", realtime=False):
        if isinstance(event, streamtwin.TranscriptFinal):
            if event.text and not paragraph:
                started_at = event.start
            if event.text:
                paragraph.append(event.text)
            if event.utterance_end and paragraph:  # the speaker paused: the utterance is complete
                minutes, seconds = divmod(int(started_at), 60)
                print(f"[{minutes:02d}:{seconds:02d}] {' '.join(paragraph)}")
                paragraph = []
        elif isinstance(event, streamtwin.SessionEnded):
            print(f"({event.stats['audio_s']:.1f} s of audio, real-time factor {event.stats['rtf']})")


if __name__ == "__main__":
    asyncio.run(transcribe(sys.argv[1] if len(sys.argv) > 1 else "samples/meeting.wav"))
