"""A session's deltas merged into frames every client receives alike."""

from __future__ import annotations

from pipeline.policy.coalesce import Frame, FrameCoalescer


def test_a_burst_of_deltas_becomes_few_frames_with_the_text_intact_and_in_order():
    coalescer = FrameCoalescer(min_window_s=0.002)
    tokens = [f" w{i}" for i in range(10_000)]
    frames: list[Frame] = []
    now = 0.0
    for i, token in enumerate(tokens):  # 10,000 deltas over 10 ms
        now = i * 1e-6
        due = coalescer.next_due(clients=1)
        if due is not None and now >= due:
            frames += coalescer.flush()
        coalescer.push(now, 1, token, last=i)
    frames += coalescer.flush()
    assert 1 < len(frames) <= 6
    assert "".join(frame.text for frame in frames) == "".join(tokens)
    assert [frame.last for frame in frames][-1] == len(tokens) - 1  # the newest delta heads the last frame
    assert all(frame.generation == 1 for frame in frames)


def test_deltas_wait_one_window_from_the_oldest_pending():
    coalescer = FrameCoalescer(min_window_s=0.03)
    assert coalescer.next_due(1) is None
    coalescer.push(1.000, 7, "Hel", last="a")
    coalescer.push(1.010, 7, "lo", last="b")
    assert coalescer.next_due(1) == 1.030
    assert coalescer.flush() == [Frame(7, "Hello", "b")]
    assert coalescer.next_due(1) is None
    coalescer.push(2.0, 7, "!")
    assert coalescer.next_due(1) == 2.03


def test_generations_stay_separate_and_in_order():
    coalescer = FrameCoalescer()
    coalescer.push(0.0, 1, "old ")
    coalescer.push(0.001, 1, "answer")
    coalescer.push(0.002, 2, "new")
    coalescer.push(0.003, 2, " one")
    coalescer.push(0.004, 1, " late")
    assert [(f.generation, f.text) for f in coalescer.flush()] == [(1, "old answer"), (2, "new one"), (1, " late")]


def test_the_window_grows_with_the_clients_a_frame_goes_to_within_its_bounds():
    coalescer = FrameCoalescer(min_window_s=0.002, max_window_s=0.03, sends_per_s=5000)
    assert coalescer.window_for(1) == 0.002
    assert coalescer.window_for(10) == 0.002
    assert coalescer.window_for(50) == 0.01
    assert coalescer.window_for(1000) == 0.03
    coalescer.push(1.0, 1, "x")
    assert coalescer.next_due(50) == 1.01


def test_empty_deltas_are_ignored():
    coalescer = FrameCoalescer()
    coalescer.push(0.0, 1, "")
    assert coalescer.next_due(1) is None
    assert coalescer.flush() == []
