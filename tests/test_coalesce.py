"""A session's deltas merged into frames every client receives alike."""

from __future__ import annotations

from streamtwin.service.coalesce import Frame, FrameCoalescer


def test_a_burst_of_deltas_becomes_few_frames_with_the_text_intact_and_in_order():
    coalescer = FrameCoalescer(min_window_s=0.002)
    window = coalescer.window_for(clients=1)
    tokens = [f" w{i}" for i in range(10_000)]
    frames: list[Frame] = []
    due = None
    for i, token in enumerate(tokens):  # 10,000 deltas over 10 ms
        now = i * 1e-6
        if due is not None and now >= due:
            frames += coalescer.flush()
            due = None
        if coalescer.push(1, token, last=i):
            due = now + window
    frames += coalescer.flush()
    assert 1 < len(frames) <= 6
    assert "".join(frame.text for frame in frames) == "".join(tokens)
    assert sum(frame.deltas for frame in frames) == len(tokens)
    assert frames[-1].last == len(tokens) - 1  # the newest delta heads the last frame
    assert all(frame.generation == 1 for frame in frames)


def test_only_the_first_pending_delta_starts_a_window():
    coalescer = FrameCoalescer()
    assert coalescer.push(7, "Hel", last="a") is True
    assert coalescer.push(7, "lo", last="b") is False
    assert coalescer.push(8, "!", last="c") is False  # another generation, same window
    assert coalescer.flush() == [Frame(7, "Hello", "b", 2), Frame(8, "!", "c", 1)]
    assert coalescer.flush() == []
    assert coalescer.push(7, " again") is True


def test_generations_stay_separate_and_in_order():
    coalescer = FrameCoalescer()
    for generation, text in [(1, "old "), (1, "answer"), (2, "new"), (2, " one"), (1, " late")]:
        coalescer.push(generation, text)
    assert [(f.generation, f.text) for f in coalescer.flush()] == [(1, "old answer"), (2, "new one"), (1, " late")]


def test_the_window_grows_with_the_clients_a_frame_goes_to_within_its_bounds():
    coalescer = FrameCoalescer(min_window_s=0.002, max_window_s=0.03, sends_per_s=5000)
    assert coalescer.window_for(1) == 0.002
    assert coalescer.window_for(10) == 0.002
    assert coalescer.window_for(50) == 0.01
    assert coalescer.window_for(1000) == 0.03


def test_empty_deltas_are_ignored():
    coalescer = FrameCoalescer()
    assert coalescer.push(1, "") is False
    assert coalescer.flush() == []
