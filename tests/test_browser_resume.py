"""The viewer page in real headless Chromium resumes by itself: its connection is cut, it reconnects with
the last seq it applied and shows what it missed once, nothing twice (no WebRTC here: no namespace)."""

from __future__ import annotations

import asyncio

import pytest
from playwright.async_api import async_playwright

from streamtwin.events import TranscriptFinal
from tests.test_browser import CHROMIUM, CHROMIUM_BASE_FLAGS
from tests.page_wait import wait_for_function

pytestmark = pytest.mark.browser

TIMEOUT_MS = 60_000
FINALS_JS = "() => [...document.querySelectorAll('#transcript .final')].map((s) => s.textContent.trim())"


async def test_the_viewer_page_resumes_after_its_connection_is_cut(make_server):
    server = await make_server(vision=False, offer_timeout_s=3600)
    live = server.open_session("test")
    await live.session.start()
    bus = live.session.bus
    page_errors: list[str] = []
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_BASE_FLAGS)
        page = await browser.new_page()
        page.on("pageerror", lambda error: page_errors.append(str(error)))
        await page.goto(f"http://127.0.0.1:{server.port}/?session={live.id}&role=viewer&token={live.viewer_token}")
        await page.wait_for_selector('#status[data-state="live"]', timeout=TIMEOUT_MS)
        said = [f"before{i}" for i in range(3)]
        for i, text in enumerate(said):
            bus.emit(TranscriptFinal(text=text, start=i, end=i + 0.5, utterance=1))
        await wait_for_function(page, f"() => ({FINALS_JS})().includes('before2')", timeout=TIMEOUT_MS)
        live.session.error("test_warning", "a pipeline error event on the page", fatal=False)

        (viewer,) = live.viewers
        viewer.ws.transport.abort()  # the network drops: no close frame
        async with asyncio.timeout(30):
            while live.viewers:
                await asyncio.sleep(0.01)
        away = [f"away{i}" for i in range(3)]
        for i, text in enumerate(away):
            bus.emit(TranscriptFinal(text=text, start=10 + i, end=10.5 + i, utterance=2))
        await wait_for_function(page, f"() => ({FINALS_JS})().includes('away2')", timeout=TIMEOUT_MS)
        bus.emit(TranscriptFinal(text="after", start=20, end=20.5, utterance=3))
        await wait_for_function(page, f"() => ({FINALS_JS})().includes('after')", timeout=TIMEOUT_MS)
        shown = await page.evaluate(FINALS_JS)
        await browser.close()
    assert shown == [*said, *away, "after"]  # everything once, in order
    assert page_errors == []
    await live.finish()


async def test_a_viewer_page_cut_off_before_any_event_resumes_from_its_welcomes_seq(make_server):
    server = await make_server(vision=False, offer_timeout_s=3600)
    live = server.open_session("test")
    await live.session.start()  # session.started: an event, and none in the snapshot
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_BASE_FLAGS)
        page = await browser.new_page()
        await page.goto(f"http://127.0.0.1:{server.port}/?session={live.id}&role=viewer&token={live.viewer_token}")
        await page.wait_for_selector('#status[data-state="live"]', timeout=TIMEOUT_MS)
        (viewer,) = live.viewers  # welcomed (at seq 1) and nothing since: only the welcome says where it is
        viewer.ws.transport.abort()
        async with asyncio.timeout(30):
            while live.viewers or not server.log_viewers.count(live.id):
                await asyncio.sleep(0.01)  # back, resuming from the welcome's seq (a resume is fed from the log)
        live.session.bus.emit(TranscriptFinal(text="after", start=10, end=10.5, utterance=2))
        await wait_for_function(page, f"() => ({FINALS_JS})().includes('after')", timeout=TIMEOUT_MS)
        shown = await page.evaluate(FINALS_JS)
        await browser.close()
    assert shown == ["after"]
    await live.finish()
