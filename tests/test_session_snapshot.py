"""A late viewer's snapshot holds whole utterances: never the tail of one."""

from streamtwin.config import Config
from streamtwin.events import TranscriptFinal
from streamtwin.session import Session


def test_snapshot_drops_old_utterances_whole(monkeypatch):
    monkeypatch.setattr("streamtwin.eventlog.snapshot.RECENT_UTTERANCES", 2)
    session = Session(Config(llm="none", vision=False), source="test", realtime=False)
    at = 0.0
    for utterance in (1, 2, 3):
        for part in range(3):
            last = part == 2
            session.bus.emit(
                TranscriptFinal(text=f"u{utterance}p{part}", start=at, end=at + 0.5, utterance=utterance, utterance_end=last)
            )
            at += 0.5
    # An old producer (no ids): the time gap separates utterances.
    session.bus.emit(TranscriptFinal(text="gap-a", start=at + 2.0, end=at + 2.5))
    session.bus.emit(TranscriptFinal(text="gap-b", start=at + 2.5, end=at + 3.0))
    finals = [e.text for e in session.snapshot() if isinstance(e, TranscriptFinal)]
    assert finals == ["u3p0", "u3p1", "u3p2", "gap-a", "gap-b"]
