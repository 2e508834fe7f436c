"""The transcript page in real headless Chromium at 360 px: paragraphs per utterance, the partial in grey,
auto-scroll that waits while the reader scrolls back, a polite live region, keyboard-usable downloads.

A viewer page watches a session of the real server; the test pushes samples/meeting.wav into that
session itself (no WebRTC, so no network namespace is needed) through the small speech model, with
the twin kept by the rules alone.  The page's downloads must be the very documents
`streamtwin run --format srt|md` writes from the same events (the page builds them in streamtwin/web/exports.js).
"""

from __future__ import annotations

import io
import wave
from pathlib import Path

import numpy as np
import pytest
import srt
from playwright.async_api import async_playwright

from streamtwin.config import Config
from streamtwin.events import (
    SessionEnded,
    SpeakerNamed,
    SpeakerTurns,
    TranscriptFinal,
    TranscriptPartial,
    TranscriptRevised,
    TwinPatch,
    TwinState,
    from_dict,
    from_json,
)
from streamtwin.outputs.notes import MarkdownOutput
from streamtwin.outputs.shown import ShownTranscript
from streamtwin.twin.mirror import TwinMirror
from streamtwin.outputs.text import clock
from streamtwin.session import Session
from streamtwin.outputs.subtitles import SubtitleOutput
from tests.test_browser import CHROMIUM, CHROMIUM_BASE_FLAGS
from tests.page_wait import wait_for_function
from tests.test_shown_transcript import VOICED

pytestmark = [pytest.mark.browser, pytest.mark.model]

ROOT = Path(__file__).resolve().parent.parent
ARTIFACTS = ROOT / "test-artifacts"
TIMEOUT_MS = 120_000
WIDTH = 360
CHUNK = 1600  # 0.1 s of 16 kHz audio


def render(output_class, events, *args) -> str:
    out = io.StringIO()
    output = output_class(out, *args)
    for event in events:
        output(event)
    return out.getvalue()


def words(text: str) -> str:
    return " ".join(text.split())


def utterances(events) -> list[tuple[float, str]]:
    """(start, text) per utterance as the page shows it: a revised one with its revision's words."""
    grouped: dict[int, list[TranscriptFinal]] = {}
    for final in (e for e in events if isinstance(e, TranscriptFinal) and e.text.strip()):
        grouped.setdefault(final.utterance, []).append(final)
    revised = {e.utterance: words(e.text) for e in events if isinstance(e, TranscriptRevised)}
    return [(parts[0].start, revised.get(number) or " ".join(words(p.text) for p in parts))
            for number, parts in grouped.items()]


def spans_shown(events) -> int:
    """A span per final with words; a revised utterance's finals are one span of its revision or more (one per
    voice): the page shows at least this many."""
    revised = {e.utterance for e in events if isinstance(e, TranscriptRevised)}
    said = [e.utterance for e in events if isinstance(e, TranscriptFinal) and e.text]
    return sum(1 for u in said if u not in revised) + len(revised & set(said))


def speakers_of(events) -> list[str]:
    """Per utterance with text, as the page's head tag shows it at the end: the notes' model
    (streamtwin/outputs/shown.py, its own cases in tests/test_shown_transcript.py), every speaker.turns and
    speaker.named applied."""
    shown = ShownTranscript()
    for event in events:
        shown.add(event)
    return [paragraph.speaker for paragraph in shown.paragraphs()]


def events_last_final(events, *, with_text: bool = False) -> TranscriptFinal:
    return next(e for e in reversed(events) if isinstance(e, TranscriptFinal) and (e.text or not with_text))


def offline_session(config: Config, session_id: str | None, source: str) -> Session:
    """Pushing waits for the speech model, so the test controls exactly how far speech has got."""
    return Session(config, source=source, realtime=False, session_id=session_id)


async def watched_meeting(make_server, seconds: float | None = None, **overrides):
    """A started session of the real server that the test feeds itself (tiny.en, no vision, the rules' twin), the
    list its events go to, and samples/meeting.wav (its first ``seconds``) as float samples."""
    server = await make_server(
        session_factory=offline_session, asr_model="tiny.en", asr_language="en", vision=False,
        twin_without_llm=True, offer_timeout_s=3600, resume_grace_s=3600, **overrides,
    )
    live = server.open_session("test")
    events: list = []
    live.session.bus.subscribe(events.append)
    await live.session.start()
    with wave.open(str(ROOT / "samples" / "meeting.wav")) as wav:
        frames = wav.getnframes() if seconds is None else int(seconds * wav.getframerate())
        audio = np.frombuffer(wav.readframes(frames), dtype=np.int16).astype(np.float32) / 32768
    return server, live, events, audio


async def download(page, selector: str) -> str:
    await page.focus(selector)
    async with page.expect_download() as info:
        await page.keyboard.press("Enter")
    return Path(await (await info.value).path()).read_text(encoding="utf-8")


@pytest.mark.slow
async def test_transcript_reads_like_one_at_360_px(make_server):
    server, live, events, audio = await watched_meeting(make_server)
    pushed = 0

    async def push_until(done) -> None:
        nonlocal pushed
        while pushed < len(audio) and not done():
            await live.session.push_audio(audio[pushed : pushed + CHUNK])
            pushed += CHUNK

    page_errors: list[str] = []
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_BASE_FLAGS)
        context = await browser.new_context(viewport={"width": WIDTH, "height": 740}, accept_downloads=True)
        page = await context.new_page()
        page.on("pageerror", lambda error: page_errors.append(str(error)))
        await page.goto(f"http://127.0.0.1:{server.port}/?session={live.id}&role=viewer&token={live.viewer_token}")
        await page.wait_for_selector('#status[data-state="live"]', timeout=TIMEOUT_MS)

        # Speech stops where a partial continues an utterance that already has finals.
        def partial_continues_an_utterance() -> bool:
            said = [e for e in events if isinstance(e, (TranscriptFinal, TranscriptPartial))]
            return len(said) > 1 and isinstance(said[-1], TranscriptPartial) and bool(said[-1].text.strip()) and (
                isinstance(said[-2], TranscriptFinal) and bool(said[-2].text) and not said[-2].utterance_end
            )

        await push_until(partial_continues_an_utterance)
        partial = next(e for e in reversed(events) if isinstance(e, TranscriptPartial))
        speaking = events_last_final(events).utterance
        open_utterance = [e for e in events if isinstance(e, TranscriptFinal) and e.utterance == speaking]
        await wait_for_function(
            page,
            "(text) => document.querySelector('#transcript .utterance:last-child .partial')?.textContent.trim() === text",
            arg=words(partial.text), timeout=TIMEOUT_MS,
        )
        paragraph = await page.evaluate(
            """() => {
                const p = document.querySelector('#transcript .utterance:last-child');
                const final = p.querySelector('.final'), partial = p.querySelector('.partial');
                return {
                    finals: [...p.querySelectorAll('.final')].map((s) => s.textContent).join(' '),
                    partialLast: p.lastElementChild === partial,
                    finalColor: getComputedStyle(final).color, partialColor: getComputedStyle(partial).color,
                    timeColor: getComputedStyle(p.querySelector('time')).color,
                };
            }"""
        )
        assert paragraph["finals"] == " ".join(words(f.text) for f in open_utterance if f.text)
        assert paragraph["partialLast"]  # the partial continues the paragraph...
        assert paragraph["partialColor"] != paragraph["finalColor"]  # ...in grey, as muted as the time stamp
        assert paragraph["partialColor"] == paragraph["timeColor"]
        ARTIFACTS.mkdir(exist_ok=True)
        await page.screenshot(path=str(ARTIFACTS / "transcript-360-speaking.png"))

        # Enough speech to overflow the panel; it follows the newest text.
        await push_until(lambda: pushed >= 30 * 16_000)
        await wait_for_function(
            page, "(n) => document.querySelectorAll('#transcript .final').length >= n",
            arg=spans_shown(events), timeout=TIMEOUT_MS,
        )
        scroller = await page.evaluate(
            "() => { const s = document.querySelector('#transcript'); return [s.scrollTop, s.scrollHeight, s.clientHeight]; }"
        )
        assert scroller[1] > scroller[2] and scroller[0] + scroller[2] >= scroller[1] - 24, scroller

        # The reader scrolls back: new text no longer pulls the view down; a button offers the way back.
        await page.hover("#transcript")
        await page.mouse.wheel(0, -5000)
        await wait_for_function(page, "document.querySelector('#transcript').scrollTop === 0", timeout=TIMEOUT_MS)
        await push_until(lambda: False)
        await live.finish()
        await page.wait_for_selector('#status[data-state="ended"]', timeout=TIMEOUT_MS)
        assert await page.evaluate("document.querySelector('#transcript').scrollTop") == 0
        assert await page.is_visible("#transcript-follow")
        await page.focus("#transcript-follow")
        await page.keyboard.press("Enter")
        await wait_for_function(
            page, "(() => { const s = document.querySelector('#transcript'); "
            "return s.scrollTop + s.clientHeight >= s.scrollHeight - 24; })()",
            timeout=TIMEOUT_MS,
        )
        assert not await page.is_visible("#transcript-follow")

        # A paragraph per utterance, with its time stamp; the partial is gone once everything is final.
        shown = await page.evaluate(
            """() => [...document.querySelectorAll('#transcript .utterance')].map((p) => ({
                time: p.querySelector('time').textContent,
                text: [...p.querySelectorAll('.final')].map((s) => s.textContent).join(' '),
                partial: p.querySelectorAll('.partial').length,
            }))"""
        )
        expected = utterances(events)
        assert len(expected) >= 5
        assert shown == [{"time": clock(start), "text": said, "partial": 0} for start, said in expected]
        # Speaker labels (on by default): each paragraph shows its utterance's label, a colour per voice.
        shown_who = await page.evaluate(
            "() => [...document.querySelectorAll('#transcript .utterance')]"
            ".map((p) => p.querySelector('.speaker')?.textContent ?? '')"
        )
        assert shown_who == speakers_of(events)

        # New finals were announced politely to screen readers.
        announcer = page.locator("#transcript-announcer")
        assert await announcer.get_attribute("aria-live") == "polite"
        last_final = words(events_last_final(events, with_text=True).text)
        await wait_for_function(
            page, "(text) => document.querySelector('#transcript-announcer').textContent.includes(text)",
            arg=last_final, timeout=TIMEOUT_MS,
        )

        # The downloads are keyboard controls: Tab reaches them, Enter saves.
        await page.evaluate("document.activeElement.blur()")
        for _ in range(30):
            await page.keyboard.press("Tab")
            if await page.evaluate("document.activeElement.dataset.format === 'md'"):
                break
        else:
            raise AssertionError("Tab never reached the Markdown download")
        markdown = await download(page, "#downloads [data-format=md]")
        subtitles = await download(page, "#downloads [data-format=srt]")
        jsonl = await download(page, "#downloads [data-format=jsonl]")

        # Usable at 360 px: nothing wider than the screen.
        assert await page.evaluate("document.documentElement.scrollWidth") <= WIDTH
        await page.screenshot(path=str(ARTIFACTS / "transcript-360.png"), full_page=True)
        await browser.close()

    assert page_errors == []
    # The same documents `streamtwin run --format md|srt` writes from these events.
    assert markdown == render(MarkdownOutput, events)
    assert subtitles == render(SubtitleOutput, events, "srt")
    cues = list(srt.parse(subtitles))
    spoken = " ".join(e.text for e in events if isinstance(e, TranscriptFinal)).split()
    assert " ".join(cue.content for cue in cues).split() == spoken
    received = [from_json(line) for line in jsonl.splitlines()]
    assert [e for e in received if isinstance(e, TranscriptFinal)] == [e for e in events if isinstance(e, TranscriptFinal)]
    assert isinstance(received[-1], SessionEnded)


# Finals that exercise the corners: no utterance numbers (pauses and "?" group them), words that do not
# spell the text, a word longer than a line, characters outside the BMP, Markdown in speech.
EDGE_FINALS = [
    {"text": "Is this on?", "start": 0.5, "end": 1.4, "words": [["Is", 0.5, 0.7], ["this", 0.7, 1.0], ["on?", 1.0, 1.4]]},
    {"text": "Yes it is", "start": 1.6, "end": 2.4, "words": []},
    {"text": "and *this* is_not #markup", "start": 2.5, "end": 3.9, "words": [["and", 2.5, 2.7]]},
    {"text": "Donaudampfschifffahrtsgesellschaftskapitänsmütze", "start": 6.0, "end": 7.5, "words": []},
    {"text": "👍 " * 30, "start": 7.6, "end": 16.0, "words": []},
    {"text": "Short.", "start": 30.0, "end": 30.2, "words": [["Short.", 30.0, 30.2]]},
]
EDGE_TWIN = {
    "people": [{"name": "Ana", "role": "chair"}, {"name": "Bo"}],
    "action_items": [
        {"text": "send *the* report", "owner": "Bo", "due": "Friday"},
        {"text": "book a room", "owner": "", "due": ""},
        {"text": "call the client", "owner": "", "due": "Monday"},
    ],
    "decisions": ["ship in June", " "],
    "open_questions": [],
    "topics": ["launch", "budget"],
    "scene": {"description": "a whiteboard", "updated_at": 3.0},
    "summary": "A   short\nmeeting.",
}


def edge_events() -> list:
    events = [from_dict({"v": 1, "type": "twin.state", "version": 0, "state": EDGE_TWIN})]
    for final in EDGE_FINALS:
        events.append(from_dict({"v": 1, "type": "transcript.final", **final}))
    return events + [SessionEnded()]


def voiced_events() -> list:
    """Voices that change after the fact: a split utterance revised, a merge, names given and taken back."""
    return [*VOICED, SessionEnded()]


async def test_the_pages_subtitles_and_notes_agree_with_python(make_server, meeting_events):
    server = await make_server()
    cases = [edge_events(), voiced_events(), meeting_events]
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_BASE_FLAGS)
        page = await browser.new_page()
        await page.goto(f"http://127.0.0.1:{server.port}/exports.js")
        for events in cases:
            said = [e.to_dict() for e in events
                    if isinstance(e, (TranscriptFinal, TranscriptRevised, SpeakerTurns, SpeakerNamed))]
            twin = TwinMirror()
            for event in events:
                if isinstance(event, (TwinState, TwinPatch)):
                    twin.apply(event)
            page_docs = await page.evaluate(
                """async ([said, twin]) => {
                    const { subtitles, meetingNotes } = await import('/exports.js');
                    const finals = said.filter((event) => event.type === 'transcript.final');
                    return [subtitles(finals, 'srt'), subtitles(finals, 'vtt'), meetingNotes(said, twin)];
                }""",
                [said, twin.state],
            )
            python_docs = [
                render(SubtitleOutput, events, "srt"), render(SubtitleOutput, events, "vtt"), render(MarkdownOutput, events)
            ]
            assert page_docs == python_docs
        await browser.close()
    edge_cues = list(srt.parse(render(SubtitleOutput, cases[0], "srt")))
    assert " ".join(cue.content for cue in edge_cues).split() == " ".join(f["text"] for f in EDGE_FINALS).split()
