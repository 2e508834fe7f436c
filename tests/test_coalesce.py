from __future__ import annotations

from pipeline.policy.coalesce import Frame, TokenCoalescer


def test_deltas_within_the_window_merge_into_one_frame():
    coalescer = TokenCoalescer(window_s=0.03)
    coalescer.push(1.000, 7, "Hel")
    coalescer.push(1.010, 7, "lo")
    coalescer.push(1.020, 7, " world")
    assert coalescer.next_due() == 1.030
    assert coalescer.due(1.029) == []
    assert coalescer.due(1.030) == [Frame(7, "Hello world")]
    assert coalescer.due(1.100) == []
    assert coalescer.next_due() is None


def test_the_window_starts_at_the_oldest_pending_delta():
    coalescer = TokenCoalescer(window_s=0.03)
    coalescer.push(0.0, 1, "a")
    assert coalescer.due(0.03) == [Frame(1, "a")]
    coalescer.push(0.05, 1, "b")
    assert coalescer.due(0.07) == []
    assert coalescer.due(0.08) == [Frame(1, "b")]


def test_generations_stay_separate_and_in_order():
    coalescer = TokenCoalescer()
    coalescer.push(0.0, 1, "old ")
    coalescer.push(0.001, 1, "answer")
    coalescer.push(0.002, 2, "new")
    coalescer.push(0.003, 2, " one")
    assert coalescer.flush() == [Frame(1, "old answer"), Frame(2, "new one")]


def test_a_client_that_cannot_send_keeps_merging():
    coalescer = TokenCoalescer(window_s=0.03)
    for i in range(10):
        coalescer.push(i * 0.02, 3, f"{i} ")
        assert coalescer.due(i * 0.02 + 0.05, can_send=False) == []
    assert coalescer.due(1.0) == [Frame(3, "0 1 2 3 4 5 6 7 8 9 ")]


def test_backlog_stretches_the_window_up_to_a_maximum():
    coalescer = TokenCoalescer(window_s=0.03, slow_backlog_bytes=1000, max_window_s=0.12)
    assert coalescer.window_for(0) == 0.03
    assert coalescer.window_for(999) == 0.03
    assert coalescer.window_for(2500) == 0.09
    assert coalescer.window_for(10**9) == 0.12
    coalescer.push(0.0, 1, "x")
    assert coalescer.due(0.05, backlog_bytes=2500) == []
    assert coalescer.due(0.09, backlog_bytes=2500) == [Frame(1, "x")]


def test_over_the_hard_cap_the_oldest_text_is_dropped_and_reported():
    coalescer = TokenCoalescer(max_pending_chars=10)
    coalescer.push(0.0, 1, "abcdef")
    coalescer.push(0.0, 1, "ghij")
    assert coalescer.pending_chars == 10
    coalescer.push(0.0, 2, "KLMN")
    assert coalescer.pending_chars == 10
    assert coalescer.dropped_chars_total == 4
    assert coalescer.flush() == [Frame(1, "efghij", dropped_chars=4), Frame(2, "KLMN")]


def test_a_fully_dropped_generation_still_reports_its_loss():
    coalescer = TokenCoalescer(max_pending_chars=5)
    coalescer.push(0.0, 1, "abc")
    coalescer.push(0.0, 2, "0123456")
    assert coalescer.flush() == [Frame(1, "", dropped_chars=3), Frame(2, "23456", dropped_chars=2)]
    assert coalescer.dropped_chars_total == 5


def test_empty_deltas_are_ignored():
    coalescer = TokenCoalescer()
    coalescer.push(0.0, 1, "")
    assert coalescer.next_due() is None
    assert coalescer.flush() == []
