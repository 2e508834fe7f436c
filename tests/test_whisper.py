"""The short-window Whisper engine on the real base model and real (synthetic) speech."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from difflib import SequenceMatcher
from pathlib import Path

import numpy as np
import pytest
from faster_whisper import decode_audio

from streamtwin.speech.asr_models import resolve_speech_model
from streamtwin.speech.wer import normalise, word_error_rate
from streamtwin.speech.whisper import ShortWindowWhisper, WindowJob, looks_degenerate, loop_start

SAMPLES = Path("samples")


@pytest.fixture(scope="module")
def base() -> ShortWindowWhisper:
    return ShortWindowWhisper(resolve_speech_model("base"), threads=1)


def turns(name: str) -> tuple[np.ndarray, list[dict]]:
    return decode_audio(str(SAMPLES / f"{name}.wav")), json.loads((SAMPLES / f"{name}.json").read_text())["turns"]


def window(audio: np.ndarray, start: float, end: float) -> np.ndarray:
    return audio[int(max(start - 0.15, 0) * 16000) : int((end + 0.1) * 16000)]


@pytest.mark.parametrize("name", ["meeting", "standup"])
@pytest.mark.model
@pytest.mark.slow
def test_short_window_decodes_are_as_accurate_as_full_padding(base, name):
    """A 6 s silence tail instead of Whisper's 30 s costs no accuracy.  Measured against what was said, not
    against the full-padding decode: the two slip on different marginal words (each is the better reader of
    some), and agreement counted every slip of either (2-6% here, moved by the last bit of a feature)."""
    audio, spoken = turns(name)
    said, short, full = [], [], []
    for turn in spoken[:8]:  # 70-110 words of two voices; a full-padding decode costs what five short ones do
        job = WindowJob(window(audio, turn["start"], turn["end"]), "", "en")
        base.tail_s = 6.0
        short += normalise(base.decode([job])[0].text)
        base.tail_s = 30.0
        full += normalise(base.decode([job])[0].text)
        said += normalise(turn["text"])
    base.tail_s = 6.0
    assert word_error_rate(said, short) <= min(word_error_rate(said, full) + 0.03, 0.12), (short, full)


@pytest.mark.model
@pytest.mark.slow
def test_word_times_match_faster_whisper_within_a_tenth_of_a_second(base):
    audio, spoken = turns("meeting")
    differences = []
    for turn in spoken[:6]:
        clip = window(audio, turn["start"], turn["end"])
        ours = base.decode([WindowJob(clip, "", "en")])[0].words
        segments, _ = base._fw.transcribe(clip, language="en", beam_size=1, word_timestamps=True,
                                          condition_on_previous_text=False, vad_filter=False)
        theirs = [w for s in segments for w in s.words]
        matcher = SequenceMatcher(a=[w[0].strip().lower() for w in ours], b=[w.word.strip().lower() for w in theirs])
        for block in matcher.get_matching_blocks():
            for k in range(block.size):
                mine, reference = ours[block.a + k], theirs[block.b + k]
                differences += [abs(mine[1] - reference.start), abs(mine[2] - reference.end)]
    assert len(differences) > 80
    assert float(np.median(differences)) <= 0.05
    assert float(np.percentile(differences, 90)) <= 0.1


@pytest.mark.model
def test_a_window_that_loops_on_a_short_tail_is_decoded_again_at_full_padding(base):
    audio, _ = turns("meeting")
    clip = audio[int(0.35 * 16000) : int(2.2 * 16000)]  # "Good morning everyone." and no silence after it
    base.tail_s = 0.0  # crafted: without a silence tail the decoder repeats itself here
    try:
        result = base.decode([WindowJob(clip, "", "en")])[0]
    finally:
        base.tail_s = 6.0
    assert result.retried
    assert normalise(result.text) == ["good", "morning", "everyone"]
    assert not looks_degenerate(result.tokens, result.text, cap=len(result.tokens) + 10)


@pytest.mark.model
def test_a_tentative_window_that_loops_keeps_its_first_telling_instead(base):
    audio, _ = turns("meeting")
    clip = audio[int(0.35 * 16000) : int(2.2 * 16000)]
    base.tail_s = 0.0  # the same crafted loop, in a growing-window step: the next step checks it anyway
    try:
        result = base.decode([WindowJob(clip, "", "en", trim_loops=True)])[0]
    finally:
        base.tail_s = 6.0
    assert not result.retried and result.looped_tokens > 0
    assert normalise(result.text) == ["good", "morning", "everyone"]
    assert result.words[-1][2] <= len(clip) / 16000 + 0.05  # aligned on the audio once, not twice


def test_where_a_loop_starts():
    assert loop_start([1, 2, 3, 4, 5, 6, 1, 2, 3, 4, 5, 6]) == 6  # a sentence said twice
    assert loop_start([1, 2, 3, 4, 5, 6, 1, 2, 3, 4, 5, 6, 1, 2, 3, 4]) == 6  # cut off by the cap mid-loop
    assert loop_start([0, 1, 2, 3, 4, 1, 2, 3, 4, 1]) == 5  # "Good morning everyone. Good morning everyone. Good"
    assert loop_start([9, 1, 2, 1, 2, 1, 2]) == 3  # a short n-gram three times: once
    assert loop_start([9, 8, 7, 7, 7, 7]) == 3
    assert loop_start([1, 2, 3, 4, 5, 6]) is None  # no repeat: nothing to keep short of the end


def test_the_degeneracy_check():
    assert looks_degenerate([1, 2, 3, 1, 2, 3, 1, 2, 3], "a b c a b c a b c", cap=100)
    assert looks_degenerate([5] * 20, "x", cap=20)  # hit the cap: never ended
    assert looks_degenerate([1, 2], "And so my fellow Americans. " * 6, cap=100)
    # "Do you need any help with that? Do you need any help" (measured on the stand-up sample)
    assert looks_degenerate([7, 8, 9, 10, 11, 12, 13, 14, 7, 8, 9, 10, 11], "", cap=100)
    assert not looks_degenerate([7, 8, 9, 10, 11, 12, 13, 14, 7, 8, 9, 30, 31], "", cap=100)
    assert not looks_degenerate([1, 2, 3, 4, 5, 6], "Good morning, everyone.", cap=100)


@pytest.mark.parametrize(("name", "code"), [("meeting_de", "de"), ("meeting_es", "es")])
@pytest.mark.model
def test_languages_are_detected_and_transcribed_not_translated(base, name, code):
    audio, spoken = turns(name)
    turn = spoken[0]
    result = base.decode([WindowJob(window(audio, turn["start"], turn["end"]), "", None)])[0]
    assert result.language == code and result.language_prob > 0.5
    assert word_error_rate(normalise(turn["text"]), normalise(result.text)) < 0.3, result.text


@pytest.mark.model
def test_a_cheap_detection_reads_the_windows_own_encoding_and_is_still_no_worse_at_refusing_english(base):
    """Detection at 30 s padding is an encoder pass of its own (1 s of a core for base): a window read
    cheaply is not padded, and says so.  A second of English still reads as English, sure enough to
    confirm a hint; a second of German does not read as English that sure (0.587 at full padding)."""
    from streamtwin.speech.speech_stage import HINT_CONFIRMED

    english = decode_audio(str(SAMPLES / "voices" / "dev" / "four.ogg"))  # a real reader (LibriSpeech)
    start = json.loads((SAMPLES / "voices" / "dev" / "four.json").read_text())["lines"][0]["start"]
    german, de_turns = turns("meeting_de")
    cheap = [WindowJob(window(audio, begin, begin + 0.85), "", None, cheap_detection=True)
             for audio, begin in ((english, start), (german, de_turns[0]["start"]))]
    heard = base.decode(cheap)
    assert not any(r.detected_at_full_padding for r in heard)
    assert heard[0].language == "en" and heard[0].language_prob >= HINT_CONFIRMED
    assert not (heard[1].language == "en" and heard[1].language_prob >= HINT_CONFIRMED)
    full = base.decode([WindowJob(cheap[0].audio, "", None)])[0]
    assert full.detected_at_full_padding and full.language == "en"


@pytest.mark.model
def test_windows_of_different_languages_and_lengths_decode_in_one_batch(base):
    english, en_turns = turns("meeting")
    german, de_turns = turns("meeting_de")
    jobs = [
        WindowJob(window(english, en_turns[1]["start"], en_turns[1]["end"]), "Good morning, everyone.", "en"),
        WindowJob(window(german, de_turns[0]["start"], de_turns[0]["end"]), "", None),
        WindowJob(np.zeros(16000, np.float32), "", "en"),  # silence says nothing, and breaks nothing
    ]
    batch = base.decode(jobs)
    assert [r.language for r in batch[:2]] == ["en", "de"]
    references = [en_turns[1]["text"], de_turns[0]["text"]]
    for result, reference in zip(batch, references):
        assert word_error_rate(normalise(reference), normalise(result.text)) <= 0.35, result.text
    assert len(batch[2].words) <= 1


@pytest.mark.model
def test_windows_searched_with_different_beams_decode_in_one_batch_each_as_alone(base):
    audio, spoken = turns("standup")
    jobs = [WindowJob(window(audio, turn["start"], turn["end"]), "", "en", beam)
            for turn, beam in zip(spoken[:4], (5, 0, 5, 2))]  # 0: the model's own beam (2)
    alone = [base.decode([job])[0] for job in jobs]
    together = base.decode(jobs)
    assert [r.text for r in together] == [r.text for r in alone]
    assert [[w[0] for w in r.words] for r in together] == [[w[0] for w in r.words] for r in alone]
    assert all(r.text for r in together)


class GenerateSpy:
    """The loaded CTranslate2 model, recording the prompts every generate call was given."""

    def __init__(self, model) -> None:
        self._model = model
        self.prompts: list[list[int]] = []

    def __getattr__(self, name):
        return getattr(self._model, name)

    def generate(self, encoded, prompts, **options):
        self.prompts += prompts
        return self._model.generate(encoded, prompts, **options)


@pytest.mark.model
def test_timestamp_mode_reads_whole_turns_and_gives_only_words(base, monkeypatch):
    """The second reading of an utterance decodes in Whisper's timestamp mode (as offline decoding does):
    its timestamp tokens never reach the text, the words keep their times, and a batch that mixes
    both modes prompts each window in its own."""
    audio, spoken = turns("meeting")
    clip = window(audio, spoken[3]["start"], spoken[4]["end"])  # Alice, then Bob: one utterance
    spy = GenerateSpy(base._fw.model)
    monkeypatch.setattr(base._fw, "model", spy)
    jobs = [WindowJob(clip, "", "en", 5, timestamps=True), WindowJob(clip, "", "en", 5)]
    alone = [base.decode([job])[0] for job in jobs]
    no_timestamps = base.tokenizer("en").no_timestamps
    assert [no_timestamps in prompt for prompt in spy.prompts] == [False, True]
    ours, plain = base.decode(jobs)
    assert [ours.text, plain.text] == [r.text for r in alone]
    said = normalise(spoken[3]["text"] + " " + spoken[4]["text"])
    assert word_error_rate(said, normalise(ours.text)) <= 0.15, ours.text
    assert "<|" not in ours.text and all(t < base.tokenizer("en").eot for t in ours.tokens)
    starts = [w[1] for w in ours.words]
    assert starts == sorted(starts) and all(0 <= w[1] <= w[2] <= len(clip) / 16000 + 0.05 for w in ours.words)
    assert len(ours.words) == len(said) or abs(len(ours.words) - len(plain.words)) <= 2


def test_encoder_widths_come_in_few_shapes():
    """Each distinct encoder width compiles another kernel: few widths, few compiles."""
    from streamtwin.speech.whisper import FULL_FRAMES, encoder_width

    widths = {encoder_width(frames, 600) for frames in range(1, FULL_FRAMES + 1)}
    assert len(widths) <= 50 and max(widths) == FULL_FRAMES
    assert all(encoder_width(frames, 600) >= min(frames + 600, FULL_FRAMES) for frames in range(1, FULL_FRAMES + 1))


# Decodes 16 windows of 16 lengths after two warm-up decodes and prints how much RSS grew.
SHAPES = """
from faster_whisper import decode_audio
from streamtwin.speech.asr_models import resolve_speech_model
from streamtwin.speech.whisper import ShortWindowWhisper, WindowJob

def rss_mb():
    return next(int(line.split()[1]) for line in open("/proc/self/status") if line.startswith("VmRSS:")) / 1024

audio = decode_audio("samples/meeting.wav")
model = ShortWindowWhisper(resolve_speech_model("tiny.en"), threads=1)
def decode(seconds):
    model.decode([WindowJob(audio[: int(seconds * 16000)], language="en")])

lengths = [1.0 + 0.5 * i for i in range(16)]
decode(lengths[0])
decode(lengths[-1])
before = rss_mb()
for seconds in lengths:
    decode(seconds)
print(rss_mb() - before)
"""


ORDER = """
import json, sys
sys.path.insert(0, "tests")
from test_whisper import turns, window
from streamtwin.speech.asr_models import resolve_speech_model
from streamtwin.speech.whisper import ShortWindowWhisper, WindowJob
from streamtwin.speakers.encoder import shared_encoder
audio, spoken = turns("meeting")
jobs = [WindowJob(window(audio, turn["start"], turn["end"]), "", "en") for turn in spoken[:3]]
model = ShortWindowWhisper(resolve_speech_model("base"), threads=1)
before = [result.tokens for result in model.decode(jobs)]
shared_encoder()
after = [result.tokens for result in model.decode(jobs)]
print(json.dumps([before, after]))
"""


@pytest.mark.model
def test_a_decode_does_not_depend_on_whether_the_speaker_encoder_loaded_first():
    """The speaker encoder sets numpy's BLAS to one thread; Whisper's log-mel features are a numpy product
    whose last bits depend on that count, and base read "project costs" with two threads, "product costs"
    with one.  The speech model sets it too, so a process reads the same audio the same way in either order
    (CI failed on a suite order that loaded the encoder first).  Two BLAS threads to start with, even on one
    core, so the order can show."""
    env = {**os.environ, "PYTHONPATH": str(Path.cwd()), "OPENBLAS_NUM_THREADS": "2"}
    out = subprocess.run([sys.executable, "-c", ORDER], env=env, capture_output=True, text=True, check=True,
                         timeout=300)
    before, after = json.loads(out.stdout.splitlines()[-1])
    assert before == after


@pytest.mark.model
def test_new_window_shapes_do_not_keep_memory():
    """oneDNN kept a compiled kernel per input shape (up to 1,024): a live session's RSS climbed with
    every new window length (+27-39 MB over these 16; a soak stepped up 38 MB at once)."""
    env = {key: value for key, value in os.environ.items() if key != "ONEDNN_PRIMITIVE_CACHE_CAPACITY"}
    out = subprocess.run([sys.executable, "-c", SHAPES], env={**env, "PYTHONPATH": str(Path.cwd())},
                         capture_output=True, text=True, check=True, timeout=300)
    assert float(out.stdout.split()[-1]) < 18


def test_a_glossary_is_kept_ahead_of_the_earlier_text_and_never_cut_for_a_batch_mate(base, monkeypatch):
    """--participants/--vocabulary reach Whisper as a glossary before the earlier text.  Prompts in one
    generate call are cut to one length (CTranslate2), so jobs of another glossary decode in a call of
    their own, and within one the earlier text gives way, never the glossary."""
    audio, spoken = turns("meeting")
    clip = window(audio, spoken[1]["start"], spoken[1]["end"])
    model = base._fw.model
    seen: list[list[list[int]]] = []

    class Recording:
        def __getattr__(self, name):
            return getattr(model, name)

        def generate(self, encoded, prompts, **options):
            seen.append(prompts)
            return model.generate(encoded, prompts, **options)

    monkeypatch.setattr(base._fw, "model", Recording())
    long_prompt = " ".join(["Good morning everyone, let's start the weekly planning meeting."] * 4)
    named = "Alice, Bob, Carol, Northwind."
    jobs = [WindowJob(clip, long_prompt, "en", glossary=named), WindowJob(clip, "Good morning.", "en"),
            WindowJob(clip, "Morning.", "en", glossary=named)]
    results = base.decode(jobs)
    tokenizer = base.tokenizer("en")
    glossary = tokenizer.encode(" " + named)
    sot = tokenizer.sot_sequence[0]
    batches = sorted(seen, key=len)
    assert [len(batch) for batch in batches] == [1, 2]  # no glossary alone; the two with one together
    for prompt in batches[1]:
        assert prompt[1 : 1 + len(glossary)] == glossary  # right after <|startofprev|>, whole
    assert len({prompt.index(sot) for prompt in batches[1]}) == 1  # one position in the batch
    assert all(result.text.strip() for result in results)
