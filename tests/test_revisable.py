"""The rules read a revised utterance anew, and everything said after it (plain class, no model)."""

from __future__ import annotations

from streamtwin.twin.revisable import RevisableRules, puts_words_in_mouth


def items(rules: RevisableRules) -> list[tuple[str, str, str]]:
    return [(i["text"], i["owner"], i["due"]) for i in rules.extractor.draft()["action_items"]]


def test_a_revised_due_date_replaces_the_misheard_one():
    rules = RevisableRules()
    rules.add("Carol, please send the report by Thursday.", utterance=1)
    rules.add("We decided to launch in June.", utterance=2)
    assert rules.revise(1, "Carol, please send the report by Tuesday.")
    assert [(owner, due) for _, owner, due in items(rules)] == [("Carol", "Tuesday")]
    assert rules.extractor.draft()["decisions"]  # what came after is still read


def test_what_follows_a_revision_is_read_in_its_light():
    rules = RevisableRules()
    rules.add("So, can you fix the login bug?", utterance=1)  # misheard: nobody was asked
    rules.add("Yes, I will fix the login bug.", utterance=2)
    rules.rename("S2", "Priya")
    assert items(rules) == [("fix the login bug", "unassigned", "")]
    assert rules.revise(1, "Tom, can you fix the login bug?")
    assert items(rules) == [("fix the login bug", "Tom", "")]  # "I will ..." answers the one asked, as heard now
    assert rules.extractor.persons() == {"Tom"}


def test_renames_after_a_revised_utterance_still_hold():
    rules = RevisableRules()
    rules.add("I will fix the failing tests by Wednesday.", speaker="S2", utterance=1)
    rules.rename("S2", "Tom")
    rules.add("Good.", utterance=2)
    assert rules.revise(1, "I will fix the failing test by Wednesday.")
    assert [owner for _, owner, _ in items(rules)] == ["Tom"]


def test_only_recent_numbered_utterances_can_be_revised():
    rules = RevisableRules(keep=2)
    rules.add("Carol, please send the report by Thursday.", utterance=1)
    rules.add("Fine.", utterance=2)
    rules.add("Okay.", utterance=3)
    assert not rules.revise(1, "Carol, please send the report by Tuesday.")  # too old: final
    assert not rules.revise(3, "Okay.")  # the same words
    assert not rules.revise(0, "anything")  # unnumbered utterances are never revised
    assert [due for _, _, due in items(rules)] == ["Thursday"]


def test_an_utterance_relabelled_to_another_voice_gives_its_task_to_that_voice():
    from streamtwin.twin.revisable import RevisableRules

    rules = RevisableRules()
    rules.add("Good morning, this is David speaking.", "David", 1)
    rules.add("I will fix the failing tests by Wednesday.", "David", 3)  # Tom, first taken for David's voice
    assert rules.revise(3, speaker="Tom")
    assert [(i["text"], i["owner"]) for i in rules.extractor.draft()["action_items"]] == [
        ("fix the failing tests", "Tom")]
    assert not rules.revise(3, speaker="Tom")  # nothing changed


def test_a_revision_that_has_its_speaker_promise_what_the_first_reading_did_not_is_not_trusted():
    # samples/meeting.wav, Whisper base: the finals heard it right, the revision made Bob promise to "work cost".
    assert puts_words_in_mouth("Then I'll work cost more money than we planned.",
                               "The design work cost more money than we planned.")
    assert puts_words_in_mouth("Mention me the course link, I'll wait on.", "Then send the course link, all-way soon.")
    # The first reading heard the speaker of themselves: the revision's tense is the better reading.
    assert not puts_words_in_mouth("Okay, I'll log a ticket with the vendor today.",
                                   "Okay, I log a ticket with the vendor today.")
    assert not puts_words_in_mouth("Happy to, I'll recruit 25 beta testers.", "Happy 2, I recruit 25 beta testers.")
    # Taking a promise back, or a revision with no promise, is always the revision's to make.
    assert not puts_words_in_mouth("I built reports in Python and SQL.", "I will report Sim Python, and SQL.")
    assert not puts_words_in_mouth("The quiz is on Monday.", "The quiddet on my back.")
    assert not puts_words_in_mouth("I'll send it.", "")  # nothing to compare with
