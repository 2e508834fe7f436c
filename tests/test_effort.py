"""Best-of-N and refine rounds chosen from measured speed: a fake clock and fake speeds."""

from __future__ import annotations

from streamtwin.assistant.effort import Effort, EffortPolicy


def measured(policy: EffortPolicy, now: float, ttft_s: float, tokens_per_s: float, streams: int = 3) -> None:
    for i in range(streams):
        policy.observe_stream(now + i, ttft_s, 200, 200 / tokens_per_s)


def test_nothing_measured_yet_means_one_sample_and_no_refinement():
    assert EffortPolicy(1.0, parallel=4).plan(0.0) == Effort(1, 0, 1.0, None)


def test_a_slow_local_model_stays_at_one_sample_and_no_refinement():
    policy = EffortPolicy(1.0)  # llama.cpp: one stream at a time
    measured(policy, 0.0, ttft_s=0.4, tokens_per_s=18)
    policy.observe_reply(300)
    effort = policy.plan(10.0)
    assert (effort.samples, effort.refine) == (1, 0)
    assert effort.call_s > 16


def test_a_fast_backend_affords_parallel_samples_and_a_refine_round_within_the_budget():
    policy = EffortPolicy(1.0, parallel=2)
    measured(policy, 0.0, ttft_s=0.1, tokens_per_s=1000)
    policy.observe_reply(300)  # 0.1 + 0.3 s a call: two fit in the budget
    assert policy.plan(5.0) == Effort(2, 1, 1.0, 0.4)


def test_a_very_fast_backend_gets_the_most_samples_one_after_another_and_refine_rounds():
    policy = EffortPolicy(1.0, parallel=1, max_samples=5, max_refine=3)
    measured(policy, 0.0, ttft_s=0.02, tokens_per_s=100_000)
    policy.observe_reply(400)  # 24 ms a call: 41 calls would fit
    effort = policy.plan(5.0)
    assert (effort.samples, effort.refine) == (5, 3)
    assert (effort.samples + effort.refine) * effort.call_s <= effort.budget_s


def test_one_after_another_the_samples_and_rounds_together_fit_the_budget():
    for tokens_per_s in (300, 600, 1000, 2000, 5000, 20_000):
        policy = EffortPolicy(1.0, parallel=1)
        measured(policy, 0.0, ttft_s=0.05, tokens_per_s=tokens_per_s)
        policy.observe_reply(250)
        effort = policy.plan(5.0)
        calls = effort.samples + effort.refine
        assert calls == 1 or calls * effort.call_s <= effort.budget_s, (tokens_per_s, effort)


def test_a_tighter_budget_buys_fewer_rounds():
    efforts = []
    for budget in (0.3, 1.0, 3.0):
        policy = EffortPolicy(budget, parallel=1)
        measured(policy, 0.0, ttft_s=0.05, tokens_per_s=2000)
        policy.observe_reply(300)  # 0.2 s a call
        efforts.append(policy.plan(5.0))
    assert [(e.samples, e.refine) for e in efforts] == [(1, 0), (3, 2), (5, 3)]


def test_longer_twin_replies_cost_more_per_call():
    policy = EffortPolicy(1.0, parallel=1, reply_tokens=512)
    measured(policy, 0.0, ttft_s=0.0, tokens_per_s=2000)
    assert policy.plan(5.0).call_s == 512 / 2000  # the cap, until a reply is measured
    for _ in range(3):
        policy.observe_reply(100)
    assert policy.plan(5.0).call_s == 100 / 2000
    assert policy.plan(5.0).samples > 1


def test_stale_measurements_are_forgotten_and_the_plan_falls_back():
    policy = EffortPolicy(1.0, parallel=2, max_age_s=60.0)
    measured(policy, 0.0, ttft_s=0.05, tokens_per_s=5000)
    assert policy.plan(30.0).samples > 1
    assert policy.plan(120.0) == Effort(1, 0, 1.0, None)
    measured(policy, 130.0, ttft_s=2.0, tokens_per_s=50)  # the backend slowed down
    assert (policy.plan(140.0).samples, policy.plan(140.0).refine) == (1, 0)


def test_one_odd_stream_does_not_swing_the_plan():
    policy = EffortPolicy(1.0, parallel=1)
    measured(policy, 0.0, ttft_s=0.05, tokens_per_s=2000, streams=4)
    policy.observe_stream(10.0, 5.0, 200, 10.0)  # one stream stuck behind a rate limit
    policy.observe_reply(300)
    assert policy.plan(11.0).call_s == 0.2


def test_short_or_untimed_streams_are_not_measurements():
    policy = EffortPolicy(1.0, parallel=4)
    policy.observe_stream(0.0, 0.01, 1, 0.0)
    policy.observe_stream(0.0, 0.01, 50, 0.0)
    assert policy.plan(1.0).call_s is None


def test_samples_and_rounds_set_by_the_person_are_used_as_given():
    policy = EffortPolicy(1.0, parallel=1, samples=3, refine=0)
    assert (policy.plan(0.0).samples, policy.plan(0.0).refine) == (3, 0)
    measured(policy, 0.0, ttft_s=0.01, tokens_per_s=100_000)
    assert (policy.plan(1.0).samples, policy.plan(1.0).refine) == (3, 0)
    only_samples = EffortPolicy(1.0, parallel=1, samples=2)
    measured(only_samples, 0.0, ttft_s=0.05, tokens_per_s=2000)
    only_samples.observe_reply(300)  # 0.2 s a call, 5 in the budget: 2 samples, then up to 3 rounds
    assert (only_samples.plan(1.0).samples, only_samples.plan(1.0).refine) == (2, 3)
