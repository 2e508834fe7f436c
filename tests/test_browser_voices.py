"""Naming a voice on the page, in real headless Chromium: every viewer sees it, a late viewer too, and a bad name is
an error to its sender with nothing changed.

The test pushes the first 16 s of samples/meeting.wav (Alice, then Bob) into a session of the real server through
the small speech model with voice labels on; two viewer pages watch it.
"""

from __future__ import annotations

import pytest
from playwright.async_api import async_playwright

from streamtwin.events import SpeakerNamed, TranscriptFinal
from tests.page_wait import wait_for_function
from tests.test_browser import CHROMIUM, CHROMIUM_BASE_FLAGS
from tests.test_browser_transcript import watched_meeting

pytestmark = [pytest.mark.browser, pytest.mark.model]

TIMEOUT_MS = 120_000
CHUNK = 1600


TAGS = "() => [...document.querySelectorAll('#transcript .speaker')].map((t) => t.textContent)"


async def test_a_viewer_names_a_voice_and_every_viewer_sees_it(make_server):
    server, live, events, audio = await watched_meeting(make_server, seconds=16, speakers="voice")
    url = f"http://127.0.0.1:{server.port}/?session={live.id}&role=viewer&token={live.viewer_token}"
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_BASE_FLAGS)
        first, second = [await (await browser.new_context()).new_page() for _ in range(2)]
        for page in (first, second):
            await page.goto(url)
            await page.wait_for_selector('#status[data-state="live"]', timeout=TIMEOUT_MS)
        for k in range(0, len(audio), CHUNK):
            await live.session.push_audio(audio[k : k + CHUNK])
        labelled = lambda: [e for e in events if isinstance(e, TranscriptFinal) and e.utterance_end and e.speaker]
        await wait_for_function(first, "() => document.querySelectorAll('#transcript .speaker').length > 0",
                                timeout=TIMEOUT_MS)
        assert labelled()
        label = await first.evaluate("() => document.querySelector('#transcript .speaker').dataset.label")

        # The reader clicks the voice's tag and types a name: every viewer shows it, and it is an event.
        first.once("dialog", lambda dialog: dialog.accept("Alice Smith"))
        await first.click("#transcript .speaker")
        for page in (first, second):
            await wait_for_function(page, "(name) => [...document.querySelectorAll('#transcript .speaker')]"
                                          ".some((t) => t.textContent === name)", arg="Alice Smith",
                                    timeout=TIMEOUT_MS)
        named = [e for e in events if isinstance(e, SpeakerNamed)]
        assert [(e.speaker, e.name, e.how) for e in named][-1] == (label, "Alice Smith", "viewer")
        assert any(isinstance(e, SpeakerNamed) and e.name == "Alice Smith" for e in live.session.snapshot())

        # Names that cannot be: an error to the one who sent it, nothing changed.
        before = len(events)
        for bad in ("   ", "x" * 200):
            first.once("dialog", lambda dialog, bad=bad: dialog.accept(bad))
            await first.click("#transcript .speaker")
        await wait_for_function(first, "() => [...document.querySelectorAll('#messages li')]"
                                        ".filter((m) => m.textContent.includes('bad_rename')).length >= 2",
                                timeout=TIMEOUT_MS)
        assert not any(isinstance(e, SpeakerNamed) for e in events[before:])
        assert "Alice Smith" in await second.evaluate(TAGS)
        assert not await second.evaluate("() => document.querySelectorAll('#messages li').length")

        # A viewer who comes later gets the name with the snapshot.
        late = await (await browser.new_context()).new_page()
        await late.goto(url)
        await wait_for_function(late, "(name) => [...document.querySelectorAll('#transcript .speaker')]"
                                      ".some((t) => t.textContent === name)", arg="Alice Smith", timeout=TIMEOUT_MS)
        await browser.close()
    await live.finish()
