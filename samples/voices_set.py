"""The real-voice conversations of samples/voices/ (built by make_voices.py): who takes part, and the draw.

Every voice is a real person reading (LibriSpeech, CC BY 4.0, via the 351 clips resemblyzer keeps in its
``audio_data``; see samples/voices/README.md).  ``librispeech_test-other`` has ten readers with ten clips each:
the long two-person conversations use them; ``librispeech_train-clean-100`` has one clip (11-17 s) per reader,
cut at its pauses into turns.  ``gender`` is estimated from each reader's median pitch (F0 < 135 Hz: M,
> 175 Hz: F; the corpus' SPEAKERS.TXT is not in the source), readers in between were left out.  Pairs are of
one gender; groups of 4-5 mix.  The readers of ``dev`` and ``test`` are disjoint: tuning on dev tells nothing
about the test voices.

A conversation: ``speakers`` {label: reader}, ``budget_s`` (speech taken from each reader at most: the test-other
readers read far more than a conversation needs) and ``seed`` (turn lengths, gaps, overlaps and levels are drawn
from ``random.Random(seed).random()``, stable across Python versions).
"""

from __future__ import annotations

# reader -> (gender, subset, clips in the order their speech is used)
READERS: dict[str, tuple[str, str, list[str]]] = {
    # test-other: ten clips each, used in order until the budget is spent
    "1688": ("F", "test-other", ["1688-142285-0002", "1688-142285-0003", "1688-142285-0004", "1688-142285-0006"]),
    "1998": ("F", "test-other", ["1998-15444-0001", "1998-15444-0002", "1998-15444-0004", "1998-15444-0005"]),
    "2414": ("M", "test-other", ["2414-128291-0000", "2414-128291-0003", "2414-128291-0007", "2414-128291-0008"]),
    "2609": ("M", "test-other", ["2609-156975-0000", "2609-156975-0001", "2609-156975-0003", "2609-156975-0006"]),
    "3080": ("F", "test-other", ["3080-5032-0000", "3080-5032-0002", "3080-5032-0003", "3080-5032-0005"]),
    "3331": ("F", "test-other", ["3331-159605-0000", "3331-159605-0002", "3331-159605-0003", "3331-159605-0004"]),
    "367": ("F", "test-other", ["367-130732-0000", "367-130732-0003", "367-130732-0004", "367-130732-0006"]),
    "3005": ("M", "test-other", ["3005-163389-0001", "3005-163389-0002", "3005-163389-0004", "3005-163389-0007"]),
    "533": ("F", "test-other", ["533-1066-0001", "533-1066-0005", "533-1066-0006", "533-1066-0009"]),
}
# train-clean-100: one clip per reader; the first readers of each gender by id (as text), 11 s of speech or more
_TRAIN_CLEAN = {
    "M": """1040-133433-0000 1235-135883-0000 1334-135589-0000 1594-135914-0000 163-121908-0000 1723-141149-0000
            196-122150-0000 2002-139469-0000 2136-5140-0000 2159-179154-0000 2289-152253-0000 2384-152900-0000
            2436-2476-0000 2514-149482-0000 2691-156745-0000 2843-152918-0000 2893-139310-0000 2911-12359-0000
            2952-407-0000 307-127535-0000""",
    "F": """103-1240-0000 1069-133699-0000 1098-133695-0000 1116-132847-0000 1246-124548-0000 125-121124-0000
            150-126107-0000 1502-122615-0000 1553-140047-0000 1578-140045-0000 1737-142396-0000 1841-150351-0000
            1898-145702-0000 1926-143879-0000 1970-10594-0000 198-126831-0000 1992-141719-0000""",
}
for _gender, _clips in _TRAIN_CLEAN.items():
    for _clip in _clips.split():
        READERS[_clip.split("-")[0]] = (_gender, "train-clean-100", [_clip])

LONG = 30.0  # seconds of speech taken from a test-other reader
SHORT = 20.0  # more than any train-clean clip holds: all of it

# name -> (dev readers, test readers: in the order they take labels A, B, ...; budget_s); seeds 101, 102, ... for
# dev, 201, 202, ... for test
_PLAN = {
    "pair_f_long": ("1688 1998", "3331 367", LONG),
    "pair_m_long": ("2414 2609", "3005 2159", LONG),
    "pair_m": ("1040 1235", "2289 2384", SHORT),
    "pair_f": ("103 1069", "1578 1737", SHORT),
    "trio_f": ("3080 1098 1116", "533 1841 1898", SHORT),
    "trio_m": ("1334 1594 163", "2436 2514 2691", SHORT),
    "four": ("1723 1246 196 125", "2843 1926 2893 1970", SHORT),
    "five": ("150 2002 1502 1553 2136", "198 2911 1992 2952 307", SHORT),
}
CONVERSATIONS: dict[str, dict[str, dict]] = {
    split: {name: {"speakers": dict(zip("ABCDE", plan[column].split())), "budget_s": plan[2], "seed": seed + k}
            for k, (name, plan) in enumerate(_PLAN.items())}
    for split, column, seed in (("dev", 0, 101), ("test", 1, 201))
}

# Recorded (not mixed) conversations: AMI meeting excerpts (CC BY 4.0) that pyannote.audio keeps as test data
# (tests/data/*.wav, 30 s each, gold from its debug.*.rttm).  name -> (source file, rttm file, uri)
RECORDED: dict[str, tuple[str, str, str]] = {
    "ami_dev00": ("dev00.wav", "debug.development.rttm", "dev00"),
    "ami_dev01": ("dev01.wav", "debug.development.rttm", "dev01"),
    "ami_tst00": ("tst00.wav", "debug.test.rttm", "tst00"),
}
