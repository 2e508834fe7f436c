#!/usr/bin/env python3
"""Generate the meeting evaluation set under samples/eval/ (deterministic, bit for bit).

Three splits, so that scores on meetings nobody tuned on exist: ``dev`` (samples/eval_dev.py: tune on
it), ``test`` (samples/eval_test.py: scored and reported, never read while tuning the understanding
code) and ``holdout`` (samples/eval_holdout.py: written apart, by someone who had not read the rules or the
other splits; never read while tuning).  Each conversation is 2-5 synthetic voices; per conversation:

  eval/SPLIT/NAME.ogg   the conversation: Opus in Ogg, 16 kHz mono, 32 kbit/s (small enough to commit)
  eval/SPLIT/NAME.json  the gold:
    name, split (dev | test | holdout), kind (stand-up, planning, retro, one-on-one, sales call, support call,
    interview, hiring debrief, lecture, brainstorm, review, workshop, ward, building site, school, kitchen,
    committee, family), audio, duration,
    speakers {name: espeak-ng voice}, lines [{speaker, voice, text, start, end}] (who said what when),
    people (everyone named, speakers included),
    action_items [{owner (null: nobody in particular), task (key words), due, said_as, owner_by}]:
      said_as: how it was asked for, one of SAID_AS (below); owner_by: how the owner is known:
      "name" (said in the request: "Lee to ..."), "address" (the one spoken to: "Ravi, can you ...?"),
      "voice" (only who spoke tells: "I'll do it"), null for no owner.  Cancelled and reassigned-away
      tasks are not in the list;
    decisions and open_questions [{text, keywords}],
    questions [{line, text, facts}]: questions asked aloud to the assistant ("Assistant, ..."); a right
      answer contains one alternative of every fact,
    non_items [{line, text, target, why, keywords}]: lines that must not become an action item or a
      decision (target), and why: question (between people), hypothetical, cancelled, negation,
      not_decided; their key words show when one did.

A conversation spec (the data modules) has kind, speakers, turns [(speaker, text)], people,
action_items [(owner, task words, due, said_as, owner_by)], decisions and open_questions
[(text, keywords)], questions [(line, fact, ...)] with each fact "alt1|alt2", and non_items
[(line, target, why, keywords)].

Tools: espeak-ng and sox through ``make_samples.tts`` (same voice settings, bit-reproducible PCM),
ffmpeg with libopus (bit-exact flags) for the container.

Usage:  python3 samples/make_eval.py [--only NAME,...] [--out DIR]
"""
from __future__ import annotations

import argparse
import array
import json
import subprocess
import tempfile
from pathlib import Path

from eval_dev import CONVERSATIONS as DEV
from eval_holdout import CONVERSATIONS as HOLDOUT
from eval_test import CONVERSATIONS as TEST
from make_samples import SPEED_WPM, SR, tts, write_wav_s16

HERE = Path(__file__).resolve().parent
SPLITS = {"dev": DEV, "test": TEST, "holdout": HOLDOUT}

LEAD_IN = 0.5
TAIL = 1.0
# Pauses between turns: all longer than the 0.6 s gap that separates utterances when the
# speech stage gives no utterance ids; fixed list, so the output is deterministic.
PAUSES = [0.9, 1.1, 0.8, 1.3, 1.0, 0.85, 1.2, 0.95]

SAID_AS = {
    "imperative": "Greg, please fix ...",
    "could_you": "can / could / will you ...?",
    "id_like_you_to": "I'd like you to ... / I need you to ...",
    "indirect": "a need said to someone, not asked: Dmitri, you'll have five days to ...",
    "action_item_for": "Action item for X: ...",
    "x_to": "X to ...",
    "lets_have": "let's have X ...",
    "volunteer": "can someone ...? - I'll do it",
    "i_will": "I'll ...",
    "we_will": "we'll ... (nobody in particular)",
    "x_will": "X will ...",
    "reassigned": "handed from one person to another: actually, let X take that",
}
OWNER_BY = ("name", "address", "voice", None)
NON_ITEM_TARGETS = ("action_item", "decision")
NON_ITEM_WHY = ("question", "hypothetical", "cancelled", "negation", "not_decided")


def action_item(owner: str | None, task: str, due: str, said_as: str, owner_by: str | None) -> dict:
    if said_as not in SAID_AS or owner_by not in OWNER_BY or (owner is None) != (owner_by is None):
        raise ValueError(f"bad action item: {owner!r} {task!r} {said_as!r} {owner_by!r}")
    return {"owner": owner, "task": task.split(), "due": due, "said_as": said_as, "owner_by": owner_by}


def point(text: str, keywords: str) -> dict:
    return {"text": text, "keywords": keywords.split()}


def non_item(turns: list[tuple[str, str]], line: int, target: str, why: str, keywords: str) -> dict:
    if target not in NON_ITEM_TARGETS or why not in NON_ITEM_WHY:
        raise ValueError(f"bad non-item at line {line}: {target!r} {why!r}")
    return {"line": line, "text": turns[line][1], "target": target, "why": why, "keywords": keywords.split()}


def question(turns: list[tuple[str, str]], line: int, *facts: str) -> dict:
    """A question to the assistant at ``line``: the words from "Assistant," on (a ValueError when the line
    does not address it)."""
    text = turns[line][1]
    return {"line": line, "text": text[text.index("Assistant,"):], "facts": [fact.split("|") for fact in facts]}


def render(turns: list[tuple[str, str]], speakers: dict[str, str], name: str, tmp: Path) -> tuple[array.array, list]:
    """The conversation's audio (turns separated by PAUSES) and its lines with their times."""
    audio = array.array("h", [0] * int(LEAD_IN * SR))
    lines = []
    for k, (speaker, text) in enumerate(turns):
        voice = speakers[speaker]
        clip = tts(text, voice, SPEED_WPM, tmp, f"{name}_{k:02d}")
        start = len(audio)
        audio.extend(clip)
        lines.append({"speaker": speaker, "voice": voice, "text": text,
                      "start": round(start / SR, 3), "end": round(len(audio) / SR, 3)})
        gap = PAUSES[k % len(PAUSES)] if k < len(turns) - 1 else TAIL
        audio.extend([0] * int(round(gap * SR)))
    return audio, lines


def make(name: str, split: str, spec: dict, out: Path, tmp: Path) -> dict:
    """Render one conversation and write its NAME.ogg and gold NAME.json under ``out``/``split``."""
    turns = spec["turns"]
    audio, lines = render(turns, spec["speakers"], name, tmp)
    wav = tmp / f"{name}.wav"
    write_wav_s16(wav, audio)
    folder = out / split
    folder.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        ["ffmpeg", "-nostdin", "-hide_banner", "-loglevel", "error", "-y", "-i", str(wav),
         "-c:a", "libopus", "-b:a", "32k", "-ar", str(SR), "-ac", "1", "-map_metadata", "-1",
         "-fflags", "+bitexact", "-flags", "+bitexact", "-serial_offset", "1", str(folder / f"{name}.ogg")],
        check=True,
    )
    gold = {
        "name": name,
        "split": split,
        "kind": spec["kind"],
        "audio": f"{name}.ogg",
        "duration": round(len(audio) / SR, 3),
        "speakers": spec["speakers"],
        "lines": lines,
        "people": spec["people"],
        "action_items": [action_item(*fields) for fields in spec["action_items"]],
        "decisions": [point(*fields) for fields in spec["decisions"]],
        "open_questions": [point(*fields) for fields in spec["open_questions"]],
        "questions": [question(turns, *fields) for fields in spec["questions"]],
        "non_items": [non_item(turns, *fields) for fields in spec["non_items"]],
    }
    (folder / f"{name}.json").write_text(json.dumps(gold, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return gold


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", help="make these conversations (comma-separated names) and no others")
    parser.add_argument("--out", type=Path, default=HERE / "eval", help="write SPLIT/NAME.* under this folder")
    args = parser.parse_args()
    wanted = set(args.only.split(",")) if args.only else None
    chosen = [(split, name, spec) for split, specs in SPLITS.items() for name, spec in specs.items()
              if wanted is None or name in wanted]
    unknown = (wanted or set()) - {name for _, name, _ in chosen}
    if unknown:
        parser.error(f"no conversation named {', '.join(sorted(unknown))}")
    with tempfile.TemporaryDirectory(prefix="eval_") as tmp:
        for split, name, spec in chosen:
            gold = make(name, split, spec, args.out, Path(tmp))
            words = sum(len(line["text"].split()) for line in gold["lines"])
            print(f"{split}/{name}: {gold['duration']} s, {len(gold['lines'])} lines, {words} words")


if __name__ == "__main__":
    main()
