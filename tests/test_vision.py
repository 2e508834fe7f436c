"""The video stage end to end: generated videos decoded with PyAV, observations, JPEGs, odd inputs."""

from __future__ import annotations

import base64
import json
import logging
import re
from pathlib import Path

import av
import numpy as np
import pytest

from streamtwin.bus import EventBus
from streamtwin.config import Config
from streamtwin.events import VisionObservation, from_json
from streamtwin.media.ingest import MediaReader, VideoItem
from streamtwin.vision.frames import COVERED_NOTE
from streamtwin.vision.vision_stage import KEYFRAME_MAX_SIDE, THUMBNAIL_MAX_SIDE, VisionStage
from tests.media import decode_jpeg, decoded_frames, lavfi_video

SAMPLES = Path(__file__).resolve().parent.parent / "samples"
FPS = 15
MAX_RATE = 10.0
ONE_SAMPLE = 1 / MAX_RATE + 1 / FPS  # the worst wait for the next analysed frame


@pytest.fixture(scope="module")
def videos(tmp_path_factory):
    folder = tmp_path_factory.mktemp("vision")
    return {
        # cuts at 2, 4 and 6 s; testsrc and mandelbrot also move on their own
        "cuts": lavfi_video(folder / "cuts.mp4", ["testsrc", "smptebars", "mandelbrot", "rgbtestsrc"], 2, fps=FPS),
        "still": lavfi_video(folder / "still.mp4", ["smptebars"], 10, fps=FPS),
        "zoom": lavfi_video(folder / "zoom.mp4", ["mandelbrot"], 6, fps=FPS),
        "black": lavfi_video(folder / "black.mp4", ["smptebars", "color=c=black", "testsrc"], 3, fps=FPS),
    }


def play(stage: VisionStage, path, speaking: bool = False) -> None:
    for frame, t in decoded_frames(path):
        stage.offer(frame, t, speaking)


def structured_rgb(height: int, width: int, seed: int = 0) -> np.ndarray:
    """Big coloured blocks: content every size and format keeps (and a keyframe can be made of)."""
    grid = np.random.default_rng(seed).integers(0, 256, (6, 8, 3), dtype=np.uint8)
    rows = np.arange(height) * 6 // height
    cols = np.arange(width) * 8 // width
    return grid[rows][:, cols]


def assert_jpeg(data: bytes, max_side: int, aspect: float) -> av.VideoFrame:
    image = decode_jpeg(data)
    assert max(image.width, image.height) <= max_side
    assert image.width / image.height == pytest.approx(aspect, rel=0.1, abs=2 / min(image.width, image.height))
    return image


# --- sampling real video ----------------------------------------------------


def test_scene_changes_land_within_one_sampled_frame_of_each_cut(videos):
    events: list[VisionObservation] = []
    stage = VisionStage(Config(), events.append, max_rate=MAX_RATE)
    play(stage, videos["cuts"])
    changes = [e.media_time for e in events if e.kind == "scene_change"]
    assert len(changes) == 3
    for cut, seen in zip((2.0, 4.0, 6.0), changes, strict=True):
        assert cut <= seen <= cut + ONE_SAMPLE
    assert events[0].kind == "keyframe" and events[0].media_time == 0.0
    assert stage.stats.offered == 8 * FPS and stage.stats.analysed < stage.stats.offered


async def test_the_sample_meeting_video_gives_a_scene_change_at_each_of_its_cuts():
    """samples/meeting.mp4 through the session's reader and the stage: its solid blue scene is a scene, not a
    covered camera, so the cuts into and out of it are reported at once."""
    cuts = json.loads((SAMPLES / "meeting_mp4.json").read_text())["scene_cuts"]
    events: list[VisionObservation] = []
    stage = VisionStage(Config(), events.append)  # as the session makes it: max_rate 10, MAX_RATE here
    reader = MediaReader(str(SAMPLES / "meeting.mp4"), realtime=False)
    try:
        async for item in reader.items():
            if isinstance(item, VideoItem):
                stage.offer(item.frame, item.time)
    finally:
        reader.close()
    changes = [e.media_time for e in events if e.kind == "scene_change"]
    assert len(changes) == len(cuts) == 3
    for cut, seen in zip(cuts, changes, strict=True):
        assert cut - 1e-6 <= seen <= cut + ONE_SAMPLE, (cut, changes)
    assert COVERED_NOTE not in [e.note for e in events]
    blue = next(e for e in events if e.media_time == changes[1])
    assert blue.note.startswith("mostly blue")


@pytest.mark.parametrize("speaking", [False, True])
def test_a_still_video_gives_exactly_one_keyframe(videos, speaking):
    events: list[VisionObservation] = []
    config = Config(vision_base_fps=1.0, vision_idle_fps=0.05)
    stage = VisionStage(config, events.append, max_rate=MAX_RATE)
    play(stage, videos["still"], speaking)
    assert [(e.kind, e.media_time) for e in events] == [("keyframe", 0.0)]
    assert stage.stats.analysed >= 10 * MAX_RATE * 0.9  # it kept looking, and found nothing new


def test_changing_content_gets_keyframes_at_the_speaking_or_idle_rate(videos):
    for speaking, interval in ((True, 1.0), (False, 2.5)):
        events: list[VisionObservation] = []
        stage = VisionStage(Config(vision_base_fps=1.0, vision_idle_fps=0.4), events.append, max_rate=MAX_RATE)
        play(stage, videos["zoom"], speaking)
        times = [e.media_time for e in events]
        assert {e.kind for e in events} == {"keyframe"}
        assert len(times) >= 6 / interval - 1
        assert np.diff(times).min() >= interval - 1e-6


def test_black_frames_give_one_covered_note(videos):
    events: list[VisionObservation] = []
    stage = VisionStage(Config(), events.append, max_rate=MAX_RATE)
    play(stage, videos["black"])
    covered = [e for e in events if e.note == COVERED_NOTE]
    assert len(covered) == 1
    went_dark = 3.0 + stage.sampler.covered_after_s
    assert went_dark <= covered[0].media_time <= went_dark + ONE_SAMPLE
    back = [e for e in events if e.media_time > covered[0].media_time]
    came_back = 6.0 + stage.sampler.uncover_after_s
    assert back and back[0].kind == "scene_change" and came_back <= back[0].media_time <= came_back + ONE_SAMPLE


# --- any input --------------------------------------------------------------


@pytest.mark.parametrize("size", [(641, 479), (3840, 2160), (1080, 1920), (17, 9), (2, 2)])
@pytest.mark.parametrize("pixel_format", ["yuv420p", "nv12", "rgb24", "bgra", "gray", "yuv444p", "yuv420p10le"])
def test_any_size_and_pixel_format_gives_valid_jpegs(size, pixel_format):
    width, height = size
    frame = av.VideoFrame.from_ndarray(structured_rgb(height, width), format="rgb24").reformat(format=pixel_format)
    events: list[VisionObservation] = []
    stage = VisionStage(Config(), events.append)
    assert stage.offer(frame, 0.0) is True
    (observation,) = events
    thumbnail = assert_jpeg(base64.b64decode(observation.thumbnail), THUMBNAIL_MAX_SIDE, width / height)
    assert (observation.width, observation.height) == (thumbnail.width, thumbnail.height)
    keyframe = stage.latest_keyframe()
    assert keyframe is not None and keyframe.media_time == 0.0
    image = assert_jpeg(keyframe.jpeg, KEYFRAME_MAX_SIDE, width / height)
    assert (image.width, image.height) == (keyframe.width, keyframe.height)
    assert max(image.width, image.height) >= min(KEYFRAME_MAX_SIDE, max(width, height)) - 1


def test_a_frame_that_cannot_be_converted_is_skipped_with_a_warning(caplog):
    events: list[VisionObservation] = []
    stage = VisionStage(Config(), events.append)
    unsupported = av.VideoFrame(64, 48, "bgr4")  # swscale cannot read this format
    with caplog.at_level(logging.WARNING, logger="streamtwin.vision.vision_stage"):
        assert stage.offer(unsupported, 0.0) is False
        assert stage.offer(unsupported, 1.0) is False
    assert stage.stats.failed == 2 and not events
    assert len([r for r in caplog.records if "could not be converted" in r.getMessage()]) == 1  # not a flood
    good = av.VideoFrame.from_ndarray(structured_rgb(48, 64), format="rgb24")
    assert stage.offer(good, 2.0) is True


def test_offer_array_takes_grey_rgb_and_rgba_and_refuses_the_rest(caplog):
    for image in (structured_rgb(480, 640)[..., 0], structured_rgb(479, 641), structured_rgb(2160, 3840)):
        events: list[VisionObservation] = []
        stage = VisionStage(Config(), events.append)
        assert stage.offer_array(image, 0.0) is True
        assert_jpeg(base64.b64decode(events[0].thumbnail), THUMBNAIL_MAX_SIDE, image.shape[1] / image.shape[0])
    rgba = np.dstack([structured_rgb(240, 320), np.full((240, 320), 255, np.uint8)])
    assert VisionStage(Config(), lambda e: None).offer_array(rgba, 0.0) is True

    stage = VisionStage(Config(), lambda e: None)
    with caplog.at_level(logging.WARNING, logger="streamtwin.vision.vision_stage"):
        bad_images = (np.zeros((48, 64), np.float32), np.zeros(100, np.uint8), np.zeros((48, 64, 2), np.uint8))
        for second, bad in enumerate(bad_images):
            assert stage.offer_array(bad, float(second)) is False
    assert stage.stats.failed == 3 and caplog.records


def test_blue_content_is_described_as_blue():
    image = np.empty((240, 320, 3), np.uint8)
    image[...] = (140, 190, 255)
    image[::12] = 255
    events: list[VisionObservation] = []
    VisionStage(Config(), events.append).offer_array(image, 0.0)
    assert events[0].note.startswith("mostly blue")
    thumbnail = decode_jpeg(base64.b64decode(events[0].thumbnail)).to_ndarray(format="rgb24").reshape(-1, 3)
    red, green, blue = thumbnail.mean(axis=0)
    assert blue > green > red


# --- rate gate --------------------------------------------------------------


def test_frames_faster_than_max_rate_are_skipped_by_media_time():
    rng = np.random.default_rng(3)
    frame = av.VideoFrame.from_ndarray(structured_rgb(480, 640), format="rgb24")
    stage = VisionStage(Config(), lambda e: None, max_rate=5.0)
    for i in range(90):  # 3 s at 30 fps, with up to 3 ms of jitter
        stage.offer(frame, i / 30 + rng.uniform(-0.003, 0.003))
    assert (stage.stats.offered, stage.stats.analysed) == (90, 15)
    for i in range(30):  # the source restarts at 0: analysis resumes at once
        stage.offer(frame, i / 30)
    assert stage.stats.analysed == 15 + 5


def test_max_rate_must_be_positive():
    with pytest.raises(ValueError):
        VisionStage(Config(), lambda e: None, max_rate=0)


# --- events and text --------------------------------------------------------


def test_observations_travel_through_the_bus_and_describe_themselves(videos):
    bus = EventBus("s1")
    seen: list[VisionObservation] = []
    bus.subscribe(seen.append)
    stage = VisionStage(Config(), bus.emit, max_rate=MAX_RATE)
    play(stage, videos["cuts"], speaking=True)
    assert [e.seq for e in seen] == list(range(1, len(seen) + 1)) and {e.session for e in seen} == {"s1"}
    for event in seen:
        assert from_json(event.to_json()) == event
    cut = next(e for e in seen if e.kind == "scene_change")
    assert re.fullmatch(r"\[2\.0s\] scene change \(score (0\.\d\d|1\.00)\): \w.*", stage.describe(cut))
    keyframe = stage.latest_keyframe()
    assert keyframe is not None and keyframe.media_time == seen[-1].media_time and keyframe.kind == seen[-1].kind
    assert keyframe.data_url().startswith("data:image/jpeg;base64,")
    assert decode_jpeg(base64.b64decode(keyframe.data_url().split(",", 1)[1])).width == keyframe.width


def test_a_kept_frame_whose_jpeg_fails_is_still_reported_as_text(monkeypatch, caplog):
    def broken_encoder(frame, max_side):
        raise av.FFmpegError(22, "Invalid argument")

    monkeypatch.setattr("streamtwin.vision.vision_stage._encode_jpeg", broken_encoder)
    events: list[VisionObservation] = []
    stage = VisionStage(Config(), events.append)
    with caplog.at_level(logging.WARNING, logger="streamtwin.vision.vision_stage"):
        assert stage.offer_array(structured_rgb(48, 64), 0.0) is True
    (observation,) = events
    assert observation.kind == "keyframe" and observation.note and observation.thumbnail == ""
    assert stage.latest_keyframe() is None and "no JPEG" in caplog.text
