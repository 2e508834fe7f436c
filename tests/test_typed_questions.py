"""What a typed question must be, and how often one connection may ask (issue 36)."""

from __future__ import annotations

import pytest

from streamtwin.assistant.typed import MAX_QUESTION_CHARS, AskLimiter, AskRefused, check_question


def test_a_question_is_trimmed_text_of_bounded_size():
    assert check_question("  Who owns\n the rollout? ") == "Who owns the rollout?"
    for bad in ("", "   \n", None, 5, ["who?"], "x" * (MAX_QUESTION_CHARS + 1)):
        with pytest.raises(AskRefused) as refused:
            check_question(bad)
        assert refused.value.code == "bad_question"
    assert check_question("x" * MAX_QUESTION_CHARS)


def test_one_answer_at_a_time_and_a_bounded_rate_per_connection():
    limiter = AskLimiter(per_minute=3)
    limiter.admit(0.0)
    with pytest.raises(AskRefused) as refused:
        limiter.admit(1.0)
    assert refused.value.code == "ask_in_flight"
    for at in (2.0, 3.0):
        limiter.answered()
        limiter.admit(at)
    limiter.answered()
    with pytest.raises(AskRefused) as refused:
        limiter.admit(30.0)
    assert refused.value.code == "too_many_questions" and "30 s" in refused.value.message
    limiter.admit(60.5)  # the first question left the minute
