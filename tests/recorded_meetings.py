"""The 50 recorded meetings of samples/make_meetings.py, for the tests that ask them (``ask``, ``mcp``, serve's
"Ask all meetings"): the ``recordings`` fixture (import it into the test module), the lines they quote, and
:func:`record_sessions`, which puts some of them into an event log as sessions."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "samples"))
import make_meetings

LAUNCH = "We agreed to launch Falcon on the fourteenth of October."
MOVED = "The Falcon launch moves to the fourth of November, because the payment provider is late."


@pytest.fixture(scope="module")
def recordings(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The 50 recordings of samples/make_meetings.py (and its questions.json)."""
    out = tmp_path_factory.mktemp("meetings")
    make_meetings.write(out)
    return out


async def record_sessions(redis_url: str, paths: list[Path]) -> list[str]:
    """``paths`` (recordings) as sessions of the event log in ``redis_url``, started in that order; all ended
    but the last, which is still live.  Returns their session ids."""
    from streamtwin.eventlog.redis_store import RedisStore

    store = RedisStore(redis_url)
    sessions = []
    for number, path in enumerate(paths):
        lines = path.read_bytes().splitlines()
        session = json.loads(lines[0])["session"]
        await store.register(session, "node-a", 1000.0 + number)
        for line in lines:
            await store.append(session, json.loads(line)["seq"], line)
        if number < len(paths) - 1:
            await store.end(session)
        sessions.append(session)
    await store.close()
    return sessions
