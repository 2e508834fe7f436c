"""The frame-sampling policy on synthetic numpy frames: features, cuts, keyframes, motion, covered camera."""

from __future__ import annotations

import numpy as np
import pytest

from streamtwin.vision.frames import (
    COVERED_NOTE,
    FEATURE_HEIGHT,
    FEATURE_WIDTH,
    FrameSampler,
    changed_fraction,
    compute_features,
    hash_distance,
    histogram_distance,
    scene_distance,
    summarize,
)

FPS = 15
SHAPE = (FEATURE_HEIGHT, FEATURE_WIDTH)


def blocks(seed: int) -> np.ndarray:
    """A structured picture: an 8x8 grid of random grey blocks (different seeds look unrelated)."""
    grid = np.random.default_rng(seed).integers(0, 256, (8, 8), dtype=np.uint8)
    return np.kron(grid, np.ones((FEATURE_HEIGHT // 8, FEATURE_WIDTH // 8), dtype=np.uint8))


def solid(level: int) -> np.ndarray:
    return np.full(SHAPE, level, dtype=np.uint8)


def stripes(shift: int) -> np.ndarray:
    """Fine vertical stripes moved right by ``shift`` px: each pixel of shift changes half the picture."""
    columns = ((np.arange(FEATURE_WIDTH) - shift) // 2) % 2
    return np.tile(np.where(columns == 1, 220, 40).astype(np.uint8), (FEATURE_HEIGHT, 1))


def bounce(step: int, span: int) -> int:
    """0, 1, ..., span, span - 1, ..., 0, 1, ...: a position that never jumps."""
    phase = step % (2 * span)
    return phase if phase <= span else 2 * span - phase


def square_at(x: int, background: np.ndarray | None = None, size: int = 24) -> np.ndarray:
    """A bright square at column ``x`` over ``background`` (mid grey by default)."""
    image = solid(90) if background is None else background.copy()
    image[10 : 10 + size, x : x + size] = 240
    return image


def run(sampler: FrameSampler, frames, speaking: bool = False):
    """Feed (t, image) pairs like the adapter does; return the (t, Decision) pairs kept."""
    kept = []
    for t, image in frames:
        decision = sampler.decide(t, compute_features(image, sampler.previous), speaking)
        if decision is not None:
            kept.append((t, decision))
    return kept


def timeline(seconds: float, picture):
    """(t, picture(t)) at FPS for ``seconds``."""
    return [(i / FPS, picture(i / FPS)) for i in range(round(seconds * FPS))]


# --- features ---------------------------------------------------------------


def test_features_of_a_flat_frame():
    features = compute_features(solid(128))
    assert features.histogram.sum() == pytest.approx(1.0)
    assert features.histogram.argmax() == 128 >> 3
    assert features.brightness == pytest.approx(128 / 255)
    assert features.contrast == 0.0 and features.sharpness == 0.0
    assert features.ahash == 0  # flat frames hash to zero instead of to noise
    assert features.motion == 0.0 and features.colour == ""


def test_hash_sees_layout_that_the_histogram_misses():
    left = np.zeros(SHAPE, dtype=np.uint8)
    left[:, : FEATURE_WIDTH // 2] = 255
    right = left[:, ::-1].copy()
    a, b = compute_features(left), compute_features(right)
    assert histogram_distance(a, b) == pytest.approx(0.0)
    assert hash_distance(a, b) == 1.0
    assert scene_distance(a, b) == 1.0


def test_motion_is_the_share_of_changed_pixels():
    first = compute_features(square_at(0))
    same = compute_features(square_at(0), first)
    moved = compute_features(square_at(8), first)
    assert same.motion == 0.0
    expected = changed_fraction(square_at(8), square_at(0))
    assert moved.motion == pytest.approx(expected)
    assert moved.motion == pytest.approx(2 * 8 * 24 / (FEATURE_WIDTH * FEATURE_HEIGHT))


def test_colour_and_summary_words():
    rgb = np.empty((*SHAPE, 3), dtype=np.uint8)
    rgb[...] = (140, 190, 255)  # light blue
    rgb[::6] = 255  # white stripes for structure
    blue = compute_features(rgb)
    assert blue.colour == "blue"
    assert summarize(blue, motion=0.0) == "mostly blue, bright, little motion"
    grey = compute_features(np.repeat(blocks(1)[..., None], 3, axis=2))
    assert grey.colour == "grey"
    dark = compute_features(solid(10))
    assert "very dark" in summarize(dark) and "motion" not in summarize(dark)


# --- keeping frames ---------------------------------------------------------


def test_first_frame_is_a_keyframe_and_a_still_picture_is_never_repeated():
    for speaking in (False, True):
        kept = run(FrameSampler(idle_interval_s=2.0), timeline(10, lambda t: blocks(7)), speaking)
        assert [(t, d.kind) for t, d in kept] == [(0.0, "keyframe")]


def test_scene_changes_at_the_cuts_and_nowhere_else():
    cuts = (2.0, 4.0, 6.0)
    picture = lambda t: blocks(sum(t >= cut for cut in cuts))  # noqa: E731
    kept = run(FrameSampler(idle_interval_s=100.0), timeline(8, picture))
    changes = [t for t, d in kept if d.kind == "scene_change"]
    assert changes == pytest.approx(list(cuts))
    assert all(d.score >= FrameSampler().scene_threshold for t, d in kept if d.kind == "scene_change")
    assert [d.kind for _, d in kept] == ["keyframe", "scene_change", "scene_change", "scene_change"]


def test_keyframes_follow_a_slow_change_at_the_speaking_or_idle_rate():
    # A square crawling one pixel per frame: never a cut, never enough motion, always new content.
    crawl = lambda t: square_at(bounce(round(t * FPS), FEATURE_WIDTH - 24))  # noqa: E731
    for speaking, interval in ((True, 1.0), (False, 3.0)):
        sampler = FrameSampler(base_interval_s=1.0, idle_interval_s=3.0)
        kept = run(sampler, timeline(9, crawl), speaking)
        assert {d.kind for _, d in kept} == {"keyframe"}
        times = [t for t, _ in kept]
        gaps = np.diff(times)
        assert len(times) == pytest.approx(9 / interval, abs=1)
        assert gaps.min() >= interval - 1e-9
        assert gaps.max() < interval + 1 / FPS + 1e-9


def test_keyframes_stop_when_the_picture_stops_changing():
    moving_then_still = lambda t: square_at(min(round(t * FPS), 30))  # still from t=2  # noqa: E731
    kept = run(FrameSampler(base_interval_s=0.5), timeline(10, moving_then_still), speaking=True)
    assert kept[-1][0] <= 2.5  # the last change is kept at the next interval, then nothing
    assert all(d.kind == "keyframe" for _, d in kept)


def test_a_cut_right_after_a_kept_frame_is_held_not_lost():
    before = [(i / FPS, blocks(1)) for i in range(5 * FPS)]
    changed = (5.0, square_at(0, background=blocks(1)))  # a keyframe-sized change when the idle interval is up
    after = [(5.1 + i / FPS, blocks(2)) for i in range(30)]  # and a cut 0.1 s later
    kept = run(FrameSampler(min_gap_s=0.5, idle_interval_s=5.0), [*before, changed, *after])
    assert [(round(t, 2), d.kind) for t, d in kept[:2]] == [(0.0, "keyframe"), (5.0, "keyframe")]
    assert [d.kind for _, d in kept[2:]] == ["scene_change"]
    assert 5.5 <= kept[2][0] < 5.5 + 1 / FPS + 1e-9


def test_covered_camera_gives_one_note_and_a_short_blackout_none():
    sampler = FrameSampler(covered_after_s=1.5, idle_interval_s=100.0)
    scene = blocks(3)

    def picture(t: float) -> np.ndarray:
        if 2.0 <= t < 2.5 or 4.0 <= t < 9.0:
            return solid(5)  # a hand over the lens, then the lens covered
        return scene if t < 9.0 else blocks(4)

    kept = run(sampler, timeline(11, picture))
    assert [d.kind for _, d in kept] == ["keyframe", "scene_change", "scene_change"]
    (covered_t, covered), (back_t, back) = kept[1], kept[2]
    assert covered.note == COVERED_NOTE and [d.note for _, d in kept].count(COVERED_NOTE) == 1
    assert 5.5 <= covered_t < 5.5 + 1 / FPS + 1e-9
    came_back = 9.0 + sampler.uncover_after_s
    assert came_back <= back_t < came_back + 1 / FPS and back.note != COVERED_NOTE


def test_flashes_in_the_dark_give_one_note():
    sampler = FrameSampler(covered_after_s=1.0, idle_interval_s=100.0)
    barely_visible = (blocks(6) // 8 + 14).astype(np.uint8)  # dim, but a picture
    assert sampler.obscured(compute_features(solid(3))) and not sampler.obscured(compute_features(barely_visible))
    picture = lambda t: barely_visible if round(t * FPS) % 20 == 19 else solid(3)  # noqa: E731
    kept = run(sampler, timeline(10, picture))
    assert [d.note for _, d in kept] == [COVERED_NOTE]


def solid_rgb(colour: tuple[int, int, int]) -> np.ndarray:
    return np.tile(np.array(colour, dtype=np.uint8), (*SHAPE, 1))


def test_covered_means_dark_or_flat_and_dim_but_a_bright_flat_colour_is_a_scene():
    sampler = FrameSampler()
    assert sampler.obscured(compute_features(solid(3)))  # dark
    assert sampler.obscured(compute_features(solid(50)))  # blank and dim: a lens behind a finger
    assert not sampler.obscured(compute_features(solid(200)))  # a white wall, a blank slide
    assert not sampler.obscured(compute_features(solid_rgb((0, 0, 255))))  # grey level 29: dim only in grey
    dim_detail = (blocks(5) // 6 + 20).astype(np.uint8)
    assert not sampler.obscured(compute_features(dim_detail))


def test_a_cut_to_a_solid_colour_slide_is_a_scene_change_at_the_cut():
    # samples/meeting.mp4 cuts from a moving test pattern to a solid 0x1040C0 blue at 10 s, then away at 15 s.
    blue = solid_rgb((0x10, 0x40, 0xC0))
    picture = lambda t: blue if 2.0 <= t < 6.0 else np.repeat(blocks(8)[..., None], 3, axis=2)  # noqa: E731
    kept = run(FrameSampler(idle_interval_s=100.0), timeline(8, picture))
    assert [(round(t, 3), d.kind) for t, d in kept] == [(0.0, "keyframe"), (2.0, "scene_change"), (6.0, "scene_change")]
    assert kept[1][1].note == "mostly blue, bright, low contrast"
    assert COVERED_NOTE not in [d.note for _, d in kept]


def test_a_stream_starting_dark_reports_covered_as_its_first_keyframe():
    kept = run(FrameSampler(covered_after_s=1.0), timeline(4, lambda t: solid(0)))
    assert [(d.kind, d.note) for _, d in kept] == [("keyframe", COVERED_NOTE)]


def test_sustained_motion_is_reported_once_and_brief_motion_not_at_all():
    # Stripes sliding a pixel a frame (half the picture changes) from 1 s to 4 s, and for 0.4 s at 6 s.
    def picture(t: float) -> np.ndarray:
        busy = 1.0 <= t < 4.0 or 6.0 <= t < 6.4
        return stripes(round(t * FPS) if busy else 0)

    sampler = FrameSampler(motion_threshold=0.15, motion_sustain_s=1.0, idle_interval_s=100.0)
    kept = run(sampler, timeline(8, picture))
    motions = [(t, d) for t, d in kept if d.kind == "motion"]
    assert len(motions) == 1
    motion_t, motion = motions[0]
    assert 2.0 <= motion_t < 2.5  # a full second of motion, and not much later
    assert motion.score >= 0.15 and "lots of motion" in motion.note
    assert "scene_change" not in [d.kind for _, d in kept]


def test_motion_survives_duplicated_frames():
    # Cameras and WebRTC often repeat frames: every other frame equals the one before it.
    picture = lambda t: stripes(round(t * FPS) // 2)  # noqa: E731
    kept = run(FrameSampler(idle_interval_s=100.0), timeline(4, picture))
    assert [d.kind for _, d in kept] == ["keyframe", "motion"]


def test_time_running_backwards_restarts_the_timers():
    sampler = FrameSampler(idle_interval_s=5.0)
    run(sampler, [(100.0, blocks(1)), (101.0, blocks(1))])
    changed = square_at(0, background=blocks(1))
    kept = run(sampler, [(0.0, changed), (0.1, changed)])
    # Without the restart the last keep (t=100) would block keyframes until t=105.
    assert [(t, d.kind) for t, d in kept] == [(0.0, "keyframe")]
