"""Recordings are read from outside: none of them may crash or hang a replay (issue 38).

The reproductions: ``replay`` of a line nested 5,000 deep died with a ``RecursionError`` traceback, and a
recording whose ``wall`` jumps by 1e300 s waited for ever.
"""

from __future__ import annotations

import asyncio
import json
import math
from dataclasses import replace
from pathlib import Path

from streamtwin.config import Config
from streamtwin.eventlog.recording import recorded_gap, replay
from tests.cli import assert_one_line_error, run_main

STARTED = {"v": 1, "type": "session.started", "session": "a", "seq": 1, "wall": 100.0, "media_time": 0.0,
           "source": "x"}
ENDED = {"v": 1, "type": "session.ended", "session": "a", "seq": 2, "wall": 1e300, "media_time": 0.0, "stats": {}}


def deep_recording(folder: Path) -> Path:
    path = folder / "deep.jsonl"
    path.write_text(json.dumps(STARTED) + "\n" + "[" * 5000 + "]" * 5000 + "\n")
    return path


def test_a_line_nested_5000_deep_is_one_line_and_exit_1(capfd, tmp_path: Path) -> None:
    deep = deep_recording(tmp_path)
    result = run_main(capfd, "replay", str(deep), "--speed", "0")
    assert_one_line_error(result, "deep.jsonl:2", "nested deeper than 32")
    moderately = tmp_path / "moderately.jsonl"  # within what json parses, past what an event needs
    moderately.write_text(json.dumps({**STARTED, "options": json.loads('{"a":' * 40 + "1" + "}" * 40)}) + "\n")
    assert_one_line_error(run_main(capfd, "replay", str(moderately), "--speed", "0"), "nested deeper than 32")


def test_serve_refuses_a_too_deep_recording_before_loading_models(capfd, tmp_path: Path) -> None:
    result = run_main(capfd, "serve", "--replay", str(deep_recording(tmp_path)), "--port", "0")
    assert_one_line_error(result, "--replay", "nested deeper than 32")


def test_a_gap_between_events_is_capped() -> None:
    assert recorded_gap(100.0, 1e300, 10.0) == 10.0
    assert recorded_gap(100.0, 103.5, 10.0) == 3.5
    assert recorded_gap(100.0, 50.0, 10.0) == 0.0  # a clock that went back
    for odd in (math.nan, math.inf, "soon", None, True):
        assert recorded_gap(100.0, odd, 10.0) == 0.0, odd
        assert recorded_gap(odd, 100.0, 10.0) == 0.0, odd


async def test_a_recording_whose_clock_jumps_by_1e300_s_still_ends(tmp_path: Path) -> None:
    path = tmp_path / "jump.jsonl"
    path.write_text(json.dumps(STARTED) + "\n" + json.dumps(ENDED) + "\n")
    seen = []
    config = replace(Config(), replay_speed=100.0)  # the default cap, 10 s, at 100 times the pace: 0.1 s
    count = await asyncio.wait_for(replay(config, str(path), seen.append), 30)  # the old main: for ever
    assert count == 2 and [event.type for event in seen] == ["session.started", "session.ended"]


def test_the_cap_is_a_flag_of_replay_and_serve() -> None:
    from streamtwin.cli.main import build_parser, config_from_args

    parser = build_parser()
    assert config_from_args(parser.parse_args(["replay", "x.jsonl", "--max-gap-s", "2.5"])).replay_max_gap_s == 2.5
    served = parser.parse_args(["serve", "--replay", "x.jsonl", "--replay-max-gap-s", "0"])
    assert config_from_args(served).replay_max_gap_s == 0.0
    assert Config().replay_max_gap_s == 10.0
