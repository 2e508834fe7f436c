from __future__ import annotations

import pytest

from streamtwin.assistant.driver import Cancel, DriverPolicy, Start, normalize_utterance



def asked(gen_id: int, question: str) -> Start:
    """A question generation: it carries the words addressed to the assistant."""
    return Start(gen_id, "question", question=question)

def test_a_final_starts_a_generation_when_idle():
    policy = DriverPolicy()
    assert policy.on_final(0.0, "We should ship on Friday.") == [Start(1, "final")]
    assert policy.busy


def test_preempt_cancels_the_running_generation_and_restarts_on_fresh_context():
    policy = DriverPolicy(preempt=True)
    assert policy.on_final(0.0, "one") == [Start(1, "final")]
    assert policy.on_final(1.0, "two") == [Cancel(1, "preempted"), Start(2, "final")]
    assert policy.on_final(2.0, "three") == [Cancel(2, "preempted"), Start(3, "final")]
    # The cancelled ones report back late: nothing new starts, nothing is queued.
    assert policy.on_generation_done(2.1, 1, cancelled=True) == []
    assert policy.on_generation_done(2.2, 2, cancelled=True) == []
    assert policy.on_generation_done(3.0, 3) == []
    assert not policy.busy


def test_without_preemption_new_finals_coalesce_into_one_pending_start():
    policy = DriverPolicy(preempt=False)
    assert policy.on_final(0.0, "one") == [Start(1, "final")]
    for i in range(10):
        assert policy.on_final(1.0 + i, f"line {i}") == []
    assert policy.next_deadline() is None  # waits for the slot, not for time
    assert policy.tick(50.0) == []
    assert policy.on_generation_done(60.0, 1) == [Start(2, "final")]  # ONE start for ten finals
    assert policy.on_generation_done(61.0, 2) == []


def test_questions_get_their_trigger_and_are_not_preempted_by_ordinary_speech():
    policy = DriverPolicy(preempt=True)
    assert policy.on_final(0.0, "Assistant, what is the budget?") == [asked(1, "Assistant, what is the budget?")]
    assert policy.on_final(1.0, "Let me check.") == []  # coalesced behind the answer
    assert policy.on_generation_done(5.0, 1) == [Start(2, "final")]


def test_a_question_preempts_ordinary_commentary_but_a_newer_question_waits_for_the_answer():
    policy = DriverPolicy(preempt=True)
    assert policy.on_final(0.0, "The site is slow.") == [Start(1, "final")]
    assert policy.on_final(1.0, "Assistant, why is it slow?") == [Cancel(1, "preempted"), asked(2, "Assistant, why is it slow?")]
    assert policy.on_final(2.0, "Assistant, who will fix it?") == []
    assert policy.on_generation_done(3.0, 2) == [asked(3, "Assistant, who will fix it?")]


def test_a_question_heard_better_while_it_is_answered_is_asked_again_and_a_finished_answer_stands():
    policy = DriverPolicy(preempt=True)
    assert policy.on_final(0.0, "Assistant, what is time working on?", utterance=1) == [
        asked(1, "Assistant, what is time working on?")
    ]
    assert policy.on_revision(1.0, 1, "Assistant, what is Tom working on?", None) == [
        Cancel(1, "question_revised"), asked(2, "Assistant, what is Tom working on?")
    ]
    assert policy.on_generation_done(1.1, 1, cancelled=True) == []  # the cancelled one reports back late
    assert policy.on_generation_done(9.0, 2) == []
    assert policy.on_revision(10.0, 1, "Assistant, what is Tim working on?", None) == []  # answered: it stands
    assert policy.on_final(11.0, "The site is slow.", utterance=2) == [Start(3, "final")]
    assert policy.on_revision(11.5, 2, "The site is slow now.", None) == []  # not a question to us
    assert policy.on_generation_done(12.0, 3) == [] and not policy.busy


def test_a_pending_question_keeps_its_priority_over_later_finals():
    policy = DriverPolicy(preempt=False)
    assert policy.on_final(0.0, "one") == [Start(1, "final")]
    assert policy.on_final(1.0, "Assistant, summarise please") == []
    assert policy.on_final(2.0, "three") == []
    assert policy.on_generation_done(3.0, 1) == [asked(2, "Assistant, summarise please")]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Are we still launching next month?", False),  # people asking each other: context
        ("Assistant, what are our action items", True),
        ("Hey assistant list the decisions.", True),
        ("The assistant was useful last week and it is late now.", False),
        ("Sure, I will draw them. Assistant what open questions do we have?", True),  # no comma, mid-utterance
        ("We launch in June.", False),
    ],
)
def test_only_speech_addressed_to_the_assistant_is_a_question(text, expected):
    assert DriverPolicy().is_addressed(text) is expected


def test_scene_changes_and_heartbeats_never_preempt():
    policy = DriverPolicy(preempt=True)
    assert policy.on_final(0.0, "one") == [Start(1, "final")]
    assert policy.on_scene(1.0) == []
    assert policy.on_generation_done(2.0, 1) == [Start(2, "scene")]


def test_heartbeat_only_while_context_changed_since_the_last_generation():
    policy = DriverPolicy(heartbeat_s=20.0)
    assert policy.tick(100.0) == []  # nothing ever changed
    assert policy.next_deadline() is None
    assert policy.on_final(0.0, "one") == [Start(1, "final")]
    assert policy.on_generation_done(1.0, 1) == []
    assert policy.tick(30.0) == []  # nothing changed since that generation
    policy.note_context(31.0)  # e.g. a minor visual observation
    assert policy.next_deadline() == 20.0  # last start + heartbeat (already due)
    assert policy.tick(32.0) == [Start(2, "heartbeat")]
    assert policy.on_generation_done(33.0, 2) == []
    assert policy.tick(60.0) == []
    policy.note_context(61.0)
    assert policy.next_deadline() == 52.0
    assert policy.tick(61.5) == [Start(3, "heartbeat")]


def test_heartbeat_waits_a_full_period_after_the_last_start():
    policy = DriverPolicy(heartbeat_s=20.0)
    assert policy.on_final(0.0, "one") == [Start(1, "final")]
    policy.note_context(1.0)
    assert policy.on_generation_done(2.0, 1) == []
    assert policy.tick(19.9) == []
    assert policy.tick(20.0) == [Start(2, "heartbeat")]


def test_debounce_merges_a_burst_of_finals_but_not_questions():
    policy = DriverPolicy(debounce_s=0.5)
    assert policy.on_final(0.0, "one") == []
    assert policy.on_final(0.2, "two") == []
    assert policy.next_deadline() == 0.5
    assert policy.tick(0.4) == []
    assert policy.tick(0.5) == [Start(1, "final")]
    assert policy.on_generation_done(1.0, 1) == []
    assert policy.on_final(2.0, "three") == []
    assert policy.on_final(2.1, "Assistant, is that all?") == [asked(2, "Assistant, is that all?")]


def test_backend_error_backs_off_then_retries_once_with_the_failed_trigger():
    policy = DriverPolicy(backoff_initial_s=1.0, backoff_max_s=8.0)
    assert policy.on_final(0.0, "Assistant, what now?") == [asked(1, "Assistant, what now?")]
    policy.on_backend_error(0.5, retry_after=None, gen_id=1)
    assert policy.next_deadline() == 1.5
    assert policy.on_final(0.6, "more talk") == []  # no call during the backoff
    assert policy.tick(1.0) == []
    assert policy.tick(1.5) == [asked(2, "Assistant, what now?")]
    policy.on_backend_error(2.0, gen_id=2)
    assert policy.next_deadline() == 4.0  # doubled
    assert policy.tick(4.0) == [asked(3, "Assistant, what now?")]
    assert policy.on_generation_done(5.0, 3) == []
    assert policy.on_final(6.0, "ok") == [Start(4, "final")]
    policy.on_backend_error(6.5, gen_id=4)
    assert policy.next_deadline() == 7.5  # success reset the backoff


def test_retry_after_is_honoured_and_capped():
    policy = DriverPolicy(backoff_max_s=30.0)
    assert policy.on_final(0.0, "one") == [Start(1, "final")]
    policy.on_backend_error(1.0, retry_after=7.0, gen_id=1)
    assert policy.backoff_until() == 8.0
    assert policy.tick(7.9) == []
    assert policy.tick(8.0) == [Start(2, "final")]
    policy.on_backend_error(9.0, retry_after=3600.0, gen_id=2)
    assert policy.backoff_until() == 39.0


def test_max_in_flight_allows_parallel_generations_before_preempting_the_oldest():
    policy = DriverPolicy(max_in_flight=2)
    assert policy.on_final(0.0, "one") == [Start(1, "final")]
    assert policy.on_final(1.0, "two") == [Start(2, "final")]
    assert policy.on_final(2.0, "three") == [Cancel(1, "preempted"), Start(3, "final")]


def test_speculative_start_on_a_stable_partial_is_kept_when_the_final_matches():
    policy = DriverPolicy(speculative=True)
    assert policy.on_partial(0.0, "are we still launching") == []
    assert policy.on_partial(0.5, "are we still launching next month") == []
    assert policy.on_partial(1.0, "are we still launching next month") == [
        Start(1, "final", speculative_text="are we still launching next month")
    ]
    assert policy.on_final(1.2, "Are we still launching next month.") == []  # kept, no restart
    assert policy.on_generation_done(3.0, 1) == []
    assert policy.tick(100.0) == []  # the final counts as answered


def test_speculation_is_discarded_when_the_final_differs():
    policy = DriverPolicy(speculative=True)
    policy.on_partial(0.0, "we will launch in may")
    assert policy.on_partial(0.5, "we will launch in may") == [Start(1, "final", "we will launch in may")]
    assert policy.on_final(1.0, "We will launch in June.") == [Cancel(1, "speculation_mismatch"), Start(2, "final")]


def test_a_speculative_answer_is_discarded_when_the_final_question_differs():
    policy = DriverPolicy(speculative=True)
    policy.on_partial(0.0, "assistant when do we launch")
    assert policy.on_partial(0.5, "assistant when do we launch") == [
        Start(1, "question", "assistant when do we launch", question="assistant when do we launch")
    ]
    assert policy.on_final(1.0, "Assistant, when do we launch? Or not?") == [
        Cancel(1, "speculation_mismatch"), asked(2, "Assistant, when do we launch? Or not?")
    ]


def test_speculation_is_cancelled_as_soon_as_the_partial_moves_on():
    policy = DriverPolicy(speculative=True)
    policy.on_partial(0.0, "so the plan")
    assert policy.on_partial(0.3, "so the plan") == [Start(1, "final", "so the plan")]
    assert policy.on_partial(0.6, "so the plan is") == [Cancel(1, "speculation_mismatch")]
    assert policy.on_partial(0.7, "") == []  # a cleared tail changes nothing
    assert policy.on_partial(0.9, "so the plan is") == [Start(2, "final", "so the plan is")]


def test_speculation_needs_idle_time_and_a_stable_duration():
    policy = DriverPolicy(speculative=True, speculative_min_s=1.0)
    policy.on_partial(0.0, "hello there")
    assert policy.on_partial(0.5, "hello there") == []  # seen twice but not for a second yet
    assert policy.on_partial(1.0, "hello there") == [Start(1, "final", "hello there")]
    busy = DriverPolicy(speculative=True)
    assert busy.on_final(0.0, "first") == [Start(1, "final")]
    busy.on_partial(0.1, "second")
    assert busy.on_partial(0.2, "second") == []  # never speculates over real work


def test_speculation_is_off_by_default():
    policy = DriverPolicy()
    assert policy.on_partial(0.0, "hello") == []
    assert policy.on_partial(1.0, "hello") == []


def test_normalize_ignores_case_and_punctuation():
    assert normalize_utterance("Are we, still launching?") == normalize_utterance("are we still launching")


def test_the_addressed_part_starts_at_the_sentence_that_speaks_to_the_assistant():
    policy = DriverPolicy()
    assert policy.addressed_part("Okay, thank you. Assistant, when will the router arrive?") == (
        "Assistant, when will the router arrive?"
    )
    assert policy.addressed_part("Hey assistant, list the decisions.") == "Hey assistant, list the decisions."
    assert policy.addressed_part("We launch in June.") is None


def test_a_revision_that_reads_the_question_the_same_way_changes_nothing():
    policy = DriverPolicy(preempt=True)
    assert policy.on_final(0.0, "Assistant, what is time working on?", utterance=4) == [
        asked(1, "Assistant, what is time working on?")
    ]
    assert policy.on_revision(0.5, 4, "Assistant, what is time working on.", "Assistant, what is time working on?") == []
    assert policy.busy  # the answer still runs


def test_a_revision_that_hears_a_question_the_finals_missed_asks_it():
    policy = DriverPolicy(preempt=True)
    assert policy.on_final(0.0, "Is this true, when is the quiz?", utterance=2) == [Start(1, "final")]
    revealed = policy.on_revision(0.8, 2, "Assistant, when is the quiz?", "Is this true, when is the quiz?")
    assert revealed == [Cancel(1, "preempted"), asked(2, "Assistant, when is the quiz?")]
    # The same utterance read as a question twice is not asked twice.
    assert policy.on_revision(0.9, 2, "Assistant, when is the quiz?", "Assistant, when is the quiz?") == []


def test_a_typed_question_starts_at_once_with_its_asker_and_preempts_a_comment():
    policy = DriverPolicy(preempt=True, debounce_s=2.0)
    assert policy.on_final(0.0, "The site is slow.") == []  # debounced comment
    assert policy.tick(2.0) == [Start(1, "final")]
    assert policy.on_typed_question(2.5, "Who fixes the site?", "viewer") == [
        Cancel(1, "preempted"), Start(2, "question", question="Who fixes the site?", asker="viewer")]
    # A spoken question names its speaker as the asker.
    assert policy.on_generation_done(3.0, 2) == []
    assert policy.on_final(4.0, "Assistant, when is the launch?", utterance=3, speaker="Ann") == [
        Start(3, "question", question="Assistant, when is the launch?", asker="Ann")]


def test_a_typed_question_is_refused_while_another_answer_runs_or_waits_or_the_backend_backs_off():
    policy = DriverPolicy(preempt=True)
    assert policy.on_typed_question(0.0, "What did we decide?", "Ann")[-1].gen_id == 1
    assert policy.on_typed_question(0.5, "And who owns it?", "viewer") is None  # nothing preempts an answer
    assert policy.on_final(1.0, "Assistant, what is the budget?") == []  # a spoken one waits for the slot
    assert policy.on_typed_question(1.5, "And who owns it?", "viewer") is None  # ...and is not replaced
    assert policy.on_generation_done(2.0, 1) == [asked(2, "Assistant, what is the budget?")]
    policy.on_backend_error(3.0, retry_after=10.0, gen_id=2)  # the spoken question is asked again later
    assert policy.on_typed_question(4.0, "And who owns it?", "viewer") is None
    assert policy.tick(13.0) == [asked(3, "Assistant, what is the budget?")]
    assert policy.on_generation_done(14.0, 3) == []
    commands = policy.on_typed_question(14.0, "And who owns it?", "viewer")
    assert commands is not None and commands[-1].question == "And who owns it?"


def test_a_backend_that_keeps_failing_is_given_up_on_while_it_is_backed_off():
    policy = DriverPolicy(backoff_initial_s=1.0)
    assert policy.on_final(0.0, "one") == [Start(1, "final")]
    policy.on_backend_error(0.5, gen_id=1)
    policy.on_backend_error(0.6)
    assert not policy.given_up(0.7)  # two failures: it may come back
    policy.on_backend_error(0.8)
    assert policy.given_up(0.9) and not policy.given_up(10.0)  # backed off for 4 s, then tried again
    policy.on_backend_ok()
    assert not policy.given_up(0.9)
