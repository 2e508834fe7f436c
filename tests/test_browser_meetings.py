"""serve's "Ask all meetings" box in real headless Chromium at 360 px (issue 36): the operator's page, with the
event log in a real redis-server, asks from the keyboard; the answer (the real Groq SDK against a loopback server
speaking its wire format) shows with its quotes checked and their sources (meeting, time, speaker).  A wrong token
is a clear message in the box, which stays usable; without an event store the box is not there."""

from __future__ import annotations

from pathlib import Path

import pytest

from streamtwin.llm.groq_backend import GroqBackend
from tests.fakes.openai_server import FakeLLMServer, Reply
from tests.narrow_page import ask_from_the_keyboard, narrow_page
from tests.page_wait import wait_for_function
from tests.recorded_meetings import LAUNCH, record_sessions, recordings  # noqa: F401  (the fixture)
from tests.redis_server import RedisServer, redis_server  # noqa: F401  (the fixture)

pytestmark = [pytest.mark.browser]

TOKEN = "s3cret"
ANSWERED = "() => document.querySelector('#meetings button').disabled === false"


async def test_the_operator_asks_every_meeting_from_the_keyboard_at_360_px(
    make_server, redis_server: RedisServer, recordings: Path,
) -> None:
    sessions = await record_sessions(redis_server.url, sorted(recordings.glob("*.jsonl"))[0:5:2])
    reply = f'It was set in week three [M3 00:09 Sam] "{LAUNCH}" and never "moved to the year after next" [M2].'
    async with FakeLLMServer(Reply(reply, delay_s=0.5)) as llm:
        server = await make_server(redis=redis_server.url, token=TOKEN,
                                   backend=GroqBackend("gsk-test", base_url=llm.url))
        plain = await make_server(token=TOKEN, backend=GroqBackend("gsk-test", base_url=llm.url))
        async with narrow_page() as (page, page_errors):
            await page.goto(f"http://127.0.0.1:{server.port}/?token={TOKEN}")
            await page.wait_for_selector("#meetings-text", state="visible")
            await ask_from_the_keyboard(page, "#meetings-ask", "When is the Falcon launch?")
            await wait_for_function(page, ANSWERED)
            answer = await page.locator("#meetings-answer .text").text_content()
            sources = await page.locator("#meetings-answer .sources li").all_text_contents()
            notes = await page.locator("#meetings-answer .meta").all_text_contents()
            assert answer == f'It was set in week three "{LAUNCH.rstrip(".")}" [1] and never.'
            assert sources == [f"{sessions[2]} · 00:09 · Sam{LAUNCH.rstrip('.')}"]
            assert notes[0] == "When is the Falcon launch? · 3 meetings, whole" and "1 quote(s)" in notes[1]
            assert await page.input_value("#meetings-text") == ""
            assert await page.evaluate("document.activeElement.id") == "meetings-text"  # ready for the next one

            # Whitespace only is not sent: nothing happens, the box stays usable.
            await page.keyboard.type("   ")
            await page.keyboard.press("Enter")
            assert not await page.locator("#meetings button").is_disabled()

            # A wrong token: the box says so, and is usable again.
            await page.goto(f"http://127.0.0.1:{server.port}/?token=wrong")
            await page.fill("#meetings-text", "Who owns Acme?")
            await page.press("#meetings-text", "Enter")
            await wait_for_function(page, ANSWERED)
            error = await page.locator("#meetings-answer .error").text_content()
            assert "wrong access token" in error and "(unauthorized)" in error

            # No event store (an in-memory log): no box.
            await page.goto(f"http://127.0.0.1:{plain.port}/?token={TOKEN}")
            await page.wait_for_selector("#meetings[data-offered]", state="attached")
            assert await page.get_attribute("#meetings", "data-offered") == "false"
            assert await page.locator("#meetings").is_hidden()
        assert page_errors == []
        assert len(llm.requests) == 1 and "Question: When is the Falcon launch?" in str(llm.requests[0].body)
