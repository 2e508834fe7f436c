#!/usr/bin/env python3
"""Make 50 recorded meetings (``run --record`` event logs) and questions whose answers span two or more of them,
for ``streamtwin ask`` (bench/ask_meetings.py, tests/test_ask.py).  Deterministic, from text: no speech model.

The 50: the first 22 conversations of the evaluation set's ``dev`` split (samples/eval/dev/*.json: their gold lines,
speakers and times; the ``test`` split is never read) and 28 weekly meetings of one project written here, in
which ten things change over the weeks (a launch date, a budget, who owns a contract, ...).  Each question asks
about one of them, so a right answer needs the meetings where it was said and where it changed.

A recording holds what ``run --record`` writes for such a meeting: ``session.started``, the finals of each
utterance (words with times, the speaker's name), a partial before each final, a ``progress`` event a second,
the twin the rules keep without a language model (streamtwin/twin/extract.py) and ``session.ended``.

Usage:  python3 samples/make_meetings.py OUT_DIR     (writes OUT_DIR/NN_name.jsonl and OUT_DIR/questions.json)
"""

from __future__ import annotations

import argparse
import json
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from streamtwin.events import (  # noqa: E402
    Event, Progress, SessionEnded, SessionStarted, TranscriptFinal, TranscriptPartial, TwinState, encode,
)
from streamtwin.twin.extract import RuleExtractor  # noqa: E402

from eval_dev import CONVERSATIONS as DEV_SPECS  # noqa: E402

WORD_S = 0.38  # seconds a word takes at about 155 words a minute
PAUSE_S = 0.9
FIRST_DAY = datetime(2026, 9, 7, 9, 30, tzinfo=timezone.utc)  # a Monday

# (meeting number, speaker, line): what changes over the weeks.  Everything else said is filler.
THREADS: dict[str, list[tuple[int, str, str]]] = {
    "launch": [
        (3, "Sam", "We agreed to launch Falcon on the fourteenth of October."),
        (9, "Dana", "The launch plan for Falcon is on track, nothing new there."),
        (15, "Sam", "The Falcon launch moves to the fourth of November, because the payment provider is late."),
    ],
    "budget": [
        (2, "Sam", "The marketing budget for Falcon is forty thousand dollars."),
        (11, "Marcus", "Finance cut the marketing budget to thirty thousand dollars."),
        (20, "Sam", "Good news, the marketing budget goes back up to thirty five thousand dollars."),
    ],
    "contract": [
        (4, "Sam", "Priya will own the vendor contract with Acme."),
        (17, "Sam", "Priya is leaving the project, so Marcus takes over the Acme contract from today."),
    ],
    "database": [
        (6, "Dana", "We decided to use Postgres for the orders service."),
        (19, "Dana", "We keep Postgres for the orders service, and we add Redis as a cache in front of it."),
    ],
    "hiring": [
        (5, "Sam", "We will hire two backend engineers this quarter."),
        (13, "Sam", "Please welcome Lena, she is our first new backend engineer."),
        (24, "Sam", "Omar joins next week as the second backend engineer."),
    ],
    "globex": [
        (8, "Marcus", "Globex complained that their exports time out after a minute."),
        (14, "Dana", "The Globex export timeout is fixed in version two point three."),
    ],
    "office": [
        (9, "Sam", "We move to the new office on Harbour Street in January."),
        (22, "Sam", "The office move to Harbour Street is delayed to March, because the lease is not signed yet."),
    ],
    "audit": [
        (10, "Dana", "The security audit found two critical issues in the login service."),
        (18, "Dana", "Both critical issues from the security audit are fixed now, I checked them myself."),
    ],
    "mobile": [
        (7, "Sam", "For the mobile apps we start with the iPhone app."),
        (21, "Marcus", "The Android app comes after the iPhone app, in the spring."),
    ],
    "pricing": [
        (12, "Marcus", "The basic plan costs nine dollars a month."),
        (25, "Marcus", "From January we raise the basic plan to twelve dollars a month."),
    ],
}

# A right answer holds one alternative of every fact (lower case, as with the evaluation set's questions).
QUESTIONS: list[dict] = [
    {"thread": "launch", "question": "When is the Falcon launch now, and what was the date before that?",
     "facts": ["november", "october"]},
    {"thread": "budget", "question": "How did the marketing budget change over time?",
     "facts": ["forty", "thirty thousand|30,000|30 000|30000", "thirty five|thirty-five|35"]},
    {"thread": "contract", "question": "Who owned the Acme vendor contract, and who owns it now?",
     "facts": ["priya", "marcus"]},
    {"thread": "database", "question": "Which databases did we decide on for the orders service?",
     "facts": ["postgres", "redis"]},
    {"thread": "hiring", "question": "Which backend engineers did we hire?", "facts": ["lena", "omar"]},
    {"thread": "globex", "question": "What did Globex complain about, and was it fixed?",
     "facts": ["export", "2.3|two point three"]},
    {"thread": "office", "question": "When do we move to the Harbour Street office?",
     "facts": ["march"]},
    {"thread": "audit", "question": "What did the security audit find, and is it resolved?",
     "facts": ["two|2", "fixed|resolved"]},
    {"thread": "mobile", "question": "In which order do we build the mobile apps?",
     "facts": ["iphone", "android"]},
    {"thread": "pricing", "question": "How much does the basic plan cost, and has the price changed?",
     "facts": ["nine|9", "twelve|12"]},
]

FILLER = [
    ("Sam", "Good morning everyone, let's start with the updates."),
    ("Dana", "The test suite is green again after the fix on Friday."),
    ("Marcus", "I talked to two customers this week, both are happy with the reports."),
    ("Priya", "The Acme invoices for last month are paid."),
    ("Dana", "I spent most of the week on the deployment scripts."),
    ("Marcus", "The sales pipeline looks about the same as last week."),
    ("Sam", "Please keep your tickets up to date on the board."),
    ("Priya", "I will be out on Thursday afternoon for a doctor's appointment."),
    ("Dana", "The staging server was slow on Tuesday, it is fine now."),
    ("Marcus", "The new brochure is at the printer."),
    ("Sam", "Let's keep the demo on Friday short, twenty minutes at most."),
    ("Dana", "Code reviews are taking too long, please look at open requests every day."),
    ("Marcus", "Two trial customers asked for a longer trial."),
    ("Sam", "Thanks everyone, that's all for today."),
]
SERIES = 28
DEV_MEETINGS = 22  # the dev split's first 22 conversations: the split grew after these recordings were made
TEAM = ["Sam", "Dana", "Marcus", "Priya"]


def speakers_in(number: int) -> list[str]:
    team = [name for name in TEAM if not (name == "Priya" and number > 17)]
    return team + (["Lena"] if number >= 13 else []) + (["Omar"] if number > 24 else [])


def series_lines(number: int) -> list[tuple[str, str]]:
    """The project meeting ``number`` (1-28): a greeting, filler, whatever changes that week, a close."""
    said = [(speaker, text) for lines in THREADS.values() for at, speaker, text in lines if at == number]
    present = speakers_in(number)
    filler = [line for line in FILLER[1:-1] if line[0] in present]
    chosen = [filler[(number * 3 + k) % len(filler)] for k in range(3)]
    lines = [FILLER[0], chosen[0], *said[:1], chosen[1], *said[1:], chosen[2]]
    if "Lena" in present:
        lines.insert(2, ("Lena", "I am still getting to know the orders service code."))
    return lines + [FILLER[-1]]


def events_of(session: str, started: float, lines: list[tuple[str, str]]) -> list[Event]:
    """What run --record writes for these lines, said one after another."""
    out: list[Event] = [SessionStarted(source=f"{session}.ogg", options={"made_by": "samples/make_meetings.py"})]
    extractor = RuleExtractor()
    voices: dict[str, str] = {}
    t, second = 0.5, 1
    for utterance, (speaker, text) in enumerate(lines, start=1):
        words, start = text.split(), t
        timed = [[word, round(t + i * WORD_S, 2), round(t + (i + 1) * WORD_S - 0.05, 2)]
                 for i, word in enumerate(words)]
        end = timed[-1][2]
        while second < end:
            out.append(Progress(position=float(second)))
            second += 1
        out.append(TranscriptPartial(text=" ".join(words[: max(1, len(words) // 2)]), start=start, speaker=""))
        out.append(TranscriptFinal(
            text=text, start=start, end=end, words=timed, utterance=utterance, utterance_end=True, language="en",
            speaker=voices.setdefault(speaker, f"S{len(voices) + 1}"), speaker_name=speaker,
        ))
        extractor.add(text, speaker)
        t = end + PAUSE_S
    out.append(TwinState(version=0, state=extractor.draft()))
    out.append(SessionEnded(stats={"audio_s": round(t, 2)}))
    for seq, event in enumerate(out, start=1):
        at = getattr(event, "end", None) or getattr(event, "position", None) or getattr(event, "start", None)
        if isinstance(event, SessionEnded):
            at = t
        event.session, event.seq, event.media_time = session, seq, at
        event.wall = started + (at or 0.0)
    return out


def meetings() -> list[tuple[str, float, list[tuple[str, str]]]]:
    """(name, start wall, lines) of the 50, in the order they were held: the dev conversations between the
    project's meetings, two a week."""
    dev = sorted(HERE / "eval" / "dev" / f"{name}.json" for name in list(DEV_SPECS)[:DEV_MEETINGS])
    made = []
    day = FIRST_DAY
    dev_left = [json.loads(path.read_text()) for path in dev]
    for number in range(1, SERIES + 1):
        made.append((f"falcon_week{number:02d}", day.timestamp(), series_lines(number)))
        if dev_left:
            gold = dev_left.pop(0)
            made.append((gold["name"], (day + timedelta(days=2)).timestamp(),
                         [(line["speaker"], line["text"]) for line in gold["lines"]]))
        day += timedelta(days=7)
    return made


def write(out_dir: Path) -> list[Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    paths, names = [], []
    for order, (name, started, lines) in enumerate(meetings(), start=1):
        path = out_dir / f"{order:02d}_{name}.jsonl"
        events = events_of(f"{order:02d}-{name}", started, lines)
        path.write_bytes(b"".join(encode(event.to_dict()) + b"\n" for event in events))
        paths.append(path)
        names.append(path.stem)
    week = {int(stem.rsplit("week", 1)[1]): stem for stem in names if "_falcon_week" in stem}
    questions = [{**q, "meetings": [week[at] for at, _, _ in THREADS[q["thread"]]]} for q in QUESTIONS]
    (out_dir / "questions.json").write_text(json.dumps(questions, indent=1) + "\n")
    return paths


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path)
    args = parser.parse_args(argv)
    paths = write(args.out)
    print(f"{len(paths)} recordings and questions.json in {args.out}")


if __name__ == "__main__":
    main()
