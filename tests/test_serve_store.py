"""``streamtwin serve --redis``: the event store is checked at start (one clear line, exit 1, no password
shown) and ``/healthz`` says whether it is reachable."""

from __future__ import annotations

import pytest

from tests.cli import run_main
from tests.redis_server import free_port


@pytest.mark.parametrize(
    "url, needle",
    [
        ("http://127.0.0.1:6379", "not a Redis URL"),
        (f"redis://:hunter2@127.0.0.1:{free_port()}/0", "unreachable"),
    ],
    ids=["not-redis", "unreachable"],  # the free port differs between xdist's workers: not in the test's id
)
def test_a_bad_or_unreachable_redis_stops_serve_with_one_line(capfd, url: str, needle: str) -> None:
    result = run_main(capfd, "serve", "--llm", "none", "--port", "0", "--redis", url)
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("streamtwin: error: ") and needle in lines[0]
    assert "hunter2" not in result.stderr
