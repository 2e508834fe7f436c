"""How bench.speakers scores speaker labels: words under labels as a viewer holds them at the end."""

from __future__ import annotations

from bench.speakers import attribution, new_voice_delays, word_labels
from streamtwin.events import SpeakerTurns, TranscriptFinal


def final(utterance: int, words: list[tuple[str, float, float]], speaker: str, last: bool, media_time: float):
    return TranscriptFinal(text=" ".join(w for w, _, _ in words), start=words[0][1], end=words[-1][2],
                           words=[list(w) for w in words], utterance=utterance, utterance_end=last,
                           speaker=speaker, media_time=media_time)


TURNS = [{"speaker": "A", "start": 0.0, "end": 4.0}, {"speaker": "B", "start": 4.2, "end": 8.0}]


def test_a_word_takes_its_utterances_end_label_then_the_turns_that_follow():
    events = [
        final(1, [("one", 0.5, 1.0), ("two", 1.0, 1.5)], "", False, 2.0),  # not known yet
        final(1, [("three", 4.5, 5.0)], "S1", True, 6.0),  # one utterance, two voices: the end's label...
        SpeakerTurns(turns=[{"utterance": 1, "start": -0.5, "end": 4.1, "speaker": "S1"},
                            {"utterance": 1, "start": 4.1, "end": 5.5, "speaker": "S2"}], reason="split"),
    ]
    assert word_labels(events) == [(0.75, "S1"), (1.25, "S1"), (4.75, "S2")]  # ...then the split
    assert word_labels(events[:2]) == [(0.75, "S1"), (1.25, "S1"), (4.75, "S1")]


def test_labels_match_speakers_one_to_one():
    share, mapping = attribution([("S1", "A"), ("S1", "A"), ("S1", "B"), ("S2", "B"), ("S3", "B")])
    assert mapping == {"S1": "A", "S2": "B"} and share == 3 / 5


def test_a_new_voice_is_labelled_when_a_final_first_shows_its_words_under_its_last_label():
    events = [
        final(1, [("hi", 0.5, 1.0)], "S1", True, 1.6),
        final(2, [("yes", 4.5, 5.0)], "S1", False, 5.5),  # B's words under A's label: not yet
        final(2, [("sure", 5.0, 5.5)], "S2", True, 6.8),
    ]
    assert new_voice_delays(events, TURNS, {"S1": "A", "S2": "B"}) == {"A": 1.6, "B": 2.6}
    assert new_voice_delays(events, TURNS, {"S1": "A"}) == {"A": 1.6, "B": None}


def test_a_word_moved_to_its_voice_by_a_turns_event_counts_from_that_event():
    events = [
        final(1, [("hi", 0.5, 1.0)], "S1", True, 1.6),
        final(2, [("yes", 4.5, 5.0)], "S1", True, 5.5),  # B's word under A's label...
        SpeakerTurns(turns=[{"utterance": 2, "start": 4.0, "end": 6.0, "speaker": "S2"}], reason="recluster",
                     media_time=7.0),  # ...until more speech shows it is another voice
    ]
    assert new_voice_delays(events, TURNS, {"S1": "A", "S2": "B"}) == {"A": 1.6, "B": 2.8}
