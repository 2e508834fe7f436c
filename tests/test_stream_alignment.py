"""Streaming never drops or doubles speech: every sample, aligned word by word with the offline transcript.

The stream is decoded at live density (a decode every 0.5 s of new audio) but as fast as the
machine allows; offline is the same model over 30 s windows with beam search.  The two may differ
in single words (a short window hears less), never in spans: a run of 2+ words present in one and
absent from the other means words vanished at a commit point or were committed twice.
"""

from __future__ import annotations

import json
from dataclasses import replace
from difflib import SequenceMatcher
from pathlib import Path

import pytest

from pipeline.config import Config
from pipeline.engine import load_engine
from pipeline.events import TranscriptFinal
from pipeline.ingest import MediaReader
from pipeline.session import Session, run_reader
from pipeline.wer import normalise

SAMPLES = sorted(p for p in Path("samples").glob("*.wav") if p.with_suffix(".txt").is_file())


def gaps(streamed: list[str], offline: list[str]) -> list[tuple[str, str]]:
    """Runs of 2+ words that one transcript has and the other has nothing in place of.

    A span heard differently ("assistant" / "is it an") is a recognition error, not a gap.
    """
    out = []
    for op, a0, a1, b0, b1 in SequenceMatcher(a=offline, b=streamed, autojunk=False).get_opcodes():
        if (op == "delete" and a1 - a0 >= 2) or (op == "insert" and b1 - b0 >= 2):
            out.append((" ".join(offline[a0:a1]), " ".join(streamed[b0:b1])))
    return out


def test_the_gap_finder_sees_drops_and_doubles():
    offline = "we decided to move the launch date to june".split()
    assert gaps("we decided to move the launch date to june".split(), offline) == []
    assert gaps("we decided to move the lunch date to june".split(), offline) == []  # a misheard word is not a gap
    assert gaps("we decided to move the lunch date to jun e".split(), offline) == []
    assert gaps("we decided to june".split(), offline) == [("move the launch date to", "")]
    assert gaps("we decided to move the launch the launch date to june".split(), offline) == [("", "the launch")]


@pytest.mark.parametrize("sample", SAMPLES, ids=[p.stem for p in SAMPLES])
async def test_streaming_neither_drops_nor_doubles_words(sample):
    meta = json.loads(sample.with_suffix(".json").read_text())
    config = replace(Config(llm="none"), asr_step_s=0.5)
    session = Session(config, source=str(sample), realtime=False)
    finals: list[TranscriptFinal] = []
    session.bus.subscribe(lambda e: finals.append(e) if isinstance(e, TranscriptFinal) else None)
    assert await run_reader(session, MediaReader(str(sample), realtime=False, video=False))
    streamed = normalise(" ".join(f.text for f in finals))
    offline = normalise(load_engine(config).model.transcribe_offline(str(sample), meta.get("language", "en")))
    assert gaps(streamed, offline) == [], " ".join(streamed)
    # The language is known once 3 s of speech were heard; a shorter first utterance may be a guess.
    assert {f.language for f in finals if f.utterance > 1} == {meta.get("language", "en")}
    ends = [f for f in finals if f.utterance_end]
    assert len(ends) >= len(meta["turns"]) // 2  # utterances close (turns may run together)
    assert [f.utterance for f in ends] == sorted({f.utterance for f in finals})  # each closes once, in order
