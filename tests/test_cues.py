"""The subtitle cue policy on its own: two lines, ~7 s, breaks where a reader pauses, nothing lost."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from streamtwin.outputs.cues import CueBuilder, Word, break_lines, timed_words

SAMPLES = Path(__file__).resolve().parent.parent / "samples"
MAX_CHARS = 42


def spoken_turns(name: str = "meeting.json") -> list[list[Word]]:
    """The sample's turns as timed words, spread evenly over each turn's span (as a recogniser would time them)."""
    turns = []
    for turn in json.loads((SAMPLES / name).read_text())["turns"]:
        turns.append(timed_words(turn["text"], turn["start"], turn["end"], []))
    return turns


def build(turns: list[list[Word]], **options) -> list:
    builder = CueBuilder(**options)
    cues = []
    for words in turns:
        cues += builder.add(words, utterance_end=True)
    return cues + builder.flush()


@pytest.mark.parametrize("sample", ["meeting.json", "standup.json", "lecture_scottish.json", "support_call.json"])
def test_cues_keep_every_word_in_two_short_lines_of_at_most_seven_seconds(sample):
    turns = spoken_turns(sample)
    cues = build(turns)
    words = [w for turn in turns for w in turn]
    assert " ".join(c.text for c in cues) == " ".join(w.text for w in words)
    for cue in cues:
        assert 1 <= len(cue.lines) <= 2, cue
        assert all(len(line) <= MAX_CHARS or " " not in line for line in cue.lines), cue
        spoken = [w for w in words if cue.start <= w.start and w.end <= cue.end + 1e-9]
        assert spoken[-1].end - spoken[0].start <= 7.0 + 1e-9, cue
    for before, after in zip(cues, cues[1:]):
        assert before.end <= after.start, (before, after)


def test_a_cue_never_spans_two_utterances():
    turns = spoken_turns()
    cues = build(turns)
    turn_starts = {turn[0].start for turn in turns}
    for cue in cues:
        inside = [start for start in turn_starts if cue.start < start < cue.end]
        assert not inside, cue
    assert {cue.start for cue in cues} >= turn_starts


def test_a_long_pause_starts_a_new_cue():
    words = [Word("one", 0.0, 0.4), Word("two", 0.5, 0.9), Word("three", 3.0, 3.4), Word("four", 3.5, 3.9)]
    cues = build([words])
    assert [c.text for c in cues] == ["one two", "three four"]


def test_past_a_full_line_a_sentence_end_closes_the_cue():
    text = "The website is almost ready, but the search page is slow. Carol will look at it."
    cues = build([timed_words(text, 0.0, 5.0, [])])
    assert cues[0].text.endswith("slow.")
    assert cues[1].text == "Carol will look at it."


def test_a_short_cue_stays_up_a_second_but_not_into_the_next():
    builder = CueBuilder(min_duration_s=1.0)
    first = builder.add([Word("Great.", 10.0, 10.3)], utterance_end=True)
    assert first == []  # held until the next cue's start is known
    second = builder.add([Word("Thanks.", 10.6, 11.0)], utterance_end=True)
    assert [(c.start, c.end) for c in second] == [(10.0, 10.6)]
    [last] = builder.flush()
    assert (last.start, last.end) == (10.6, 11.6)


def test_break_lines_prefers_sentence_ends_then_balance():
    assert break_lines("Good morning, everyone! Let's start the weekly meeting.".split(), MAX_CHARS) == [
        "Good morning, everyone!",
        "Let's start the weekly meeting.",
    ]
    balanced = break_lines("we need to discuss the new website and the project costs".split(), MAX_CHARS)
    assert len(balanced) == 2 and abs(len(balanced[0]) - len(balanced[1])) <= 8
    assert break_lines(["word"] * 30, MAX_CHARS) is None  # three lines' worth
    assert break_lines(["Donaudampfschifffahrtsgesellschaftskapitän" * 2], MAX_CHARS) == [
        "Donaudampfschifffahrtsgesellschaftskapitän" * 2
    ]


def test_timed_words_keep_the_recognisers_times_when_they_spell_the_text():
    words = [["Good", 0.4, 0.7], [" morning,", 0.7, 1.2]]
    assert timed_words("Good morning,", 0.4, 1.2, words) == [Word("Good", 0.4, 0.7), Word("morning,", 0.7, 1.2)]
    # The final's text wins when the words disagree with it; its span is shared out evenly.
    spread = timed_words("Good morning everyone", 1.0, 4.0, words)
    assert [w.text for w in spread] == ["Good", "morning", "everyone"]
    assert [(w.start, w.end) for w in spread] == [(1.0, 2.0), (2.0, 3.0), (3.0, 4.0)]
    assert timed_words("", 2.0, 2.0, []) == []
