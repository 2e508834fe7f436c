"""The shared speech engine: one model for every session, fair, batched, and never stalled by a failure."""

from __future__ import annotations

import asyncio
import threading
import time
from dataclasses import replace

import numpy as np
import pytest

import streamtwin.speech.engine
from streamtwin.config import Config
from streamtwin.speech.engine import SpeechEngine, load_engine
from streamtwin.speech.capacity import BusyMeter
from streamtwin.events import Error, TranscriptFinal
from streamtwin.session import Session
from streamtwin.speech.speech_stage import SpeechStage
from streamtwin.speech.whisper import WindowJob, WindowResult
from tests.clock import Clock
from tests.live import hello, open_ws
from tests.test_server import closed_with


class FakeModel:
    """Stands in for the Whisper model where the engine's own behaviour is under test."""

    tail_s = 6.0

    def __init__(self, seconds: float = 0.02, fail_first: int = 0):
        self.seconds = seconds
        self.fail_first = fail_first
        self.batches: list[int] = []
        self.lock = threading.Lock()

    def decode(self, jobs: list[WindowJob]) -> list[WindowResult]:
        with self.lock:
            self.batches.append(len(jobs))
            failing = self.fail_first > 0
            self.fail_first -= 1
        time.sleep(self.seconds)
        if failing:
            raise RuntimeError("model exploded")
        return [WindowResult([(" word", 0.0, 0.3, 0.9)], 0.0, "en") for _ in jobs]


class ClockedModel(FakeModel):
    """A decode that takes ``seconds`` of the engine's clock (``clock``), and no wall time."""

    def __init__(self, clock: Clock, seconds: float):
        super().__init__(seconds=0.0)
        self.clock, self.spent = clock, seconds

    def decode(self, jobs: list[WindowJob]) -> list[WindowResult]:
        self.clock.now += self.spent
        return super().decode(jobs)


class Client:
    def __init__(self, engine: SpeechEngine, name: str, again: bool):
        self.engine, self.name, self.again = engine, name, again
        self.served: list[float] = []
        self.results: list[object] = []

    def take_job(self):
        return self.name, WindowJob(np.zeros(16000, np.float32))

    def deliver(self, token, result):
        self.served.append(time.monotonic())
        self.results.append(result)
        if self.again:
            self.engine.want(self, "step", 5.0)


async def test_a_talking_session_does_not_starve_a_quiet_one():
    engine = SpeechEngine(FakeModel(seconds=0.02), workers=1, max_batch=1)
    talker = Client(engine, "talker", again=True)
    quiet = Client(engine, "quiet", again=False)
    engine.want(talker, "step", 5.0)
    while len(talker.served) < 5:  # the talker keeps the engine busy, asking again after every decode
        await asyncio.sleep(0.005)
    engine.want(quiet, "step", 1.0)
    talker_before = len(talker.served)
    while not quiet.served:
        await asyncio.sleep(0.005)
    talker.again = False
    # Counted in decodes, not seconds: the talker's running decode finishes, then the quiet one goes.
    assert len([t for t in talker.served if t < quiet.served[0]]) - talker_before <= 1


async def test_windows_ready_together_are_decoded_in_one_batch():
    model = FakeModel(seconds=0.05)
    engine = SpeechEngine(model, workers=1, max_batch=4)
    first = Client(engine, "first", again=False)
    engine.want(first, "step", 2.0)  # runs alone: the engine was idle
    others = [Client(engine, f"c{i}", again=False) for i in range(3)]
    for client in others:
        engine.want(client, "step", 2.0)  # these wait for the running decode, then go together
    while not all(c.served for c in others):
        await asyncio.sleep(0.01)
    assert model.batches == [1, 3]
    assert engine.queue_depth == 0


async def test_a_failed_batch_is_reported_to_its_streams_and_the_engine_goes_on():
    engine = SpeechEngine(FakeModel(fail_first=1), workers=1)
    client = Client(engine, "a", again=False)
    engine.want(client, "step", 1.0)
    while not client.results:
        await asyncio.sleep(0.01)
    assert isinstance(client.results[0], RuntimeError)
    engine.want(client, "step", 1.0)
    while len(client.results) < 2:
        await asyncio.sleep(0.01)
    assert isinstance(client.results[1], WindowResult)


def speech(seconds: float) -> np.ndarray:
    """Real speech for the VAD (the fake model supplies the words)."""
    from faster_whisper import decode_audio

    return decode_audio("samples/meeting.wav")[: int(seconds * 16000)]


@pytest.mark.model
async def test_a_decode_that_fails_or_a_result_that_breaks_the_policy_never_stops_transcription(monkeypatch):
    from streamtwin.media.audio import SAMPLE_RATE
    from streamtwin.speech.agreement import StreamingTranscriber

    engine = fake_engine(FakeModel(fail_first=1), workers=1)
    events: list[object] = []
    stage = SpeechStage(Config(llm="none", asr_language="en"), events.append, engine, wait_for_decodes=True)
    original = StreamingTranscriber.on_decoded
    calls = {"n": 0}

    def flaky(self, request, words):
        calls["n"] += 1
        if calls["n"] == 1:
            raise ValueError("policy bug")
        return original(self, request, words)

    monkeypatch.setattr(StreamingTranscriber, "on_decoded", flaky)
    audio = speech(9.0)
    for start in range(0, len(audio), SAMPLE_RATE // 10):
        await stage.push(audio[start : start + SAMPLE_RATE // 10])
    await stage.push(np.zeros(SAMPLE_RATE, np.float32))
    await stage.finish()
    errors = [e for e in events if isinstance(e, Error)]
    assert [e.code for e in errors] == ["asr_failed", "asr_failed"]  # the model's failure, then the policy's
    assert any(isinstance(e, TranscriptFinal) and e.text for e in events)  # and transcription went on


class OverlapModel(FakeModel):
    """Counts how many decodes of speech (not of the silent test clients) run at once."""

    def __init__(self, seconds: float):
        super().__init__(seconds)
        self.running = 0
        self.most = 0

    def decode(self, jobs: list[WindowJob]) -> list[WindowResult]:
        speech = any(job.audio.any() for job in jobs)
        with self.lock:
            self.running += speech
            self.most = max(self.most, self.running)
        try:
            return super().decode(jobs)
        finally:
            with self.lock:
                self.running -= speech


def fake_engine(model: FakeModel, workers: int) -> SpeechEngine:
    """An engine around a fake model that answers for the real one where the speech stage checks it."""
    real = load_engine(Config(llm="none"))
    engine = SpeechEngine(model, workers=workers)
    engine.model.multilingual = real.model.multilingual  # what the stage checks the language against
    engine.model.languages = real.model.languages
    engine.model.path = real.model.path
    return engine


async def live_speech(stage: SpeechStage, seconds: float) -> None:
    """Push real speech at its pace (20 ms frames), as a live track does."""
    audio = speech(seconds)
    for start in range(0, len(audio), 320):
        await stage.push(audio[start : start + 320])
        await asyncio.sleep(0.02)


@pytest.mark.model
async def test_a_lone_speaker_overlaps_decodes_on_the_spare_worker():
    """Hypotheses come twice as often when a second worker would otherwise sit idle."""
    model = OverlapModel(seconds=0.6)
    engine = fake_engine(model, 2)
    engine.busy = BusyMeter(2, bucket_s=1000.0)  # one bucket: its peak is the total busy time
    stage = SpeechStage(Config(llm="none", asr_language="en"), lambda e: None, engine, wait_for_decodes=False)
    started = time.monotonic()
    await live_speech(stage, 6.0)
    await stage.finish()
    elapsed = time.monotonic() - started
    assert model.most == 2
    # Measured capacity (admission) counts the time this speaker had a decode running, once: counted per
    # decode, the overlapped ones would read more busy seconds than have passed (0.6 s x 15 in 7.9 s here).
    assert engine.busy.peak(time.monotonic()) * 2 * 1000.0 <= elapsed


@pytest.mark.model
async def test_no_overlap_while_another_stream_waits_for_a_worker():
    model = OverlapModel(seconds=0.4)
    engine = fake_engine(model, 2)
    waiting = Client(engine, "other", again=True)  # another stream asks again after every decode
    engine.want(waiting, "step", 5.0)
    stage = SpeechStage(Config(llm="none", asr_language="en"), lambda e: None, engine, wait_for_decodes=False)
    await live_speech(stage, 4.0)
    waiting.again = False
    await stage.finish()
    assert model.most == 1  # the other stream's decodes and this one's, never two of this one's at once
    assert stage.decodes >= 3


@pytest.mark.model
def test_every_session_shares_one_loaded_model():
    config = Config(llm="none")
    first = Session(config, source="a", realtime=True)
    second = Session(replace(config), source="b", realtime=False)
    assert first.speech._engine is second.speech._engine is load_engine(config)
    assert load_engine(replace(config, asr_model="tiny.en")) is not load_engine(config)


@pytest.mark.parametrize("bad", [{"asr_model": "huge-v9"}, {"asr_language": "xx"}, {"asr_model": "tiny.en", "asr_language": "de"}])
@pytest.mark.model
def test_unknown_models_and_languages_are_refused(bad):
    from streamtwin.speech.asr_models import ModelLoadError

    with pytest.raises(ModelLoadError):
        load_engine(Config(llm="none", **bad))


async def test_a_server_whose_speech_engine_is_saturated_refuses_another_session(make_server, monkeypatch):
    """Admission by measured capacity: the engine's busy share, not a fixed count, says when one more
    session would fall behind real time; the refusal is a clear ``busy`` and the first session goes on.
    The engine runs on a clock the test moves: each decode takes 0.05 s of it, the quiet minute none."""
    clock = Clock()
    engine = SpeechEngine(ClockedModel(clock, seconds=0.05), workers=1, clock=clock)
    engine.busy = BusyMeter(1, bucket_s=0.5, horizon_buckets=4)  # seconds, not minutes, for the test
    monkeypatch.setattr(streamtwin.speech.engine, "_ENGINES", [engine])
    server = await make_server(max_sessions=4, max_speech_load=0.85)
    first = await open_ws(server)
    assert (await hello(first, "publisher"))["type"] == "welcome"  # the first session is always heard

    talker = Client(engine, "talker", again=True)  # a speaking stream keeps the one worker busy
    engine.want(talker, "step", 5.0)
    while clock.now < 1001.2:  # 1.2 s of decoding
        await asyncio.sleep(0.001)
    second = await open_ws(server)
    error = await hello(second, "publisher")
    assert (error["type"], error["code"], error["fatal"]) == ("error", "busy", True), error
    assert "fall behind real time" in error["message"]
    assert (await closed_with(second))[0] == 1013

    talker.again = False  # the speaking stops with the decode under way; the busy minute (here 2 s) passes
    decoded = len(talker.results)
    while len(talker.results) == decoded:
        await asyncio.sleep(0.001)
    clock.now += 2.5
    third = await open_ws(server)
    assert (await hello(third, "publisher"))["type"] == "welcome"
    await first.close()
    await third.close()


async def test_a_stream_that_cannot_prepare_its_decode_does_not_stall_the_others():
    """A stream whose take_job raised took the batch's other streams down with it: their decodes were never
    run and their sessions waited forever."""

    class Broken(Client):
        def take_job(self):
            raise ValueError("a window outside the buffer")

    engine = SpeechEngine(FakeModel(), workers=1, max_batch=4)
    broken, fine = Broken(engine, "broken", again=False), Client(engine, "fine", again=False)
    engine.want(broken, "step", 1.0)
    engine.want(fine, "step", 1.0)
    async with asyncio.timeout(5):
        while not fine.results:
            await asyncio.sleep(0.01)
    assert isinstance(fine.results[0], WindowResult) and broken.results == []
    engine.want(fine, "step", 1.0)  # and the engine goes on
    async with asyncio.timeout(5):
        while len(fine.results) < 2:
            await asyncio.sleep(0.01)


@pytest.mark.model
async def test_a_window_that_cannot_be_cut_is_a_failed_decode_not_a_hang(monkeypatch):
    """The stream's own half: a window it could not prepare is reported (asr_failed) and abandoned, so
    finish() does not wait for a decode that never ran, and later windows are decoded."""
    from streamtwin.media.audio import SAMPLE_RATE, AudioBuffer

    engine = fake_engine(FakeModel(), workers=1)
    events: list[object] = []
    stage = SpeechStage(Config(llm="none", asr_language="en"), events.append, engine, wait_for_decodes=True)
    original, calls = AudioBuffer.slice, {"n": 0}

    def flaky(self, start, end):
        calls["n"] += 1
        if calls["n"] == 1:
            raise IndexError("window outside the buffer")
        return original(self, start, end)

    monkeypatch.setattr(AudioBuffer, "slice", flaky)
    audio = speech(9.0)
    async with asyncio.timeout(60):
        for start in range(0, len(audio), SAMPLE_RATE // 10):
            await stage.push(audio[start : start + SAMPLE_RATE // 10])
        await stage.push(np.zeros(SAMPLE_RATE, np.float32))
        await stage.finish()
    assert [e.code for e in events if isinstance(e, Error)] == ["asr_failed"]
    assert any(isinstance(e, TranscriptFinal) and e.text for e in events)


class DetectingModel(FakeModel):
    """Hears ``language`` with probability ``prob`` in every window given no language, and counts the windows."""

    def __init__(self, language: str, prob: float = 0.9):
        super().__init__()
        self.language, self.prob = language, prob
        self.undetermined: list[float] = []  # seconds of audio in each window decoded without a language
        self.cheaply: list[bool] = []  # whether each was to be read on its own encoding

    def decode(self, jobs: list[WindowJob]) -> list[WindowResult]:
        results = super().decode(jobs)
        for job, result in zip(jobs, results):
            if job.language is None:
                self.undetermined.append(len(job.audio) / 16000)
                self.cheaply.append(job.cheap_detection)
            result.language, result.language_prob = self.language, self.prob
        return results


@pytest.mark.model
@pytest.mark.parametrize("spoken, prob, early", [("en", 0.9, True), ("de", 0.9, False), ("en", 0.55, False)])
async def test_a_hinted_stream_settles_early_when_its_speech_agrees(spoken, prob, early):
    """A room's newcomer waited for 3 s of speech before its first word could be committed, as if nobody in
    the room had been heard: on short turns most words came late.  With the room's language as a hint it
    settles on the first confident window that agrees (1 s); one who speaks another language still waits.
    Confident means 0.6: 1 s of (espeak) German read as English at 0.587, Spanish at 0.55."""
    from streamtwin.media.audio import SAMPLE_RATE

    model = DetectingModel(spoken, prob)
    engine = fake_engine(model, workers=1)
    settled: list[str] = []
    stage = SpeechStage(Config(llm="none", asr_language="auto"), lambda e: None, engine, wait_for_decodes=True,
                        on_language=settled.append)
    stage.hint_language("en")
    audio = speech(5.0)
    for start in range(0, len(audio), SAMPLE_RATE // 10):
        await stage.push(audio[start : start + SAMPLE_RATE // 10])
    await stage.finish()
    assert settled == [spoken] and stage.language == spoken
    assert min(model.undetermined) < 1.5  # the first window is decoded after a second of speech, not three
    assert (max(model.undetermined) < 3.0) == early  # and settles there, or (another language) waits for 3 s
    # Only confirming the hint, a window under 3 s is read cheaply (no encoder pass at 30 s padding, which
    # cost a room's joiners a second each: word p90 2.2-3.0 s, now 0.9-1.4); from 3 s it is detected in full.
    assert model.cheaply == [seconds < 3.0 for seconds in model.undetermined]


@pytest.mark.model
async def test_a_window_that_can_never_be_cut_is_reported_without_asking_again_and_again(monkeypatch):
    """take_job that reported its failure through deliver() asked for the same window again from inside the
    engine's dispatch: a window that always fails recursed until the stack ran out."""
    from streamtwin.media.audio import SAMPLE_RATE, AudioBuffer

    engine = fake_engine(FakeModel(), workers=1)
    events: list[object] = []
    stage = SpeechStage(Config(llm="none", asr_language="en"), events.append, engine, wait_for_decodes=True)

    def broken(self, start, end):
        raise IndexError("window outside the buffer")

    monkeypatch.setattr(AudioBuffer, "slice", broken)
    audio = speech(4.0)
    async with asyncio.timeout(60):
        for start in range(0, len(audio), SAMPLE_RATE // 10):
            await stage.push(audio[start : start + SAMPLE_RATE // 10])
        await stage.finish()
    errors = [e for e in events if isinstance(e, Error)]
    assert errors and all(e.code == "asr_failed" for e in errors)
    assert len(errors) <= 2 * len(audio) // (SAMPLE_RATE // 10)  # about one a push, not one per stack frame
