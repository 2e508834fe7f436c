"""The shared engine's scheduling policy: earliest deadline first, fair, batched when windows are alike."""

from __future__ import annotations

from streamtwin.speech.schedule import SLACK_S, DecodeScheduler


def test_earliest_deadline_first_and_an_utterance_end_jumps_the_queue():
    scheduler = DecodeScheduler(max_batch=1)
    scheduler.want("talker", now=0.0, kind="step", seconds=3.0)
    scheduler.want("quiet", now=0.1, kind="step", seconds=3.0)
    scheduler.want("ending", now=0.2, kind="final", seconds=3.0)
    assert [scheduler.next_batch() for _ in range(3)] == [["ending"], ["talker"], ["quiet"]]
    assert scheduler.next_batch() == [] and scheduler.depth == 0


def test_a_stream_that_talks_non_stop_cannot_starve_a_quiet_one():
    scheduler = DecodeScheduler(max_batch=1)
    served: list[str] = []
    now = 0.0
    scheduler.want("talker", now, "step", 5.0)
    for step in range(40):
        now += 0.1  # each decode takes 0.1 s
        if step == 3:
            scheduler.want("quiet", now, "step", 1.0)
        (stream,) = scheduler.next_batch()
        served.append(stream)
        if stream == "talker":
            scheduler.want("talker", now, "step", 5.0)  # asks again at once
    assert served.count("quiet") == 1
    assert served.index("quiet") <= 5  # served within its slack, not after the talker's backlog
    assert served[:3] == ["talker"] * 3


def test_asking_twice_keeps_the_earlier_deadline():
    scheduler = DecodeScheduler(max_batch=1)
    scheduler.want("a", 0.0, "step", 2.0)
    scheduler.want("b", 0.1, "step", 2.0)
    scheduler.want("a", 5.0, "step", 2.0)  # a repeated wish does not send it to the back
    assert scheduler.next_batch() == ["a"]


def test_alike_windows_are_batched_and_very_different_ones_are_not():
    scheduler = DecodeScheduler(max_batch=4, max_padding=0.2, tail_s=6.0)
    scheduler.want("a", 0.0, "step", 3.0)
    scheduler.want("b", 0.0, "step", 3.5)
    scheduler.want("c", 0.0, "step", 2.5)
    scheduler.want("long", 0.0, "step", 28.0)  # padding the others to 34 s would waste most of the batch
    batch = scheduler.next_batch()
    assert sorted(batch) == ["a", "b", "c"]
    assert scheduler.next_batch() == ["long"]


def test_batch_size_is_capped_and_drop_forgets_a_stream():
    scheduler = DecodeScheduler(max_batch=2)
    for name in "abcd":
        scheduler.want(name, 0.0, "step", 2.0)
    scheduler.drop("a")
    assert len(scheduler.next_batch()) == 2
    assert scheduler.depth == 1


def test_slack_orders_kinds_by_how_long_a_person_waits():
    assert SLACK_S["final"] < SLACK_S["pause"] < SLACK_S["step"]
