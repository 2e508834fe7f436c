"""The Assistant panel's ask box in real headless Chromium at 360 px (issue 36): a viewer types a question,
presses Enter, and the answer (the real Groq SDK against a loopback server speaking its wire format) appears
under the question it answers; the box waits for that answer, then is ready again."""

from __future__ import annotations

import pytest

from streamtwin.llm.groq_backend import GroqBackend
from streamtwin.service.server import make_session_factory
from tests.fakes.openai_server import FakeLLMServer, Reply
from tests.narrow_page import ask_from_the_keyboard, narrow_page
from tests.page_wait import wait_for_function

pytestmark = [pytest.mark.browser]


async def test_a_viewer_asks_from_the_keyboard_at_360_px(make_server):
    async with FakeLLMServer(reply=Reply("Ann and Bob have not spoken yet.", delay_s=0.5)) as llm:
        server = await make_server(
            session_factory=make_session_factory(GroqBackend("gsk-test", base_url=llm.url)), vision=False,
            offer_timeout_s=3600,
        )
        live = server.open_session("test")
        await live.session.start()
        async with narrow_page() as (page, page_errors):
            await page.goto(f"http://127.0.0.1:{server.port}/?session={live.id}&role=viewer&token={live.viewer_token}")
            await page.wait_for_selector('#status[data-state="live"]')
            await page.wait_for_selector("#ask-text", state="visible")
            await ask_from_the_keyboard(page, "#ask", "Who is in the meeting?")
            header = await wait_for_function(
                page, "() => [...document.querySelectorAll('#assistant .answer:not(.streaming) header')]"
                ".map(h => h.textContent).find(t => t.includes('viewer: Who is in the meeting?'))",
            )
            assert "question" in header
            answer = await page.locator("#assistant .answer .text").last.text_content()
            assert answer.strip()
            await wait_for_function(page, "() => !document.querySelector('#ask button').disabled")
            assert await page.input_value("#ask-text") == ""
            assert await page.evaluate("document.activeElement.id") == "ask-text"  # ready for the next one

            # Whitespace only is not sent; nothing happens, the box stays usable.
            await page.keyboard.type("   ")
            await page.keyboard.press("Enter")
            assert not await page.locator("#ask button").is_disabled()
        assert page_errors == []
        assert sum("Who is in the meeting?" in r.body["messages"][-1]["content"] for r in llm.requests) >= 1
