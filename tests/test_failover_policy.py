"""The failover and racing policy, driven by hand: events in, actions out, time passed in."""

from __future__ import annotations

from streamtwin.llm.routing import (
    FALLBACK,
    PRIMARY,
    RACE,
    Answer,
    BackendHealth,
    Cancel,
    CallRouter,
    GiveUp,
    Launch,
)

NAMES = ("groq", "openai", "local")


def router(members: int = 2, race: int = 1, health: BackendHealth | None = None) -> CallRouter:
    return CallRouter(health or BackendHealth(), members, race, first_token_s=5.0, stall_s=3.0, names=NAMES)


def test_the_primary_answers_when_nothing_goes_wrong():
    call = router()
    assert call.start(0.0) == [Launch(0)]
    assert call.next_deadline() == 5.0  # the first token is due
    assert call.on_token(0, 0.4) == [Answer(0, PRIMARY)]
    assert call.on_token(0, 0.5) == []
    assert call.next_deadline() == 3.5  # now a stall is measured from the last token
    assert call.on_finished(0, 1.0) == []
    assert call.done and call.next_deadline() is None


def test_an_error_before_the_first_token_hands_the_call_to_the_fallback():
    call = router()
    call.start(0.0)
    assert call.on_error(0, 0.2, "server (HTTP 500)") == [Launch(1)]
    assert call.next_deadline() == 5.2
    assert call.on_token(1, 0.6) == [Answer(1, FALLBACK, "groq: server (HTTP 500)")]
    assert call.on_finished(1, 1.0) == [] and call.done


def test_no_first_token_in_time_is_a_stall():
    call = router()
    call.start(0.0)
    assert call.tick(4.99) == []
    assert call.tick(5.0) == [Cancel(0, "no first token in 5 s"), Launch(1)]
    assert call.on_token(0, 5.1) == [], "a cancelled member's late token is stale"
    assert call.on_error(0, 5.1, "cancelled") == []
    assert call.on_token(1, 5.3) == [Answer(1, FALLBACK, "groq: no first token in 5 s")]


def test_a_stall_mid_stream_restarts_the_answer_on_the_fallback():
    call = router()
    call.start(0.0)
    call.on_token(0, 1.0)
    call.on_token(0, 1.5)
    assert call.tick(4.49) == []
    assert call.tick(4.5) == [Cancel(0, "stalled, no token for 3 s"), Launch(1)]
    assert call.answering is None
    assert call.on_token(1, 4.8) == [
        Answer(1, FALLBACK, "groq: stalled, no token for 3 s", previous=0, restart=True)
    ]


def test_an_error_mid_stream_restarts_the_answer_too():
    call = router()
    call.start(0.0)
    call.on_token(0, 0.1)
    assert call.on_error(0, 0.3, "stream_broken") == [Launch(1)]
    assert call.on_finished(1, 0.9) == [Answer(1, FALLBACK, "groq: stream_broken", previous=0, restart=True)]


def test_the_first_racer_to_produce_a_token_answers_and_the_other_is_cancelled():
    call = router(race=2)
    assert call.start(0.0) == [Launch(0), Launch(1)]
    assert call.on_token(1, 0.08) == [Cancel(0, "lost the race"), Answer(1, RACE)]
    assert call.on_token(0, 0.3) == []
    assert call.on_finished(0, 0.4) == [], "the loser's end changes nothing"
    assert call.on_finished(1, 0.5) == [] and call.done


def test_a_racer_that_fails_leaves_the_race_to_the_other():
    call = router(race=2)
    call.start(0.0)
    assert call.on_error(0, 0.01, "rate_limited") == []
    assert call.on_token(1, 0.2) == [Answer(1, RACE, "groq: rate_limited")]


def test_an_empty_answer_still_wins_the_race():
    call = router(race=2)
    call.start(0.0)
    assert call.on_finished(1, 0.1) == [Cancel(0, "lost the race"), Answer(1, RACE)]
    assert call.done


def test_racers_that_all_fail_hand_over_to_the_fallbacks():
    call = router(members=3, race=2)
    assert call.start(0.0) == [Launch(0), Launch(1)]
    assert call.on_error(1, 0.1, "server") == []
    assert call.tick(5.0) == [Cancel(0, "no first token in 5 s"), Launch(2)]
    assert call.on_token(2, 5.5) == [Answer(2, FALLBACK, "openai: server; groq: no first token in 5 s")]


def test_when_every_member_fails_the_call_gives_up_with_the_last_failure():
    call = router()
    call.start(0.0)
    call.on_error(0, 0.1, "auth")
    assert call.tick(5.1) == [
        Cancel(1, "no first token in 5 s"),
        GiveUp(1, "groq: auth; openai: no first token in 5 s", stalled=True),
    ]
    assert call.done and call.next_deadline() is None

    call = router()
    call.start(0.0)
    call.on_error(0, 0.1, "auth")
    assert call.on_error(1, 0.2, "server") == [GiveUp(1, "groq: auth; openai: server", stalled=False)]


def test_a_failed_member_rests_so_the_next_calls_go_straight_to_the_fallback():
    health = BackendHealth(cooldown_s=10.0, max_cooldown_s=120.0)
    first = router(health=health)
    first.start(0.0)
    first.tick(5.0)  # the primary stalled: it rests until 15 s
    first.on_finished(1, 5.5)

    second = router(health=health)
    assert second.start(6.0) == [Launch(1)]
    assert second.on_token(1, 6.1) == [Answer(1, FALLBACK, "groq: resting after a failure")]

    third = router(health=health)
    assert third.start(15.0) == [Launch(0)], "rested: the primary is tried again"
    third.on_error(0, 15.1, "server")  # a second failure in a row: 20 s this time
    assert health.resting(0, 35.0) and not health.resting(0, 35.2)
    third.on_finished(1, 15.5)

    fourth = router(health=health)
    fourth.start(40.0)
    fourth.on_finished(0, 40.5)  # a success clears the record
    health.failed(0, 41.0)
    assert not health.resting(0, 51.0)


def test_retry_after_outlasts_the_cool_down_and_a_resting_racer_sits_the_race_out():
    health = BackendHealth(cooldown_s=10.0)
    health.failed(0, 0.0, retry_after=30.0)
    call = router(race=2, health=health)
    assert call.start(20.0) == [Launch(1)]
    assert call.on_token(1, 20.1) == [Answer(1, FALLBACK, "groq: resting after a failure")]
    assert router(race=2, health=health).start(30.0) == [Launch(0), Launch(1)]


def test_when_everyone_rests_the_one_back_soonest_is_tried():
    health = BackendHealth()
    health.failed(0, 0.0, retry_after=60.0)
    health.failed(1, 0.0)
    call = router(health=health)
    assert call.start(1.0) == [Launch(1)]
    assert call.on_error(1, 1.1, "server") == [Launch(0)]
    assert call.on_token(0, 1.2) == [Answer(0, FALLBACK, "groq: resting after a failure; "
                                                        "openai: resting after a failure; openai: server")]


def test_cost_per_token_of_the_answering_member_is_a_timestamp():
    call = router()
    call.start(0.0)
    call.on_token(0, 0.1)
    for index in range(1000):
        assert call.on_token(0, 0.1 + index * 0.001) == []
    assert call.next_deadline() == 0.1 + 999 * 0.001 + 3.0


def test_when_the_race_winner_fails_mid_stream_the_loser_starts_the_answer_again():
    call = router(members=3, race=2)
    call.start(0.0)
    call.on_token(0, 0.1)
    assert call.on_error(0, 0.5, "stream_broken") == [Launch(1)], "the racer that lost goes before the fallback"
    assert call.on_token(1, 0.7) == [Answer(1, FALLBACK, "groq: stream_broken", previous=0, restart=True)]
