"""Understanding benchmark: every evaluation conversation through the real pipeline, scored.

    python -m bench.understanding [--split dev|test|holdout|all] [--mode e2e|gold|gold-anonymous|all]
                                  [--llm local] [--llm-model smollm2] [--asr-model embedded] [--only NAME,...]
                                  [--speakers voice|off] [--participants]

The conversations are samples/eval/SPLIT/ (made by samples/make_eval.py): ``dev`` to tune on,
``test`` to report (never read while tuning), ``holdout`` to report too (written apart, never read while
tuning).  Each runs through a ``Session`` as fast as the machine allows, in up to three modes side by side
(``--mode all``, the default):

  e2e             end to end: the audio, speech included
  gold            heard perfectly: the gold lines as finals, each with its speaker's name on it, as
                  a room gives them (what understanding can do when hearing and voices are not the problem)
  gold-anonymous  heard perfectly, without names: the gold lines and no speaker (a single microphone
                  without speaker labels)

then what viewers were shown is scored against the gold JSON (bench/scoring.py): action items (owner
+ task) precision, recall and F1; decisions and open questions recall, and precision (an entry the gold
does not list counts against it: the gold lists every one); people precision; question
answering accuracy (every key fact in the answer; a wrong or off-topic answer has none); seconds
from the question's last final to its answer; owners shown that nobody said; non-items (cancelled,
hypothetical, questions between people) the twin holds anyway.  Each mode prints a table per
conversation, per kind of conversation and per way an action item was asked for (recall per gold
``said_as`` and ``owner_by``), then a summary puts the modes side by side; the last line is one JSON
object with every mode's figures.  Works with any backend (``--llm groq`` with a key scores the
hosted model); ``--llm none`` scores the rule-based twin and the answers composed from it (or quoted
from the transcript).

``--participants`` gives each conversation's speaker names up front, as ``run --participants`` does (Whisper
hears them as vocabulary, the voices take them): a meeting whose invite lists who comes.

``--replay DETAILS`` skips speech in ``e2e``: the finals and revisions an earlier run recorded
(``--details``) are fed to the session instead.  The gold modes and replays are paced at
``--replay-speed`` times real time.  Cheaper, so good for tuning prompts and rules; replayed e2e scores
are labelled (``speech``) and are not the end-to-end figures.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import re
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import jsonpatch

from bench.scoring import Score, score_conversation
from bench.speakers import true_speaker
from bench.understanding_report import HEADER, NAME_WIDTH, ModeRun, mode_figures, print_mode, print_summary, row
from streamtwin.config import Config
from streamtwin.events import (
    AssistantDelta, AssistantDone, AssistantStarted, Event, SpeakerNamed, TranscriptFinal, TranscriptRevised, TwinPatch,
    TwinState,
)
from streamtwin.media.ingest import MediaReader
from streamtwin.llm.factory import make_backend
from streamtwin.twin.heard import key_words
from streamtwin.session import Session, run_reader

EVAL = Path(__file__).resolve().parent.parent / "samples" / "eval"
SPLITS = ("dev", "test", "holdout")
MODES = {
    "e2e": "end to end, speech included",
    "gold": "heard perfectly, each line with its speaker's name",
    "gold-anonymous": "heard perfectly, without names",
}


class Recorder:
    """Everything a viewer of the session was shown, with the wall time it arrived."""

    def __init__(self) -> None:
        self.events: list[tuple[float, Event]] = []

    def __call__(self, event: Event) -> None:
        self.events.append((time.perf_counter(), event))

    def shown_states(self) -> list[dict[str, Any]]:
        states: list[dict[str, Any]] = []
        for _, event in self.events:
            if isinstance(event, TwinState):
                states.append(event.state)
            elif isinstance(event, TwinPatch) and states:
                states.append(jsonpatch.apply_patch(states[-1], event.patch))
        return states

    def answers(self, gold: dict[str, Any]) -> list[tuple[str, float | None]]:
        """Per gold question: the first completed answer started after the question was heard, and how
        long after the final that ended the question it was shown."""
        texts: dict[int, str] = {}
        shown_at: dict[int, float] = {}
        for at, event in self.events:
            if isinstance(event, AssistantDelta):
                texts[event.generation] = texts.get(event.generation, "") + event.text
                shown_at.setdefault(event.generation, at)
        completed = {e.generation for _, e in self.events if isinstance(e, AssistantDone) and not e.cancelled}
        asked = [
            (event.media_time or 0.0, event.generation, key_words(event.question))
            for _, event in self.events
            if isinstance(event, AssistantStarted) and event.trigger == "question" and event.generation in completed
        ]
        finals = [(at, e.end) for at, e in self.events if isinstance(e, TranscriptFinal)]
        used: set[int] = set()
        out: list[tuple[str, float | None]] = []
        for question in gold["questions"]:
            line = gold["lines"][question["line"]]
            wanted = key_words(question["text"])
            # Asked after the question was heard; the one whose words are closest (ASR mangles some).
            candidates = [(len(words & wanted), -t, g) for t, g, words in asked if t >= line["start"] and g not in used]
            generation = max(candidates)[2] if candidates else None
            if generation is None:
                out.append(("", None))
                continue
            used.add(generation)
            heard_at = next((at for at, end in finals if end >= line["end"] - 0.5), None)
            seconds = None
            if heard_at is not None and generation in shown_at:
                seconds = round(max(0.0, shown_at[generation] - heard_at), 2)
            out.append((texts.get(generation, ""), seconds))
        return out


_FINAL_FIELDS = ("text", "start", "end", "utterance", "utterance_end", "speaker", "speaker_name")
_REVISION_FIELDS = ("text", "start", "end", "utterance", "media_time", "speaker", "speaker_name", "replaces")


def recorded_finals(gold: dict[str, Any], detail: dict[str, Any]) -> list[TranscriptFinal]:
    """The finals of an earlier run, with the utterance and speaker labels they were heard with (the
    assistant groups fragments into utterances and reads "Tom: I will ..." by them).  A run that kept
    only [text, start, end] replays each final as an utterance of its own; one that predates ``finals``,
    one sentence a final, spread over the conversation's duration."""
    if "finals" in detail:
        finals = []
        for number, final in enumerate(detail["finals"], 1):
            values = dict(zip(_FINAL_FIELDS, final))
            values.setdefault("utterance", number)
            values.setdefault("utterance_end", True)
            finals.append(TranscriptFinal(**values))
        return finals
    sentences = [s for s in re.split(r"(?<=[.!?])\s+", detail["transcript"]) if s.strip()]
    step = gold["duration"] / max(1, len(sentences))
    return [
        TranscriptFinal(text=text, start=i * step, end=(i + 0.9) * step, utterance=i + 1, utterance_end=True)
        for i, text in enumerate(sentences)
    ]


def recorded_transcript(gold: dict[str, Any], detail: dict[str, Any]) -> list[TranscriptFinal | TranscriptRevised]:
    """The finals of an earlier run and its utterances' revisions, in the order they were heard: a
    revision after its utterance's last final (which may end later than the revision's audio did)."""
    finals = recorded_finals(gold, detail)
    closed = {f.utterance: f.end for f in finals}
    revisions = [TranscriptRevised(**dict(zip(_REVISION_FIELDS, r))) for r in detail.get("revisions", [])]
    revisions = [replace(r, media_time=max(r.media_time or 0.0, closed.get(r.utterance, 0.0))) for r in revisions]
    return sorted([*finals, *revisions], key=heard_at)


def heard_at(event: TranscriptFinal | TranscriptRevised) -> float:
    """Media time an event was sent at: a final when its last word ended, a revision when its audio did."""
    return event.media_time if isinstance(event, TranscriptRevised) and event.media_time else event.end


async def replay(session: Session, said: list[TranscriptFinal | TranscriptRevised], speed: float) -> None:
    """Feed finals and revisions (recorded, or the gold lines) instead of audio, each when it was heard, at
    ``speed`` times real time."""
    await session.start()
    began = time.perf_counter()
    for event in said:
        await asyncio.sleep(max(0.0, heard_at(event) / speed - (time.perf_counter() - began)))
        session.bus.emit(event)
    await session.end()


def gold_transcript(gold: dict[str, Any], named: bool) -> list[TranscriptFinal]:
    """The gold lines as a room sends them: one final per line, closing its utterance, with the speaker's
    name as both labels (rooms/room.py), or, not ``named``, with no label at all."""
    return [
        TranscriptFinal(
            text=line["text"], start=line["start"], end=line["end"], utterance=number, utterance_end=True,
            speaker=line["speaker"] if named else "", speaker_name=line["speaker"] if named else "",
        )
        for number, line in enumerate(gold["lines"], 1)
    ]


def transcript_for(mode: str, gold: dict[str, Any], recorded: dict[str, Any] | None) -> list[Any] | None:
    """What a mode feeds the session instead of the audio (None: the audio itself)."""
    if mode != "e2e":
        return gold_transcript(gold, named=mode == "gold")
    return None if recorded is None else recorded_transcript(gold, recorded)


async def run_one(
    gold: dict[str, Any], config: Config, backend: Any, said: list[Any] | None = None, speed: float = 2.0
) -> tuple[Score, dict[str, Any]]:
    """One conversation: its audio through speech, or ``said`` (finals and revisions) replayed instead."""
    path = str(EVAL / gold["split"] / gold["audio"])
    session = Session(config, source=path, realtime=False, backend=backend)
    recorder = Recorder()
    session.bus.subscribe(recorder)
    began = time.perf_counter()
    if said is None:
        await run_reader(session, MediaReader(path, realtime=False, video=False))
    else:
        await replay(session, said, speed)
    wall = time.perf_counter() - began
    shown = recorder.shown_states()
    final_state = shown[-1] if shown else {"people": [], "action_items": [], "decisions": [], "open_questions": []}
    answers = recorder.answers(gold)
    score = score_conversation(gold, final_state, shown, answers)
    finals = [e for _, e in recorder.events if isinstance(e, TranscriptFinal)]
    revisions = [e for _, e in recorder.events if isinstance(e, TranscriptRevised)]
    label_of = {f.utterance: f.speaker for f in finals if f.utterance_end}
    words = [
        (label_of.get(f.utterance, ""), true_speaker(gold["lines"], (w[1] + w[2]) / 2)) for f in finals for w in f.words
    ]
    detail = {
        "name": gold["name"],
        "wall_s": round(wall, 1),
        "transcript": " ".join(e.text for _, e in recorder.events if isinstance(e, TranscriptFinal)),
        "finals": [[getattr(f, name) for name in _FINAL_FIELDS] for f in finals],
        "revisions": [[getattr(r, name) for name in _REVISION_FIELDS] for r in revisions],
        "twin": {k: final_state.get(k) for k in ("people", "action_items", "decisions", "open_questions")},
        "answers": [
            {"question": q["text"], "answer": a, "seconds": s} for q, (a, s) in zip(gold["questions"], answers)
        ],
        "non_items_taken": score.non_items_taken,
        "speaker_words": words,  # (label, true speaker) per word heard: bench.speakers.attribution scores them
        "voice_names": voice_names([e for _, e in recorder.events if isinstance(e, SpeakerNamed)]),
    }
    return score, detail


def voice_names(named: list[SpeakerNamed]) -> dict[str, str]:
    """The name each voice label holds at the end (a later event replaces an earlier one; "" takes it away)."""
    names: dict[str, str] = {}
    for event in named:
        names[event.speaker] = event.name
    return {label: name for label, name in names.items() if name}


def load_golds(split: str, only: str | None) -> list[dict[str, Any]]:
    """The gold conversations of ``split`` ("all": every split); ``only``: these names (comma-separated)."""
    splits = SPLITS if split == "all" else (split,)
    golds = [json.loads(path.read_text(encoding="utf-8")) for s in splits for path in sorted((EVAL / s).glob("*.json"))]
    if not only:
        return golds
    wanted = only.split(",")
    missing = set(wanted) - {gold["name"] for gold in golds}
    if missing:
        raise SystemExit(f"not in the {split} split: {', '.join(sorted(missing))}")
    return [gold for gold in golds if gold["name"] in wanted]


async def run_mode(
    mode: str, golds: list[dict[str, Any]], config: Config, backend: Any, recorded: dict[str, Any], speed: float,
    participants: bool = False,
) -> ModeRun:
    """Every conversation in one mode, a row each as it ends.  ``recorded``: e2e replays from an earlier run
    (only the conversations it has are run); ``participants``: each conversation's speakers given up front."""
    if mode != "e2e":
        config = replace(config, speakers="off")  # the replayed lines carry their labels (or none)
    elif recorded:
        golds = [gold for gold in golds if gold["name"] in recorded]
    run = ModeRun(mode)
    print(f"== {mode}: {MODES[mode]} ({len(golds)} conversations) ==")
    print(f"{'conversation':<{NAME_WIDTH}} {HEADER}", flush=True)
    for gold in golds:
        said = transcript_for(mode, gold, recorded.get(gold["name"]))
        known = replace(config, participants=list(gold["speakers"])) if participants else config
        score, detail = await run_one(gold, known, backend, said, speed)
        run.add(gold["kind"], score, detail)
        print(row(gold["name"], score, f"{detail['wall_s']:.0f}"), flush=True)
    print_mode(run)
    return run


async def main_async(args: argparse.Namespace) -> dict[str, Any]:
    config = Config.from_sources(
        {"llm": args.llm, "llm_model": args.llm_model or None, "asr_model": args.asr_model or None,
         "speakers": args.speakers or None}
    )
    config.vision = False
    config.twin_without_llm = args.llm == "none"  # the rules' twin and answers composed from it
    config.llm_drain_s = args.drain_s
    golds = load_golds(args.split, args.only)
    modes = list(MODES) if args.mode == "all" else [args.mode]
    # An earlier run's e2e details (files from before the modes have no "mode": they were e2e).
    recorded = {
        d["name"]: d for d in json.loads(Path(args.replay).read_text()) if d.get("mode", "e2e") == "e2e"
    } if args.replay else {}
    speech = {"e2e": f"replayed from {args.replay}" if args.replay else "run",
              "gold": "gold lines with the speakers' names", "gold-anonymous": "gold lines without names"}
    backend = make_backend(config)
    runs = []
    try:
        for mode in modes:
            runs.append(await run_mode(mode, golds, config, backend, recorded, args.replay_speed, args.participants))
    finally:
        if backend is not None:
            await backend.aclose()
    if len(runs) > 1:
        print_summary(runs, args.split)
    if args.details:
        Path(args.details).write_text(json.dumps([d for run in runs for d in run.details], indent=2) + "\n")
    return {
        "bench": "understanding",
        "split": args.split,
        "llm": getattr(backend, "name", "none"),
        "llm_model": getattr(backend, "model", ""),
        "asr_model": config.asr_model,
        "speakers": config.speakers,
        "participants": args.participants,
        "conversations": len(golds),
        "modes": {
            run.mode: mode_figures(run, speech[run.mode], config.speakers if run.mode == "e2e" else "off")
            for run in runs
        },
        "load_average_1m": round(os.getloadavg()[0], 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--llm", default="local", help="auto | groq | openai | local | none (default: local)")
    parser.add_argument("--llm-model", default="", help="model name or GGUF path; local: default Qwen, or smollm2")
    parser.add_argument("--asr-model", default="", help="speech model: base (default), tiny.en or a directory")
    parser.add_argument("--split", default="dev", choices=[*SPLITS, "all"], help="which conversations (default: dev)")
    parser.add_argument(
        "--mode", default="all", choices=[*MODES, "all"],
        help="e2e (speech included), gold (the gold lines with names), gold-anonymous (without), all (default)",
    )
    parser.add_argument("--only", help="conversations of the split by name, comma-separated (e.g. standup,support)")
    parser.add_argument(
        "--speakers", default="", choices=["", "auto", "voice", "off"],
        help="speaker labels from voice (default: auto, on when installed); off to score without them",
    )
    parser.add_argument(
        "--participants", action="store_true",
        help="give each conversation's speaker names up front, as `run --participants` does (Whisper's vocabulary)",
    )
    parser.add_argument("--drain-s", type=float, default=600.0, help="time the LLM gets after each conversation")
    parser.add_argument("--details", help="write transcripts, final twins and answers to this JSON file")
    parser.add_argument(
        "--replay", help="a --details file of an earlier run: feed its finals instead of running speech (cheap tuning)"
    )
    parser.add_argument("--replay-speed", type=float, default=2.0, help="replayed and gold finals, times real time")
    parser.add_argument("--log-level", default="WARNING")
    args = parser.parse_args()
    logging.basicConfig(level=args.log_level)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    print(json.dumps(asyncio.run(main_async(args))))


if __name__ == "__main__":
    main()
