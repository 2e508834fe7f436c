"""Serialised events for the event-log tests: what a session's log holds, built without a model."""

from __future__ import annotations

import asyncio
from typing import Any

from streamtwin.eventlog.store import EventStore
from streamtwin.eventlog.tail import Tails
from streamtwin.events import SessionEnded, TranscriptFinal, encode
from streamtwin.eventlog.resume import Gap

TIMEOUT_S = 60.0  # bounds a hung test; never a timing assertion


def event(session: str, seq: int, text: str = "") -> bytes:
    return encode({"v": 1, "type": "transcript.partial", "session": session, "seq": seq, "wall": 1000.0 + seq,
                   "media_time": seq / 10, "text": text or f"word {seq}", "start": 0.0})


def final(session: str, seq: int) -> bytes:
    return encode(TranscriptFinal(session=session, seq=seq, wall=1000.0 + seq, text=f"word{seq}", start=seq,
                                  end=seq + 0.5, utterance=seq, utterance_end=True).to_dict())


def ended(session: str, seq: int) -> bytes:
    return encode(SessionEnded(session=session, seq=seq, wall=2000.0).to_dict())


async def watch(store: EventStore, session: str, resume_from: int | None, **follow_options: Any) -> list[bytes | Gap]:
    """What one viewer fed from the log is sent (:class:`~streamtwin.eventlog.tail.LogFeed`), to the end."""
    got: list[bytes | Gap] = []

    async def room() -> None:
        await asyncio.sleep(0)

    tails = Tails(store, lambda data: data, **follow_options)
    await tails.feed(session, resume_from, send=got.append, room=room).run(snapshot=True)
    return got
