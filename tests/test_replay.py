"""Record and replay: `run --record` writes the event log; `replay` re-emits it (from the file or from a
real redis-server) byte for byte; bad sources end with one line and exit status 1."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

from streamtwin.eventlog.redis_store import RedisStore
from streamtwin.events import from_json
from streamtwin.eventlog.recording import due_in
from streamtwin.cli.serve import start_replay
from tests.cli import assert_one_line_error, run_main
from tests.conftest import ServerFactory
from tests.live import hello, open_ws, recv_until
from tests.redis_server import RedisServer, redis_server  # noqa: F401  (the fixture)
from tests.test_bad_input import ffmpeg

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def recording(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """A real run of 4 s of the meeting with --record, and what it printed with --format jsonl."""
    folder = tmp_path_factory.mktemp("record")
    clip = folder / "clip.wav"
    ffmpeg("-i", str(ROOT / "samples" / "meeting.wav"), "-t", "4", str(clip))
    record = folder / "clip.jsonl"
    # A process of its own: a module's fixture has no capfd to take the command's output.
    result = subprocess.run(
        [sys.executable, "-m", "streamtwin", "run", str(clip), "--llm", "none", "--asr-model", "tiny.en",
         "--language", "en", "--format", "jsonl", "--record", str(record)],
        capture_output=True, text=True, timeout=300, env=dict(os.environ, PYTHONPATH=str(ROOT)), cwd=ROOT,
    )
    assert result.returncode == 0, result.stderr
    return record, result.stdout


@pytest.mark.model
def test_run_records_every_event_it_emits(recording: tuple[Path, str]) -> None:
    record, printed = recording
    text = record.read_text(encoding="utf-8")
    assert text == printed  # the same events as --format jsonl, one per line
    events = [from_json(line) for line in text.splitlines()]
    assert events[0].type == "session.started" and events[-1].type == "session.ended"
    assert any(event.type == "transcript.final" for event in events)


@pytest.mark.model
def test_replay_at_once_gives_the_recording_back_byte_for_byte(capfd, recording: tuple[Path, str]) -> None:
    record, _ = recording
    result = run_main(capfd, "replay", str(record), "--speed", "0", "--format", "jsonl")
    assert result.returncode == 0, result.stderr
    assert result.stdout == record.read_text(encoding="utf-8")


@pytest.mark.model
def test_replay_as_text_shows_the_transcript(capfd, recording: tuple[Path, str]) -> None:
    record, _ = recording
    result = run_main(capfd, "replay", str(record), "--speed", "50", "--format", "text")
    assert result.returncode == 0, result.stderr
    assert "[00:00]" in result.stdout and "morning" in result.stdout.lower()


@pytest.mark.model
def test_replay_from_redis_equals_the_recording(
    capfd, recording: tuple[Path, str], redis_server: RedisServer
) -> None:
    record, _ = recording
    lines = record.read_text(encoding="utf-8").splitlines()
    session = from_json(lines[0]).session

    async def store_the_recording() -> None:
        store = RedisStore(redis_server.url)
        await store.register(session, "node-a", 1000.0)
        for line in lines:
            await store.append(session, from_json(line).seq, line.encode())
        await store.end(session)
        await store.close()

    asyncio.run(store_the_recording())
    result = run_main(capfd, "replay", f"{redis_server.url}/{session}", "--speed", "0", "--format", "jsonl")
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == lines


def test_pacing_follows_the_recorded_wall_clock() -> None:
    assert due_in(5.0, 1.0, 0.0) == 5.0
    assert due_in(5.0, 2.0, 1.0) == 1.5  # twice as fast, 1 s already gone
    assert due_in(5.0, 1.0, 9.0) == 0.0  # late: at once
    assert due_in(5.0, 0.0, 0.0) == 0.0  # --speed 0: everything at once


def test_bad_sources_are_one_line_and_exit_1(
    capfd, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, redis_server: RedisServer
) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"v":1,"type":"session.started","session":"a","seq":1,"wall":1,"media_time":0,"source":"x"}\n'
                   "not json\n")
    assert_one_line_error(run_main(capfd, "replay", str(bad)), "bad.jsonl:2", "not an event")
    assert_one_line_error(run_main(capfd, "replay", str(tmp_path / "missing.jsonl")), "cannot read")
    result = run_main(capfd, "replay", "redis://user:hunter2@127.0.0.1:6379/zero/s1")
    assert_one_line_error(result, "bad database", "user:***@")
    assert "hunter2" not in result.stderr
    assert_one_line_error(run_main(capfd, "replay", "redis://127.0.0.1:6379/"), "no session")
    assert_one_line_error(run_main(capfd, "replay", f"{redis_server.url}/nosuchsession"), "no session 'nosuchsession'")
    redis_server.kill()
    result = run_main(capfd, "replay", f"redis://:hunter2@127.0.0.1:{redis_server.port}/0/s1")
    assert_one_line_error(result, "unreachable", f"127.0.0.1:{redis_server.port}")
    assert "hunter2" not in result.stderr
    assert run_main(capfd, "replay", str(bad), "--speed", "-1").returncode == 2  # argparse: usage and exit 2
    monkeypatch.setenv("STREAMTWIN_LOG_MAXLEN", "0")
    assert_one_line_error(run_main(capfd, "replay", f"{redis_server.url}/s1"), "log_maxlen >= 1")


def test_redis_urls_are_checked_and_shown_without_password() -> None:
    from streamtwin.eventlog.redis_url import BadRedisURL, parse_redis_url

    target = parse_redis_url("redis://:s3cret@cache.internal/2")
    assert target.url == "redis://:s3cret@cache.internal:6379/2"
    assert target.shown == "redis://:***@cache.internal:6379/2"
    assert parse_redis_url("redis://127.0.0.1:7000/3/abc", with_session=True).session == "abc"
    assert parse_redis_url("redis://127.0.0.1/abc", with_session=True).url == "redis://127.0.0.1:6379/0"
    assert parse_redis_url("rediss://[::1]:7000").url == "rediss://[::1]:7000/0"
    for bad in ("http://host/0", "redis://:70000/0", "redis://host:port/0", "redis:///0", "redis://h/0?x=1",
                "redis://h/a/b"):
        with pytest.raises(BadRedisURL):
            parse_redis_url(bad)


@pytest.mark.redis
def test_a_wrong_or_missing_redis_password_is_one_line_without_the_password(capfd, tmp_path: Path) -> None:
    server = RedisServer(tmp_path, password="s3cret-pw")
    server.start()
    try:
        wrong = run_main(capfd, "replay", f"redis://:hunter2@127.0.0.1:{server.port}/0/s1")
        missing = run_main(capfd, "replay", f"redis://127.0.0.1:{server.port}/0/s1")
        right = run_main(capfd, "replay", f"redis://:s3cret-pw@127.0.0.1:{server.port}/0/s1")
    finally:
        server.kill()
    assert_one_line_error(wrong, "refused the password", "redis://:***@127.0.0.1")
    assert_one_line_error(missing, "wants a password")
    assert_one_line_error(right, "no session 's1'")  # in: the session is what is missing
    for result in (wrong, missing, right):
        assert "hunter2" not in result.stderr and "s3cret-pw" not in result.stderr


@pytest.mark.model
async def test_serve_replay_shows_the_recording_to_viewers_as_a_live_session(
    recording: tuple[Path, str], make_server: ServerFactory
) -> None:
    record, _ = recording
    recorded = [json.loads(line) for line in record.read_text(encoding="utf-8").splitlines()]
    server = await make_server(replay=str(record), replay_speed=4.0)
    replaying = start_replay(server.config, server)
    assert replaying is not None
    task, link = replaying
    query = parse_qs(urlsplit(link).query)
    session, token = query["session"][0], query["token"][0]
    assert query["role"] == ["viewer"] and token not in session

    ws = await open_ws(server)
    welcome = await hello(ws, "viewer", session=session, token=token, resume_from=0)
    assert welcome["type"] == "welcome", welcome
    _, shown = await recv_until(ws, "session.ended")
    await ws.close()
    assert await asyncio.wait_for(task, 60) == len(recorded)
    # The recorded events, in order, as a session of this server: its own id, seqs and times.
    assert [(e["type"], e.get("text")) for e in shown] == [(e["type"], e.get("text")) for e in recorded[:-1]]
    assert {e["session"] for e in shown} == {session}
    assert [e["seq"] for e in shown] == list(range(1, len(recorded)))

    late = await open_ws(server)  # after the end: the log keeps it; a resume gets exactly the rest
    await hello(late, "viewer", session=session, token=token, resume_from=3)
    ended, rest = await recv_until(late, "session.ended")
    assert [e["seq"] for e in rest] == list(range(4, len(recorded))) and ended["seq"] == len(recorded)
    other = await open_ws(server)
    refused = await hello(other, "viewer", session=session, token="not-the-token", resume_from=0)
    assert refused["type"] == "error" and refused["code"] == "unauthorized"


def test_serve_refuses_a_recording_it_cannot_replay_before_loading_models(capfd, tmp_path: Path) -> None:
    assert_one_line_error(run_main(capfd, "serve", "--replay", str(tmp_path / "missing.jsonl")), "cannot read")
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n")
    assert_one_line_error(run_main(capfd, "serve", "--replay", str(empty)), "no events")
    result = run_main(capfd, "serve", "--replay", "redis://:hunter2@127.0.0.1:6379/zero/s1")
    assert_one_line_error(result, "bad database")
    assert "hunter2" not in result.stderr
