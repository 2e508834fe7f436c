"""The snapshot a node folds from a session's log: the same content a late joiner gets from the session."""

from __future__ import annotations

from streamtwin.events import (
    Event,
    SpeakerNamed,
    SpeakerTurns,
    TranscriptFinal,
    TranscriptPartial,
    TranscriptRevised,
    TwinPatch,
    TwinState,
    VisionObservation,
    encode,
    from_json,
)
from streamtwin.eventlog.snapshot import SnapshotFold


def snapshot_of(fold: SnapshotFold[bytes]) -> list[bytes]:
    return fold.snapshot(lambda twin: encode(twin.to_dict()))


def log_of(events: list[Event]) -> list[tuple[Event, bytes]]:
    for seq, event in enumerate(events, start=1):
        event.session, event.seq, event.wall = "s1", seq, 1000.0 + seq
    return [(event, encode(event.to_dict())) for event in events]


def test_the_fold_keeps_the_twin_whole_the_last_frame_whole_utterances_and_the_partial() -> None:
    events: list[Event] = [TwinState(version=1, state={"summary": "", "topics": []})]
    at = 0.0
    for utterance in (1, 2, 3):
        for part in range(3):
            events.append(TranscriptFinal(text=f"u{utterance}p{part}", start=at, end=at + 0.5, utterance=utterance,
                                          utterance_end=part == 2))
            at += 0.5
        events.append(TranscriptPartial(text=f"after {utterance}", start=at))
    events += [
        VisionObservation(kind="keyframe", score=1.0, note="first"),
        TwinPatch(version=2, patch=[{"op": "replace", "path": "/summary", "value": "planning"}]),
        VisionObservation(kind="scene_change", score=0.8, note="second"),
        TwinPatch(version=3, patch=[{"op": "add", "path": "/topics/-", "value": "website"}]),
        TranscriptPartial(text="and the", start=at),
    ]
    fold = SnapshotFold("s1", recent_utterances=2)
    logged = log_of(events)
    for event, data in logged:
        fold.add(event, data)
    snapshot = [from_json(data.decode()) for data in snapshot_of(fold)]
    assert fold.seq == logged[-1][0].seq
    twin, observation, *finals, partial = snapshot
    assert isinstance(twin, TwinState) and twin.version == 3
    assert twin.state == {"summary": "planning", "topics": ["website"]}
    assert isinstance(observation, VisionObservation) and observation.note == "second"
    assert [f.text for f in finals] == ["u2p0", "u2p1", "u2p2", "u3p0", "u3p1", "u3p2"]  # type: ignore[attr-defined]
    assert isinstance(partial, TranscriptPartial) and partial.text == "and the"
    by_seq = {event.seq: data for event, data in logged}
    assert snapshot_of(fold)[2] == by_seq[finals[0].seq]  # the logged bytes, original seq


def test_an_empty_log_is_an_empty_snapshot_and_an_out_of_order_patch_waits() -> None:
    fold = SnapshotFold("s1")
    assert snapshot_of(fold) == [] and fold.seq == 0
    for event, data in log_of([TwinPatch(version=5, patch=[]), TranscriptPartial(text="", start=0.0)]):
        fold.add(event, data)
    assert snapshot_of(fold) == []  # no twin.state to patch yet, and an empty partial shows nothing


def test_a_revision_follows_its_utterances_finals_and_goes_with_them() -> None:
    events: list[Event] = []
    for utterance in (1, 2, 3):
        events.append(TranscriptFinal(text=f"u{utterance}", start=utterance, end=utterance + 0.5, utterance=utterance,
                                      utterance_end=True))
        if utterance == 2:
            events.append(TranscriptFinal(text="late", start=2.6, end=2.7, utterance=3))  # the next one began
            events.append(TranscriptRevised(text="u2 revised", start=2, end=2.5, utterance=2))
    events.insert(1, TranscriptRevised(text="u1 revised", start=1, end=1.5, utterance=1))
    fold = SnapshotFold("s1", recent_utterances=2)
    for event, data in log_of(events):
        fold.add(event, data)
    shown = [(e.type, e.text) for e in (from_json(data.decode()) for data in snapshot_of(fold))]  # type: ignore[attr-defined]
    assert shown == [("transcript.final", "u2"), ("transcript.revised", "u2 revised"),
                     ("transcript.final", "late"), ("transcript.final", "u3")]


def test_a_rooms_snapshot_names_who_is_in_it_and_each_speakers_partial() -> None:
    """One fold for live sessions and log readers: a viewer fed from the log learns who is in the room too."""
    from streamtwin.events import ParticipantJoined, ParticipantLeft

    events: list[Event] = [
        ParticipantJoined(name="Ann", slot=1),
        ParticipantJoined(name="Bob", slot=2),
        ParticipantJoined(name="Cy", slot=3),
        TranscriptPartial(text="so the", start=0.0, speaker="Ann"),
        TranscriptPartial(text="yes", start=0.0, speaker="Bob"),
        ParticipantLeft(name="Cy", slot=3),
        TranscriptPartial(text="", start=0.5, speaker="Bob"),  # Bob's partial ended without text
    ]
    fold: SnapshotFold[bytes] = SnapshotFold("s1")
    for event, data in log_of(events):
        fold.add(event, data)
    shown = [from_json(data.decode()) for data in snapshot_of(fold)]
    assert [(e.type, getattr(e, "name", "") or e.text) for e in shown] == [  # type: ignore[attr-defined]
        ("participant.joined", "Ann"), ("participant.joined", "Bob"), ("transcript.partial", "so the"),
    ]


def test_a_live_sessions_snapshot_is_the_same_fold_over_its_events() -> None:
    from streamtwin.config import Config
    from streamtwin.session import Session

    session = Session(Config(llm="none", vision=False), source="test", realtime=False)
    session.bus.emit(TwinState(version=0, state={"summary": "", "topics": []}))
    session.bus.emit(TwinPatch(version=1, patch=[{"op": "replace", "path": "/summary", "value": "budget"}]))
    session.bus.emit(TranscriptFinal(text="The budget.", start=0.0, end=1.0, utterance=1, utterance_end=True))
    twin, final = session.snapshot()
    assert isinstance(twin, TwinState) and twin.state["summary"] == "budget" and twin.session == session.id
    assert isinstance(final, TranscriptFinal) and final.text == "The budget."


def test_a_late_viewer_gets_the_relabels_and_each_voices_latest_name() -> None:
    events: list[Event] = [
        TranscriptFinal(text="Hello there.", start=0.0, end=1.0, utterance=1, utterance_end=True, speaker="S1"),
        SpeakerNamed(speaker="S1", name="Al", how="addressed"),
        TranscriptFinal(text="Hi.", start=2.0, end=3.0, utterance=2, utterance_end=True, speaker="S2"),
        SpeakerTurns(turns=[{"utterance": 2, "start": 1.5, "end": 3.5, "speaker": "S1", "speaker_name": "Al"}],
                     reason="merged", merged={"S2": "S1"}),
        SpeakerNamed(speaker="S1", name="Alice", how="viewer", previous="Al"),
    ]
    fold = SnapshotFold("s1")
    for event, data in log_of(events):
        fold.add(event, data)
    snapshot = [from_json(data.decode()) for data in snapshot_of(fold)]
    assert [type(e).__name__ for e in snapshot] == ["TranscriptFinal", "TranscriptFinal", "SpeakerTurns",
                                                    "SpeakerNamed"]
    assert snapshot[-1].name == "Alice"  # type: ignore[attr-defined]
