"""Serialised events for the event-log tests: what a session's log holds, built without a model."""

from __future__ import annotations

from pipeline.events import SessionEnded, TranscriptFinal, encode

TIMEOUT_S = 60.0  # bounds a hung test; never a timing assertion


def event(session: str, seq: int, text: str = "") -> bytes:
    return encode({"v": 1, "type": "transcript.partial", "session": session, "seq": seq, "wall": 1000.0 + seq,
                   "media_time": seq / 10, "text": text or f"word {seq}", "start": 0.0})


def final(session: str, seq: int) -> bytes:
    return encode(TranscriptFinal(session=session, seq=seq, wall=1000.0 + seq, text=f"word{seq}", start=seq,
                                  end=seq + 0.5, utterance=seq, utterance_end=True).to_dict())


def ended(session: str, seq: int) -> bytes:
    return encode(SessionEnded(session=session, seq=seq, wall=2000.0).to_dict())
