"""Bad sources end with one clear line and a non-zero exit; what was heard is kept."""

from __future__ import annotations

import http.server
import json
import os
import socket
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from tests.cli import Ran, assert_one_line_error, run_main

SAMPLES = Path(__file__).resolve().parent.parent / "samples"


def run_cli(capfd: pytest.CaptureFixture[str], *args: str) -> Ran:
    return run_main(capfd, "run", *args, "--format", "jsonl", "--llm", "none")


def events_of(result: Ran) -> list[dict]:
    return [json.loads(line) for line in result.stdout.splitlines()]  # every line must be valid JSON


def ffmpeg(*args: str) -> None:
    subprocess.run(["ffmpeg", "-loglevel", "error", "-y", *args], check=True)


def test_missing_file(capfd):
    result = run_cli(capfd, "/nonexistent/talk.wav")
    assert_one_line_error(result, "no such file", "/nonexistent/talk.wav")
    assert result.stdout == ""


def test_file_that_is_not_media(capfd, tmp_path):
    path = tmp_path / "notes.mp4"
    path.write_text("these are meeting notes, not a video\n" * 50)
    assert_one_line_error(run_cli(capfd, str(path)), "not a media file")


def test_stream_with_no_audio_track(capfd, tmp_path):
    path = tmp_path / "silent_film.mp4"
    ffmpeg("-f", "lavfi", "-i", "testsrc=size=160x120:rate=10", "-t", "2", "-pix_fmt", "yuv420p", str(path))
    assert_one_line_error(run_cli(capfd, str(path)), "no audio track")


def test_unreachable_url(capfd):
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    assert_one_line_error(run_cli(capfd, f"http://127.0.0.1:{port}/talk.wav"), "cannot reach")


@pytest.mark.model
def test_truncated_container_keeps_what_was_transcribed(capfd, tmp_path):
    data = (SAMPLES / "meeting.mp4").read_bytes()
    path = tmp_path / "cut.mp4"
    path.write_bytes(data[: len(data) * 6 // 10])
    result = run_cli(capfd, str(path))
    assert_one_line_error(result, "cut.mp4")
    events = events_of(result)
    assert any(e["type"] == "transcript.final" for e in events)
    errors = [e for e in events if e["type"] == "error"]
    assert errors and errors[0]["fatal"] and errors[0]["code"] in ("corrupt", "truncated")
    assert events[-1]["type"] == "session.ended"


class _DroppingHandler(http.server.BaseHTTPRequestHandler):
    """Serves half of a stream, then cuts the connection, like a camera losing its network."""

    protocol_version = "HTTP/1.1"
    payload = b""

    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "video/webm")
        self.send_header("Content-Length", str(len(self.payload)))
        self.end_headers()
        self.wfile.write(self.payload[: len(self.payload) // 2])
        self.wfile.flush()
        self.connection.shutdown(socket.SHUT_RDWR)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def dropping_stream(tmp_path):
    path = tmp_path / "live.webm"
    ffmpeg("-i", str(SAMPLES / "meeting.mp4"), "-t", "12", "-vn", "-c:a", "libopus", str(path))
    handler = type("Handler", (_DroppingHandler,), {"payload": path.read_bytes()})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/live.webm"
    server.shutdown()


@pytest.mark.model
def test_live_source_that_drops_ends_cleanly_with_transcript_kept(capfd, dropping_stream):
    result = run_cli(capfd, dropping_stream, "--fast")
    assert_one_line_error(result, "dropped")
    events = events_of(result)
    types = [e["type"] for e in events]
    assert "transcript.final" in types
    error = next(e for e in events if e["type"] == "error")
    assert error["code"] == "dropped" and error["fatal"]
    assert types[-1] == "session.ended"
    assert types.index("error") < types.index("session.ended")


# --- speech model and language ------------------------------------------------------


def test_unknown_speech_model(capfd):
    result = run_cli(capfd, str(SAMPLES / "meeting.mp4"), "--asr-model", "huge-v9")
    assert_one_line_error(result, "unknown speech model 'huge-v9'", "base", "tiny.en")


@pytest.mark.model
def test_unknown_language_code(capfd):
    result = run_cli(capfd, str(SAMPLES / "meeting.mp4"), "--language", "xx")
    assert_one_line_error(result, "unknown language code 'xx'")


@pytest.mark.model
def test_a_language_an_english_only_model_cannot_transcribe(capfd):
    result = run_cli(capfd, str(SAMPLES / "meeting.mp4"), "--asr-model", "tiny.en", "--language", "de")
    assert_one_line_error(result, "English only")


def test_a_corrupt_model_join_is_refused_and_never_cached(tmp_path):
    """Part packages whose bytes do not hash to the pinned model (a bad or tampered upload)."""
    from streamtwin.speech.asr_models import WHISPER_BASE
    from streamtwin.packaged import package_dir

    fakes = tmp_path / "site"
    for number, package in enumerate(WHISPER_BASE.packages, 1):
        data = fakes / package / "data"
        data.mkdir(parents=True)
        (fakes / package / "__init__.py").write_text("")
        (data / f"model.bin.part{number}").write_bytes(b"\0" * 1000)
        if number == 1:
            real = package_dir(package)
            assert real is not None
            for name in WHISPER_BASE.side_files:
                (data / name).write_bytes((real / "data" / name).read_bytes())
    cache = tmp_path / "cache"
    # A process of its own: the fake part packages come first on its import path.
    result = subprocess.run(
        [sys.executable, "-m", "streamtwin", "run", str(SAMPLES / "meeting.mp4"), "--format", "jsonl", "--llm", "none"],
        capture_output=True, text=True, timeout=120,
        env={**os.environ, "PYTHONPATH": f"{fakes}{os.pathsep}{Path.cwd()}", "STREAMTWIN_CACHE": str(cache)},
    )
    assert_one_line_error(result, "do not match the pinned model", "pip install --force-reinstall")
    assert not (cache / WHISPER_BASE.directory / "model.bin").exists()
