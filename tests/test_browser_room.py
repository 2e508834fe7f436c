"""A room in real headless Chromium at 360 px: names and a colour per participant on the paragraphs,
the participant list (snapshot, joins, leaves), and the join link's page asking for a name.

The test pushes each participant's audio into their own stream of a real room session (no WebRTC,
so no network namespace): two turns of samples/shared_mic.wav through the small speech model.
"""

from __future__ import annotations

import asyncio

import numpy as np
import pytest
from playwright.async_api import async_playwright

from streamtwin.config import Config
from streamtwin.session import Session
from tests.test_browser import CHROMIUM, CHROMIUM_BASE_FLAGS
from tests.test_rooms import RATE, shared_mic
from tests.page_wait import wait_for_function

pytestmark = [pytest.mark.browser, pytest.mark.model]

TIMEOUT_MS = 120_000
WIDTH = 360


def offline_session(config: Config, session_id: str | None, source: str) -> Session:
    return Session(config, source=source, realtime=False, session_id=session_id)


async def push(stream, audio: np.ndarray) -> None:
    for at in range(0, len(audio), RATE // 10):
        await stream.push_audio(audio[at : at + RATE // 10])


async def test_a_room_on_the_page_at_360_px(make_server):
    server = await make_server(
        session_factory=offline_session, asr_model="tiny.en", asr_language="en", vision=False,
        offer_timeout_s=3600, resume_grace_s=3600, max_sessions=3,
    )
    live = server.open_session("test")
    live.open_room("Ann")
    await live.session.start()
    sample = shared_mic().astype(np.float32) / 32768
    page_errors: list[str] = []
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_BASE_FLAGS)
        context = await browser.new_context(viewport={"width": WIDTH, "height": 740})
        page = await context.new_page()
        page.on("pageerror", lambda error: page_errors.append(str(error)))
        await page.goto(f"http://127.0.0.1:{server.port}/?session={live.id}&role=viewer&token={live.viewer_token}")
        await page.wait_for_selector('#participants li[data-name="Ann"]', timeout=TIMEOUT_MS)  # from the snapshot

        bob = live.join("Bob", "127.0.0.1")
        await page.wait_for_selector('#participants li[data-name="Bob"]', timeout=TIMEOUT_MS)
        silence = np.zeros(2 * RATE, np.float32)  # ends the utterance
        await push(live.participants[0].sink, np.concatenate([sample[int(0.3 * RATE) : int(6.3 * RATE)], silence]))  # David's turn, as Ann
        await push(bob.sink, sample[int(12.1 * RATE) : int(16.9 * RATE)])  # Tom's, as Bob
        live.leave(bob)
        await wait_for_function(
            page, "() => !document.querySelector('#participants li[data-name=\"Bob\"]')", timeout=TIMEOUT_MS
        )
        await wait_for_function(
            page,
            "() => [...document.querySelectorAll('#transcript .speaker')].map((s) => s.textContent).includes('Bob')",
            timeout=TIMEOUT_MS,
        )
        shown = await page.evaluate(
            """() => ({
                paragraphs: [...document.querySelectorAll('#transcript .utterance')].map((p) => ({
                    name: p.querySelector('.speaker')?.textContent,
                    color: getComputedStyle(p.querySelector('.speaker')).color,
                    text: [...p.querySelectorAll('.final')].map((s) => s.textContent).join(' '),
                })),
                annChip: getComputedStyle(document.querySelector('#participants li[data-name="Ann"]')).borderLeftColor,
                overflow: document.documentElement.scrollWidth - document.documentElement.clientWidth,
            })"""
        )
        names = [p["name"] for p in shown["paragraphs"]]
        assert names[0] == "Ann" and names[-1] == "Bob" and set(names) == {"Ann", "Bob"}, shown
        colours = {p["name"]: p["color"] for p in shown["paragraphs"]}
        assert colours["Ann"] != colours["Bob"] and colours["Ann"] == shown["annChip"], shown
        assert "morning" in " ".join(p["text"] for p in shown["paragraphs"] if p["name"] == "Ann").lower()
        assert shown["overflow"] <= 0, shown

        # The join link opens the page asking for a name, and the keyboard gets there first.
        joiner = await context.new_page()
        joiner.on("pageerror", lambda error: page_errors.append(str(error)))
        await joiner.goto(f"http://127.0.0.1:{server.port}{live.join_url}")
        await joiner.wait_for_selector("#start")
        assert await joiner.evaluate("document.activeElement.id") == "name"
        assert (await joiner.text_content("#start")).strip() == "Join the room"
        await joiner.keyboard.press("Enter")  # no name yet: asked for one, nothing sent
        await joiner.wait_for_selector("#messages li")
        assert "name" in (await joiner.text_content("#messages li")).lower()
        assert await joiner.evaluate("document.documentElement.scrollWidth <= document.documentElement.clientWidth")
        await browser.close()
    assert not page_errors, page_errors
    await asyncio.wait_for(live.finish(), 60)
