"""The meeting notes (`run --format md`) say who spoke as the page shows it at the end: the voices
``speaker.turns`` moved and the names ``speaker.named`` gave apply to every paragraph, not only to what
came after them (pure: events in, the document out)."""

from __future__ import annotations

import io

from streamtwin.events import SessionEnded, SpeakerNamed, SpeakerTurns, TranscriptFinal, TranscriptRevised
from streamtwin.outputs.notes import MarkdownOutput


def notes(events) -> list[str]:
    out = io.StringIO()
    output = MarkdownOutput(out)
    for event in [*events, SessionEnded()]:
        output(event)
    return out.getvalue().split("\n## Transcript\n\n")[1].strip().split("\n\n")


def final(text: str, start: float, end: float, utterance: int, speaker: str = "", *, last: bool = True,
          name: str = "") -> TranscriptFinal:
    return TranscriptFinal(text=text, start=start, end=end, utterance=utterance, utterance_end=last,
                           speaker=speaker, speaker_name=name)


MERGED = [
        final("Good morning everyone.", 0.5, 2.0, 1, "S1"),
        final("Let us start.", 2.5, 3.5, 2, "S2"),
        final("Thanks, Alice.", 5.0, 6.0, 3, "S3"),
        SpeakerTurns(turns=[{"utterance": 2, "start": 2.0, "end": 4.0, "speaker": "S1", "speaker_name": ""}],
                     reason="merged", merged={"S2": "S1"}),
        SpeakerNamed(speaker="S1", name="Alice", how="addressed", utterance=3),
]


def test_a_merge_and_a_name_reach_the_paragraphs_said_before_them():
    assert notes(MERGED) == [
        "**00:00** **Alice:** Good morning everyone.",
        "**00:02** **Alice:** Let us start.",
        "**00:05** **S3:** Thanks, Alice.",
    ]


SPLIT = [
    final("I can do it", 10.0, 11.5, 4, "S1", last=False),
    final("by Friday.", 11.5, 12.3, 4, "S1", last=False),
    final("Great, thanks.", 12.8, 14.0, 4, "S4", name="Bob"),
    SpeakerTurns(turns=[{"utterance": 4, "start": 9.5, "end": 12.5, "speaker": "S1", "speaker_name": ""},
                        {"utterance": 4, "start": 12.5, "end": 14.5, "speaker": "S4", "speaker_name": "Bob"}],
                 reason="split"),
]
REVISED = [
    TranscriptRevised(
        text="I can do it by Friday. Great, thanks!", start=10.0, end=14.0, utterance=4, speaker="S4",
        speaker_name="Bob", replaces="I can do it by Friday. Great, thanks.",
        words=[["I", 10.0, 10.2], ["can", 10.2, 10.5], ["do", 10.5, 10.8], ["it", 10.8, 11.4], ["by", 11.5, 11.8],
               ["Friday.", 11.8, 12.3], ["Great,", 12.8, 13.3], ["thanks!", 13.3, 14.0]],
    ),
    SpeakerNamed(speaker="S1", name="Carol", how="viewer"),
]
# a later re-clustering moves the revised words again, by their own times
MOVED = [SpeakerTurns(turns=[{"utterance": 4, "start": 12.5, "end": 14.5, "speaker": "S1", "speaker_name": ""}],
                      reason="recluster")]
TAKEN_BACK = [
    final("Hello.", 21.0, 22.0, 5, "S5", name="Tom"),
    final("Anyone there?", 23.0, 24.0, 6),
    SpeakerNamed(speaker="S5", name="", how="introduced", previous="Tom"),
]
VOICED = [*MERGED, *SPLIT, *REVISED, *MOVED, *TAKEN_BACK]  # the page is held to the same (test_browser_transcript)


def test_a_split_utterance_shows_each_voice_where_it_spoke_and_keeps_the_split_through_its_revision():
    assert notes(SPLIT) == ["**00:10** **S1:** I can do it by Friday. **Bob:** Great, thanks."]
    assert notes(SPLIT + REVISED) == ["**00:10** **Carol:** I can do it by Friday. **Bob:** Great, thanks!"]
    assert notes(SPLIT + REVISED + MOVED) == ["**00:10** **Carol:** I can do it by Friday. Great, thanks!"]


def test_a_name_taken_back_shows_the_label_and_unlabelled_speech_shows_no_one():
    assert notes(TAKEN_BACK) == ["**00:21** **S5:** Hello.", "**00:23** Anyone there?"]
    assert notes(TAKEN_BACK[:2]) == ["**00:21** **Tom:** Hello.", "**00:23** Anyone there?"]
