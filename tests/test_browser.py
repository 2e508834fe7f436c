"""Headless Chromium publishes its fake camera and the sample as its microphone; two pages watch.

Chromium gathers ICE candidates on every interface and the page cannot limit
them, so the test runs in a network namespace of its own with only loopback
(``unshare -n``; CI runs as root): the outer run re-executes this test inside
one, where the server (aioice limited to 127.0.0.1) and the browser meet.
The LLM is the scripted fake, so the real Assistant fills the twin panel.
"""

from __future__ import annotations

import asyncio
import copy
import json
import os
import subprocess
import sys
from pathlib import Path

import jsonpatch
import pytest

from streamtwin.config import Config
from streamtwin.service.server import Server, make_session_factory
from streamtwin.service.webrtc import use_loopback_candidates
from tests.fakes.scripted_backend import Reply, ScriptedBackend, is_twin_request
from tests.page_wait import wait_for_function

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parent.parent
SAMPLE_WAV = ROOT / "samples" / "meeting.wav"
# Words of its opening minute, for checking that speech came back as text.
SAMPLE_WORDS = ("morning", "weekly", "planning", "website", "costs", "search", "server", "wednesday", "report")
ARTIFACTS = ROOT / "test-artifacts"
NETNS_FLAG = "STREAMTWIN_TEST_IN_NETNS"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_BASE_FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
CHROMIUM_FLAGS = CHROMIUM_BASE_FLAGS + [
    "--use-fake-ui-for-media-stream",
    "--use-fake-device-for-media-stream",
    f"--use-file-for-fake-audio-capture={SAMPLE_WAV}",
    "--autoplay-policy=no-user-gesture-required",
    "--allow-loopback-in-peer-connection",
    "--disable-features=WebRtcHideLocalIpsWithMdns",
]
TIMEOUT_MS = 60_000

# Grounded in the first turns of the sample, so the twin verifier keeps it.
TWIN = {
    "people": [{"name": "Alice", "role": ""}],
    "action_items": [{"text": "discuss the new website", "owner": "", "due": "today"}],
    "decisions": [],
    "open_questions": [],
    "topics": ["new website", "project costs"],
    "scene": {"description": "", "updated_at": None},
    "summary": "The weekly planning meeting covers the new website and the project costs.",
}


def scripted_llm(request, index):
    if is_twin_request(request):
        return Reply([json.dumps(TWIN)])
    return Reply("The team is planning the new website.", delta_delay_s=0.01)


@pytest.mark.model
@pytest.mark.network
@pytest.mark.slow
def test_browser_publishes_and_two_viewers_watch():
    if os.environ.get(NETNS_FLAG) == "1":
        asyncio.run(browser_scenario())
        return
    unshare = ["unshare", "-n"] if os.geteuid() == 0 else ["unshare", "-r", "-n"]
    command = unshare + [
        "sh", "-c", 'ip link set lo up && exec "$0" "$@"',
        sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-o", "addopts=",
        f"{__file__}::test_browser_publishes_and_two_viewers_watch",
    ]
    result = subprocess.run(
        command, check=False, cwd=ROOT, env={**os.environ, NETNS_FLAG: "1"}, capture_output=True, text=True, timeout=600
    )
    assert result.returncode == 0, f"in the loopback-only namespace:\n{result.stdout[-6000:]}\n{result.stderr[-3000:]}"


async def browser_scenario() -> None:
    from playwright.async_api import TimeoutError as PlaywrightTimeout, async_playwright

    use_loopback_candidates()
    backend = ScriptedBackend(script=scripted_llm)
    server = Server(Config(llm="none", host="127.0.0.1", port=0), session_factory=make_session_factory(backend))
    await server.start()
    page_errors: list[str] = []
    refused: list[str] = []
    try:
        async with async_playwright() as playwright:
            browser = await playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
            context = await browser.new_context(viewport={"width": 1400, "height": 1000})
            pages = []

            async def open_page(url: str):
                page = await context.new_page()
                page.on("pageerror", lambda error: page_errors.append(str(error)))
                page.on("console", lambda message: refused.append(message.text) if "Content Security" in message.text
                        else None)  # the page works under its own policy: nothing refused
                await page.goto(url)
                pages.append(page)
                return page

            publisher = await open_page(f"http://127.0.0.1:{server.port}/")
            await publisher.click("#start")
            await publisher.wait_for_selector('#status[data-state="live"]', timeout=TIMEOUT_MS)
            viewer_url = await publisher.input_value("#viewer-url")
            assert "role=viewer" in viewer_url and "session=" in viewer_url
            await open_page(viewer_url)  # an early viewer, watching from the start

            # Speech from the fake microphone comes back as transcript lines, keyframes fill the timeline.
            # Chromium plays the file from the moment the camera opens, before the call connects: on a busy
            # machine the first sentence is gone before the server hears anything, so any part of it counts;
            # finals are short commits, so wait for the words rather than for a count of lines.
            await wait_for_function(
                publisher, "document.querySelectorAll('#transcript .final').length >= 3", timeout=TIMEOUT_MS
            )
            try:
                await wait_for_function(
                    publisher, """(words) => {
                        const text = document.querySelector('#transcript').textContent.toLowerCase();
                        return words.filter((word) => text.includes(word)).length >= 4;
                    }""",
                    arg=list(SAMPLE_WORDS),
                    timeout=TIMEOUT_MS,
                )
            except PlaywrightTimeout:
                text = await publisher.text_content("#transcript")
                raise AssertionError(f"the transcript never held 4 of {SAMPLE_WORDS}: {text}") from None
            await publisher.wait_for_selector("#timeline img", timeout=TIMEOUT_MS)

            # A late viewer gets the snapshot (transcript so far, last keyframe, twin) before live events.
            late = await open_page(viewer_url)
            await wait_for_function(
                late, "document.querySelectorAll('#transcript .final').length >= 3", timeout=TIMEOUT_MS
            )
            await late.wait_for_selector("#timeline img", timeout=TIMEOUT_MS)
            assert await late.is_visible("#latest-frame")  # viewers get no video: the keyframe stands in
            assert not await late.is_visible("#start")

            # The assistant streams and the twin panel fills, on every page.
            for page in pages:
                await page.wait_for_selector("#assistant .answer .text:not(:empty)", timeout=TIMEOUT_MS)
                await wait_for_function(
                    page, "document.querySelector('#twin-topics').children.length >= 2", timeout=TIMEOUT_MS
                )
                await wait_for_function(
                    page, "document.querySelector('#twin-actions').textContent.includes('discuss the new website')",
                    timeout=TIMEOUT_MS,
                )
                assert "planning meeting" in await page.text_content("#twin-summary")
            gauge = await publisher.text_content("#gauge-asr")
            assert gauge.endswith(")") and "ms" in gauge, gauge

            # The publisher's websocket dies without a close frame: the page resumes the same session by itself.
            [live] = server.sessions.values()
            dropped = live.publisher
            dropped.ws.transport.abort()
            async with asyncio.timeout(TIMEOUT_MS / 1000):
                while live.publisher is None or live.publisher is dropped:
                    await asyncio.sleep(0.05)
            assert list(server.sessions) == [live.id]
            await publisher.wait_for_selector('#status[data-state="live"]', timeout=TIMEOUT_MS)
            heard = await publisher.evaluate("document.querySelectorAll('#transcript .final').length")
            await wait_for_function(
                publisher, f"document.querySelectorAll('#transcript .final').length > {heard}", timeout=TIMEOUT_MS
            )

            ARTIFACTS.mkdir(exist_ok=True)
            await publisher.screenshot(path=str(ARTIFACTS / "browser-publisher.png"), full_page=True)
            await late.screenshot(path=str(ARTIFACTS / "browser-viewer.png"), full_page=True)

            # Stop: the server flushes speech and ends the session for everyone.
            await publisher.click("#stop")
            for page in pages:
                await page.wait_for_selector('#status[data-state="ended"]', timeout=TIMEOUT_MS)
            assert server.sessions == {}
            await browser.close()
    finally:
        await server.close()
    assert page_errors == [] and refused == []


# RFC 6902 appendix A, and patches that must fail (the document is then left as it was).
PATCH_CASES = [
    ({"foo": "bar"}, [{"op": "add", "path": "/baz", "value": "qux"}]),
    ({"foo": ["bar", "baz"]}, [{"op": "add", "path": "/foo/1", "value": "qux"}]),
    ({"baz": "qux", "foo": "bar"}, [{"op": "remove", "path": "/baz"}]),
    ({"foo": ["bar", "qux", "baz"]}, [{"op": "remove", "path": "/foo/1"}]),
    ({"baz": "qux", "foo": "bar"}, [{"op": "replace", "path": "/baz", "value": "boo"}]),
    ({"foo": {"bar": "baz", "waldo": "fred"}, "qux": {"corge": "grault"}},
     [{"op": "move", "from": "/foo/waldo", "path": "/qux/thud"}]),
    ({"foo": ["all", "grass", "cows", "eat"]}, [{"op": "move", "from": "/foo/1", "path": "/foo/3"}]),
    ({"baz": "qux", "foo": ["a", 2, "c"]},
     [{"op": "test", "path": "/baz", "value": "qux"}, {"op": "test", "path": "/foo/1", "value": 2}]),
    ({"baz": "qux"}, [{"op": "test", "path": "/baz", "value": "bar"}]),
    ({"foo": "bar"}, [{"op": "add", "path": "/child", "value": {"grandchild": {}}}]),
    ({"foo": "bar"}, [{"op": "add", "path": "/baz/bat", "value": "qux"}]),
    ({"/": 9, "~1": 10}, [{"op": "test", "path": "/~01", "value": 10}, {"op": "copy", "from": "/~1", "path": "/a~1b"}]),
    ({"/": 9, "~1": 10}, [{"op": "test", "path": "/~01", "value": "10"}]),
    ({"foo": ["bar"]}, [{"op": "add", "path": "/foo/-", "value": ["abc", "def"]}]),
    ({"a": {"b": [1, {"c": 2}]}}, [{"op": "copy", "from": "/a/b/1", "path": "/a/d"},
                                   {"op": "replace", "path": "/a/b/1/c", "value": 3}]),
    ({"a": [1, 2]}, [{"op": "remove", "path": "/a/2"}]),
    ({"a": [1, 2]}, [{"op": "add", "path": "/a/01", "value": 0}]),
    ({"a": {"b": 1}}, [{"op": "move", "from": "/a", "path": "/a/b/c"}]),
    ({"a": 1}, [{"op": "replace", "path": "/missing", "value": 2}]),
    ({"a": 1}, [{"op": "add", "path": "", "value": [1]}]),
    ({"a": 1}, [{"op": "jump", "path": "/a"}]),
]


def python_result(document, patch):
    try:
        return {"ok": True, "doc": jsonpatch.apply_patch(copy.deepcopy(document), patch)}
    except (jsonpatch.JsonPatchException, jsonpatch.JsonPointerException):
        return {"ok": False}


async def test_the_pages_json_patch_applier_agrees_with_rfc6902(make_server):
    from playwright.async_api import async_playwright

    server = await make_server()
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_BASE_FLAGS)
        page = await browser.new_page()
        await page.goto(f"http://127.0.0.1:{server.port}/jsonpatch.js")
        results = await page.evaluate(
            """async (cases) => {
                const { applyPatch } = await import('/jsonpatch.js');
                return cases.map(([doc, patch]) => {
                    const before = JSON.stringify(doc);
                    try {
                        const out = applyPatch(doc, patch);
                        return { ok: JSON.stringify(doc) === before, doc: out };
                    } catch (error) {
                        return { ok: false, error: error.constructor.name, untouched: JSON.stringify(doc) === before };
                    }
                });
            }""",
            PATCH_CASES,
        )
        await browser.close()
    for (document, patch), got in zip(PATCH_CASES, results):
        expected = python_result(document, patch)
        if expected["ok"]:
            assert got == expected, patch
        else:
            assert (got["ok"], got.get("error"), got.get("untouched")) == (False, "PatchError", True), patch
