"""Rooms without sockets or models: the roster of named participants and the time-ordered interleave."""

from __future__ import annotations

import pytest

from streamtwin.twin.extract import RuleExtractor
from streamtwin.rooms.roster import COLOUR_SLOTS, Interleave, Roster, RosterError, clean_name


def test_names_are_checked_and_folded():
    assert clean_name("  Tom \t Smith ") == "Tom Smith"
    assert clean_name("Zoë\u0007") == "Zoë"  # control characters go
    for bad in ("", "   ", None, 3, "x" * 41, "S2"):
        with pytest.raises(RosterError) as refused:
            clean_name(bad)
        assert refused.value.code == "bad_name"


def test_roster_admits_unique_names_up_to_its_size_and_gives_each_a_colour():
    roster = Roster(max_participants=3)
    tom = roster.join("Tom", 0.0)
    priya = roster.join("Priya", 5.0)
    assert (tom.slot, priya.slot) == (1, 2)
    with pytest.raises(RosterError) as taken:
        roster.join("tom", 6.0)
    assert taken.value.code == "name_taken"
    roster.join("Ann", 7.0)
    with pytest.raises(RosterError) as full:
        roster.join("Bob", 8.0)
    assert full.value.code == "room_full"
    assert roster.leave("Tom") == tom and roster.leave("Tom") is None
    bob = roster.join("Bob", 9.0)
    assert bob.slot == 4 and list(roster.members) == ["Priya", "Ann", "Bob"]  # a slot is not reused at once
    assert all(1 <= m.slot <= COLOUR_SLOTS for m in roster.members.values())


def push(interleave, stream, text, utterance, start, ends, now):
    return [(item, number) for item, number in
            interleave.push(stream, text, utterance=utterance, start=start, ends=ends, now=now)]


def test_an_utterance_at_a_time_in_order_of_start():
    room = Interleave(max_hold_s=10.0)
    assert push(room, "Tom", "tom-1a", 1, 0.0, False, now=1.0) == [("tom-1a", 1)]
    # Priya spoke at the same time: her finals wait for Tom's utterance to end.
    assert push(room, "Priya", "priya-1a", 1, 0.5, False, now=1.2) == []
    assert push(room, "Priya", "priya-1b", 1, 0.5, True, now=1.5) == []
    assert push(room, "Tom", "tom-1b", 1, 0.0, True, now=2.0) == [("tom-1b", 1), ("priya-1a", 2), ("priya-1b", 2)]
    # Tom's next utterance gets a number of its own, though his stream counts it 2 and Priya's 1 was 2.
    assert push(room, "Tom", "tom-2", 2, 3.0, True, now=4.0) == [("tom-2", 3)]


def test_the_earliest_waiting_utterance_gets_the_floor_next():
    room = Interleave(max_hold_s=10.0)
    push(room, "Ann", "ann", 1, 0.0, False, now=0.0)
    push(room, "Bob", "bob", 1, 3.0, True, now=4.0)  # started later
    push(room, "Cy", "cy", 1, 1.0, True, now=4.5)  # started earlier: goes first
    released = push(room, "Ann", "ann-end", 1, 0.0, True, now=5.0)
    assert [item for item, _ in released] == ["ann-end", "cy", "bob"]


def test_a_final_waits_at_most_max_hold():
    room = Interleave(max_hold_s=2.0)
    push(room, "Tom", "tom-a", 1, 0.0, False, now=0.0)
    assert push(room, "Priya", "priya", 1, 0.5, True, now=1.0) == []
    assert room.next_deadline() == 3.0
    assert room.release(now=2.9) == []
    assert room.release(now=3.0) == [("priya", 2)]  # Tom's monologue is interrupted
    # Tom's utterance continues under its number (a new paragraph downstream).
    assert push(room, "Tom", "tom-b", 1, 0.0, True, now=3.5) == [("tom-b", 1)]


def test_a_stream_that_leaves_gives_up_the_floor_with_what_it_held():
    room = Interleave(max_hold_s=10.0)
    push(room, "Tom", "tom-a", 1, 0.0, False, now=0.0)
    push(room, "Priya", "priya", 1, 1.0, True, now=1.0)
    assert room.remove("Tom", now=2.0) == [("priya", 2)]
    assert push(room, "Priya", "priya-2", 2, 5.0, True, now=6.0) == [("priya-2", 3)]


def test_a_revision_goes_out_under_the_rooms_number_after_its_utterances_last_final():
    room = Interleave(max_hold_s=10.0)
    push(room, "Tom", "tom-1", 1, 0.0, False, now=0.0)
    assert push(room, "Priya", "priya-1", 1, 0.5, True, now=1.0) == []  # held behind Tom
    assert room.revise("Priya", "priya-1 revised", utterance=1) == []  # so is her revision
    assert push(room, "Tom", "tom-1 end", 1, 0.0, True, now=2.0) == [
        ("tom-1 end", 1), ("priya-1", 2), ("priya-1 revised", 2)]
    assert room.revise("Tom", "tom-1 revised", utterance=1) == [("tom-1 revised", 1)]  # already out
    assert room.revise("Tom", "again", utterance=1) == []  # one revision per utterance
    assert room.revise("Nobody", "?", utterance=1) == []


def test_i_will_is_the_named_participants_task():
    """What a room's assistant hands the rules: each utterance with its participant's name."""
    rules = RuleExtractor()
    rules.add("Thanks everyone. The draft is almost done.", speaker="Tom")
    rules.add("I will send the report on Friday.", speaker="Priya")
    draft = rules.draft()
    assert [(item["owner"], "report" in item["text"]) for item in draft["action_items"]] == [("Priya", True)]


def test_the_terminal_view_names_the_participants():
    import io

    from streamtwin.events import ParticipantJoined, ParticipantLeft, SessionEnded, TranscriptFinal
    from streamtwin.outputs.text import TextOutput

    out = io.StringIO()
    view = TextOutput(out, io.StringIO(), live=False)
    view(ParticipantJoined(name="Tom", slot=2, media_time=1.5))
    view(TranscriptFinal(text="I will send the report.", start=2.0, end=3.5, utterance=1, utterance_end=True,
                         speaker="Tom", speaker_name="Tom"))
    view(ParticipantLeft(name="Tom", slot=2, media_time=9.0))
    view(SessionEnded(media_time=9.0))
    assert out.getvalue().splitlines() == [
        "  [00:01] Tom joined the room", "[00:02] Tom: I will send the report.", "  [00:09] Tom left the room"
    ]


def test_ids_and_tokens_never_start_with_a_dash():
    """They go on command lines: `--session -abc` would be read as an option (seen: 1 id in 64)."""
    from streamtwin.service.access import new_secret

    secrets = {new_secret() for _ in range(2000)}
    assert len(secrets) == 2000 and not [s for s in secrets if s.startswith("-")]
    assert all(len(s) == 22 for s in secrets)
