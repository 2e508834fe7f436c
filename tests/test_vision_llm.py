"""Keyframes to vision-capable LLMs: the ImageBudget policy, the prompt layout with images, the assistant's
rationing, and images reaching a loopback OpenAI/Groq server from a session, or not for a text-only model."""

from __future__ import annotations

import asyncio
import base64
import itertools
import json
import re
from pathlib import Path
from typing import Any

import pytest

from streamtwin.assistant.builder import build_assistant
from streamtwin.bus import EventBus
from streamtwin.config import Config
from streamtwin.events import AssistantDone, Event, TranscriptFinal, VisionObservation
from streamtwin.media.ingest import MediaReader, VideoItem
from streamtwin.llm.backend import ChatRequest
from streamtwin.llm.groq_backend import GroqBackend
from streamtwin.llm.openai_backend import OpenAIBackend
from streamtwin.assistant.context import ContextWindow
from streamtwin.assistant.prompt_layout import IMAGE_PLACEHOLDER, PromptImage, content_text, flatten
from streamtwin.vision.frames import COVERED_NOTE
from streamtwin.vision.images import ImageBudget
from streamtwin.session import Session
from streamtwin.vision.vision_stage import KEYFRAME_MAX_SIDE, Keyframe
from tests.fakes.openai_server import FakeLLMServer, Reply
from tests.fakes.scripted_backend import Reply as ScriptedReply
from tests.fakes.scripted_backend import ScriptedBackend
from tests.media import decode_jpeg

SAMPLES = Path(__file__).resolve().parent.parent / "samples"
DATA_URL_PREFIX = "data:image/jpeg;base64,"


def image_parts(request: ChatRequest | dict[str, Any]) -> list[dict[str, Any]]:
    """Every image content part of a request (a ChatRequest or a recorded JSON body), in order."""
    messages = request.messages if isinstance(request, ChatRequest) else request["messages"]
    return [
        part
        for message in messages
        if isinstance(message["content"], list)
        for part in message["content"]
        if part.get("type") == "image_url"
    ]


def captions(request: ChatRequest | dict[str, Any]) -> list[str]:
    """The caption text part right before each image part."""
    messages = request.messages if isinstance(request, ChatRequest) else request["messages"]
    found = []
    for message in messages:
        parts = message["content"] if isinstance(message["content"], list) else []
        found += [parts[i - 1]["text"] for i, part in enumerate(parts) if part.get("type") == "image_url"]
    return found


# --- the ImageBudget policy, on a fake clock ----------------------------------------------


def test_per_minute_budget_holds_over_any_minute_and_refills():
    budget: ImageBudget[str] = ImageBudget(per_minute=4, per_request=2)
    sent: list[float] = []
    for second in range(180):  # a scene change every second, a prompt every 2 s, for 3 simulated minutes
        budget.offer(f"cut {second}", float(second), "scene_change", 10_000)
        if second % 2:
            now = 1000.0 + second
            sent += [now] * len(budget.take(now))
    for start in sent:
        assert sum(start <= t < start + 60 for t in sent) <= 4
    assert len(sent) == 3 * 4  # the budget is also used, not just respected


def test_plain_keyframes_are_paced_to_half_the_budget_and_scene_changes_always_find_room():
    budget: ImageBudget[str] = ImageBudget(per_minute=6, per_request=2)
    sent: list[tuple[float, str]] = []
    for second in range(120):  # a keyframe every second (someone speaks), a cut every 40 s, a prompt every second
        kind = "scene_change" if second % 40 == 10 else "keyframe"
        budget.offer(f"{kind} {second}", float(second), kind, 10_000)
        sent += [(float(second), item) for item in budget.take(float(second))]
    assert budget.plain_gap_s == 20.0
    assert [t for t, item in sent if item.startswith("scene_change")] == [10.0, 50.0, 90.0]  # every cut, at once
    # A keyframe no sooner than 20 s after any image: at most half the budget, the rest kept for cuts.
    assert [t for t, item in sent if item.startswith("keyframe")] == [0.0, 30.0, 70.0, 110.0]


def test_only_frames_newer_than_the_last_image_sent_and_scene_changes_first():
    budget: ImageBudget[str] = ImageBudget(per_minute=100, per_request=2)
    assert budget.offer("keyframe 1", 1.0, "keyframe", 100)
    assert budget.offer("cut 2", 2.0, "scene_change", 100)
    assert not budget.offer("cut 2 again", 2.0, "scene_change", 100)  # the same frame
    assert budget.offer("cut 3", 3.0, "scene_change", 100)
    assert budget.offer("keyframe 4", 4.0, "keyframe", 100)
    assert budget.offer("keyframe 5", 5.0, "keyframe", 100)
    # Two slots: the scene changes outrank the newest keyframe; oldest first in the prompt.
    assert budget.take(0.0) == ["cut 2", "cut 3"]
    assert budget.take(budget.plain_gap_s) == ["keyframe 5"]  # never keyframe 4: the model saw a later one
    assert budget.take(10.0) == []  # nothing new: a still scene costs nothing
    assert budget.offer("keyframe 6", 6.0, "keyframe", 100)
    assert budget.take(10.0) == ["keyframe 6"]


def test_images_over_the_size_limit_or_with_no_budget_are_never_candidates():
    budget: ImageBudget[str] = ImageBudget(per_minute=6, max_bytes=1000)
    assert not budget.offer("huge", 1.0, "scene_change", 1001)
    assert budget.offer("fits", 2.0, "keyframe", 1000)
    assert budget.take(0.0) == ["fits"]
    none: ImageBudget[str] = ImageBudget(per_minute=0)
    assert not none.offer("any", 1.0, "scene_change", 10)
    assert none.take(0.0) == []


def test_a_request_that_never_answered_gives_its_images_back():
    budget: ImageBudget[str] = ImageBudget(per_minute=3, per_request=2)
    budget.offer("a", 1.0, "scene_change", 10)
    taken = budget.take(0.0)
    budget.offer("b", 2.0, "scene_change", 10)
    budget.settle(taken, answered=False)  # preempted before it answered
    assert budget.take(1.0) == ["a", "b"]
    assert budget.available(1.0) == 0  # three sent, the re-send included
    budget.settle(["a", "b"], answered=True)
    assert budget.take(61.0) == []  # answered: nothing comes back


def test_media_time_running_backwards_starts_a_new_timeline():
    budget: ImageBudget[str] = ImageBudget(per_minute=10)
    budget.offer("old source", 50.0, "scene_change", 10)
    assert budget.take(0.0) == ["old source"]
    assert budget.offer("new source", 0.0, "scene_change", 10)
    assert budget.take(1.0) == ["new source"]


# --- prompt layout --------------------------------------------------------------------------


def test_images_go_after_the_stable_front_and_before_the_task():
    window = ContextWindow(4000, block_tokens=64, system_prompt="You watch a meeting.")
    window.add(1.0, "Good morning, everyone.")
    window.add(2.0, "scene change (score 0.99): mostly blue", "seen")
    plain = window.render("Comment.")
    image = PromptImage("[2.0s] scene change (score 0.99): mostly blue", DATA_URL_PREFIX + "AAAA")
    with_image = window.render("Comment.", images=[image])

    parts = with_image.messages[1]["content"]
    assert [part["type"] for part in parts] == ["text", "text", "image_url", "text"]
    assert parts[1]["text"] == image.caption + "\n"
    assert parts[2] == {"type": "image_url", "image_url": {"url": image.url}}
    assert parts[3]["text"].endswith("## Task\nComment.")
    # The same cached front as a text-only prompt, byte for byte: images live in the volatile end.
    assert with_image.front == plain.front and with_image.boundary == plain.boundary
    assert parts[0]["text"].startswith(window.context_text())
    assert IMAGE_PLACEHOLDER in with_image.flat and with_image.flat.startswith(plain.front)
    assert content_text(parts) == flatten(with_image.messages[1:]).removeprefix("<|user|>\n").removesuffix(
        "<|end|>\n"
    )


# --- the assistant rations images -------------------------------------------------------------


class FakeClock:
    """Real monotonic time plus a jump the test controls: a simulated minute without waiting one."""

    def __init__(self) -> None:
        self.offset = 0.0

    def __call__(self) -> float:
        return asyncio.get_running_loop().time() + self.offset


class Camera:
    """Stands in for the video stage's ``latest_keyframe`` hook."""

    def __init__(self) -> None:
        self.keyframe: Keyframe | None = None

    def show(self, media_time: float, kind: str = "scene_change", note: str = "a slide") -> VisionObservation:
        self.keyframe = Keyframe(b"\xff\xd8 jpeg at %.1f" % media_time, 64, 48, media_time, kind, note)
        return VisionObservation(kind=kind, score=0.9, note=note, media_time=media_time)


async def assistant_with_camera(backend: ScriptedBackend, config: Config, clock: FakeClock):
    bus = EventBus("test")
    events: list[Event] = []
    bus.subscribe(events.append)
    camera = Camera()
    hook = lambda: camera.keyframe  # noqa: E731
    assistant = build_assistant(config, backend, bus.emit, clock, twin_updates=False, latest_keyframe=hook)
    bus.subscribe(assistant.on_event)
    await assistant.start()
    return bus, events, camera, assistant


async def test_the_assistant_sends_at_most_the_per_minute_images():
    backend = ScriptedBackend(default=ScriptedReply("Noted."), supports_images=True)
    clock = FakeClock()
    config = Config(vision_images_per_min=3, llm_debounce_s=0.0, llm_heartbeat_s=1000.0)
    bus, events, camera, assistant = await assistant_with_camera(backend, config, clock)
    for second in range(0, 66, 6):  # a scene change every 6 s for a simulated minute and a bit
        clock.offset = float(second)
        bus.emit(camera.show(float(second)))
        assert await assistant.drain(5.0)
    await assistant.close()

    per_request = [[c.split(" ", 1)[0] for c in captions(r)] for r in backend.requests]
    assert len(per_request) == 11  # every scene change got its look, in words
    assert per_request == [["[0.0s]"], ["[6.0s]"], ["[12.0s]"]] + [[]] * 7 + [["[60.0s]"]]
    urls = [part["image_url"]["url"] for r in backend.requests for part in image_parts(r)]
    assert urls[0] == DATA_URL_PREFIX + base64.b64encode(b"\xff\xd8 jpeg at 0.0").decode()
    last_prompt = content_text(backend.requests[-1].messages[1]["content"])
    for second in range(0, 66, 6):
        assert f"[{second:.1f}s] (seen) scene change (score 0.90): a slide\n" in last_prompt
    assert all(not e.cancelled for e in events if isinstance(e, AssistantDone))


async def test_a_preempted_answer_gives_its_image_to_the_next_one():
    gate = asyncio.Event()
    replies = [ScriptedReply("Looking.", gate=gate), ScriptedReply("A blue slide.")]
    backend = ScriptedBackend(replies, supports_images=True)
    config = Config(llm_debounce_s=0.0)
    bus, events, camera, assistant = await assistant_with_camera(backend, config, FakeClock())
    bus.emit(camera.show(10.0, note="mostly blue"))
    while not backend.active:
        await asyncio.sleep(0.002)
    bus.emit(TranscriptFinal(text="Let's look at the budget.", start=10.0, end=11.0))  # preempts the first
    assert await assistant.drain(5.0)
    await assistant.close()
    assert [captions(r) for r in backend.requests] == [["[10.0s] scene change (score 0.90): mostly blue\n"]] * 2
    done = {e.generation: e.cancelled for e in events if isinstance(e, AssistantDone)}
    assert done == {1: True, 2: False}


async def test_text_only_backends_and_covered_frames_get_no_image_parts():
    for supports_images, observation in ((False, "a slide"), (True, COVERED_NOTE)):
        backend = ScriptedBackend(default=ScriptedReply("-"), supports_images=supports_images)
        bus, _, camera, assistant = await assistant_with_camera(backend, Config(llm_debounce_s=0.0), FakeClock())
        bus.emit(camera.show(3.0, note=observation))
        assert await assistant.drain(5.0)
        await assistant.close()
        (request,) = backend.requests
        assert isinstance(request.messages[1]["content"], str) and not image_parts(request)
        assert f"[3.0s] (seen) scene change (score 0.90): {observation}\n" in request.messages[1]["content"]


# --- a session on loopback: the real hand-off, the real wire -----------------------------------


@pytest.fixture(scope="module")
def meeting_video() -> list[tuple[Any, float]]:
    """The frames of samples/meeting.mp4 with their media times, as the session's reader yields them."""

    async def read() -> list[tuple[Any, float]]:
        reader = MediaReader(str(SAMPLES / "meeting.mp4"), realtime=False)
        try:
            return [(item.frame, item.time) async for item in reader.items() if isinstance(item, VideoItem)]
        finally:
            reader.close()

    return asyncio.run(read())


async def play_video(backend, frames: list[tuple[Any, float]]) -> list[VisionObservation]:
    """Frames through a Session into ``backend``; waits for the assistant after every scene change."""
    session = Session(Config(llm_debounce_s=0.0), source="meeting.mp4", realtime=False, backend=backend)
    observations: list[VisionObservation] = []
    session.bus.subscribe(lambda e: observations.append(e) if isinstance(e, VisionObservation) else None)
    await session.start()
    try:
        for frame, media_time in frames:
            seen = len(observations)
            session.push_video(frame, media_time)
            if len(observations) > seen and observations[-1].kind == "scene_change":
                assert await session.assistant.drain(10.0)
    finally:
        await session.end()
        await backend.aclose()
    return observations


def user_text(body: dict[str, Any]) -> str:
    return content_text(body["messages"][1]["content"])


@pytest.mark.parametrize(
    "make_backend",
    [
        lambda url: OpenAIBackend(url, "qwen2.5-vl-7b-instruct"),
        lambda url: GroqBackend("test-key", "meta-llama/llama-4-scout-17b-16e-instruct", base_url=url),
    ],
    ids=["openai", "groq"],
)
async def test_keyframes_reach_a_vision_model_as_openai_image_url_parts(meeting_video, make_backend):
    async with FakeLLMServer(reply=Reply("A blue slide.")) as server:
        backend = make_backend(server.url)
        assert backend.supports_images
        observations = await play_video(backend, meeting_video)
    bodies = [request.body for request in server.requests]
    cuts = [o.media_time for o in observations if o.kind == "scene_change"]
    assert cuts == pytest.approx([5.0, 10.0, 15.0])

    sent = [(caption, part) for body in bodies for caption, part in zip(captions(body), image_parts(body))]
    assert 3 <= len(sent) <= Config().vision_images_per_min  # the run takes seconds: one minute's budget
    for caption, part in sent:
        assert set(part) == {"type", "image_url"} and set(part["image_url"]) == {"url"}
        assert part["image_url"]["url"].startswith(DATA_URL_PREFIX)
        image = decode_jpeg(base64.b64decode(part["image_url"]["url"].removeprefix(DATA_URL_PREFIX)))
        assert max(image.width, image.height) <= KEYFRAME_MAX_SIDE
    by_time = {caption.split("]")[0] + "]": part for caption, part in sent}
    assert {"[5.0s]", "[10.0s]", "[15.0s]"} <= set(by_time)  # every cut was shown to the model
    blue = decode_jpeg(base64.b64decode(by_time["[10.0s]"]["image_url"]["url"].removeprefix(DATA_URL_PREFIX)))
    red, green, blue_level = blue.to_ndarray(format="rgb24").reshape(-1, 3).mean(axis=0)
    assert blue_level > 2 * green > 2 * red  # the picture at the cut is the blue slide itself

    # Images never disturb the cached front: each prompt's text up to its volatile end grows by appending.
    fronts = [user_text(body).split("\n## Camera images")[0].split("\n## Task")[0] for body in bodies]
    assert all(later.startswith(earlier) for earlier, later in itertools.pairwise(fronts))
    assert len({json.dumps(body["messages"][0]) for body in bodies}) == 1


async def test_a_text_only_model_gets_the_observations_as_text_and_no_image_anywhere(meeting_video):
    async with FakeLLMServer(reply=Reply("Noted.")) as server:
        backend = OpenAIBackend(server.url, "llama-3.1-8b-instant")
        assert not backend.supports_images
        await play_video(backend, meeting_video)
    assert len(server.requests) >= 3  # a look at each cut
    for request in server.requests:
        assert "image_url" not in json.dumps(request.body) and DATA_URL_PREFIX not in json.dumps(request.body)
        assert all(isinstance(message["content"], str) for message in request.body["messages"])
    last = user_text(server.requests[-1].body)
    for cut in ("5.0", "10.0", "15.0"):
        assert f"[{cut}s] (seen) scene change (score " in last
    blue_line = r"\[10\.0s\] \(seen\) scene change \(score [01]\.\d\d\): mostly blue, bright, low contrast\n"
    assert re.search(blue_line, last)
