"""``streamtwin serve --redis``: the event store is checked at start (one clear line, exit 1, no password
shown) and ``/healthz`` says whether it is reachable."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.redis_server import free_port


def serve(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "streamtwin", "serve", "--llm", "none", "--port", "0", *args],
        capture_output=True, text=True, timeout=120,
    )


@pytest.mark.parametrize(
    "url, needle",
    [
        ("http://127.0.0.1:6379", "not a Redis URL"),
        (f"redis://:hunter2@127.0.0.1:{free_port()}/0", "unreachable"),
    ],
)
def test_a_bad_or_unreachable_redis_stops_serve_with_one_line(url: str, needle: str) -> None:
    result = serve("--redis", url)
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("streamtwin: error: ") and needle in lines[0]
    assert "hunter2" not in result.stderr
