"""Two voices in one utterance: each part read as its speaker's (the rules, the window, grounding)."""

from __future__ import annotations

from streamtwin.assistant.builder import build_assistant
from streamtwin.assistant.voice_parts import VoiceParts
from streamtwin.bus import EventBus
from streamtwin.config import Config
from streamtwin.events import SpeakerTurns, TranscriptFinal, TranscriptRevised
from streamtwin.twin.revisable import RevisableRules
from streamtwin.utterances import split_at_turns


def timed(text: str, start: float, step: float = 0.4) -> list[list]:
    return [[word, start + i * step, start + (i + 1) * step] for i, word in enumerate(text.split())]


def test_words_go_to_the_turn_their_middle_lies_in_and_a_word_outside_every_turn_to_the_nearest():
    words = timed("I will email the date. One open question", 10.0)  # 10.0 .. 13.2
    turns = [(10.0, 12.0, "Alice"), (12.0, 13.0, "Bob")]
    assert split_at_turns(words, turns) == [("I will email the date.", "Alice"), ("One open question", "Bob")]
    assert split_at_turns(words, [(10.0, 13.0, "Alice")]) == [("I will email the date. One open question", "Alice")]
    assert split_at_turns(words, []) == []


def test_the_rules_read_each_part_as_its_speakers_and_a_later_split_rereads_what_followed():
    rules = RevisableRules()
    rules.add("No. I will email the new date to the marketing team on Thursday. One open question is support.",
              "Bob", utterance=7)
    rules.add("Good point.", "Alice", utterance=8)
    assert [i["owner"] for i in rules.extractor.draft()["action_items"]] == ["Bob"]
    assert rules.split(7, [("No. I will email the new date to the marketing team on Thursday.", "Alice"),
                           ("One open question is support.", "Bob")])
    assert [i["owner"] for i in rules.extractor.draft()["action_items"]] == ["Alice"]
    assert not rules.split(99, [("Hello.", "Alice")])  # not among the recent ones


def test_voice_parts_follow_splits_relabels_and_revisions():
    parts = VoiceParts(keep=2)
    parts.heard(7, timed("I will email it. One question", 40.0))  # 40.0 .. 42.4
    parts.heard(8, timed("Good point.", 43.0))
    turn = lambda u, a, b, s: {"utterance": u, "start": a, "end": b, "speaker": s, "speaker_name": ""}  # noqa: E731
    assert parts.on_turns([turn(7, 40.0, 41.6, "S1"), turn(7, 41.6, 42.4, "S2")], split=True) == {
        7: [("I will email it.", "S1"), ("One question", "S2")]}
    # A relabel moves a part of a split utterance; an utterance not split moves whole (not listed).
    assert parts.on_turns([turn(7, 41.6, 42.4, "S3"), turn(8, 43.0, 43.8, "S3")], split=False) == {
        7: [("I will email it.", "S1"), ("One question", "S3")]}
    assert parts.on_revision(7, timed("I will mail it. One question", 40.0)) == [
        ("I will mail it.", "S1"), ("One question", "S3")]
    assert parts.on_revision(8, timed("Good point!", 43.0)) is None
    parts.heard(9, timed("Next.", 45.0))  # keeps two: utterance 7 is final now
    assert parts.on_turns([turn(7, 40.0, 42.4, "S2")], split=True) == {}


async def test_a_task_said_before_another_voice_ends_the_utterance_is_its_speakers():
    # Measured (samples/meeting.wav, Whisper base): Alice's "I will email the new date ..." and Bob's "One open
    # question ..." came as one utterance that Bob's voice ended; the twin showed the email task as Bob's.
    bus = EventBus("test")
    assistant = build_assistant(Config(llm="none"), None, bus.emit)
    bus.subscribe(assistant.on_event)
    await assistant.start()
    alice = "I will email the new date to the marketing team on Thursday."
    bob = "One open question is whether we need more people."
    bus.emit(TranscriptFinal(text=alice, start=40.0, end=44.8, words=timed(alice, 40.0), utterance=7,
                             speaker="S1", speaker_name="Alice"))
    bus.emit(TranscriptFinal(text=bob, start=44.8, end=48.8, words=timed(bob, 44.8), utterance=7, utterance_end=True,
                             speaker="S2", speaker_name="Bob"))
    owners = lambda: [(i["text"], i["owner"]) for i in assistant.twin_updater.freshest()["action_items"]]  # noqa: E731
    assert owners() == [("email the new date to the marketing team", "Bob")]  # the utterance's last voice
    bus.emit(SpeakerTurns(turns=[{"utterance": 7, "start": 40.0, "end": 44.8, "speaker": "S1", "speaker_name": "Alice"},
                                 {"utterance": 7, "start": 44.8, "end": 48.8, "speaker": "S2", "speaker_name": "Bob"}],
                          reason="split"))
    assert owners() == [("email the new date to the marketing team", "Alice")]
    assert f"Alice: {alice} | Bob: {bob}" in assistant.window.context_text()
    revised = "I will email the new date to the sales team on Thursday."
    bus.emit(TranscriptRevised(text=f"{revised} {bob}", start=40.0, end=48.8, words=timed(f"{revised} {bob}", 40.0),
                               utterance=7, replaces=f"{alice} {bob}", speaker="S2", speaker_name="Bob"))
    assert owners() == [("email the new date to the sales team", "Alice")]
    assert f"Alice: {revised} | Bob: {bob}" in assistant.window.context_text()
    await assistant.close()
