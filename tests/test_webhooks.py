"""Webhooks against a real HTTP receiver on loopback: signed bodies, retries, a receiver that is down for a
while, the notes and twin a session ends with, ``/metrics``, and the flags' bad input."""

from __future__ import annotations

import asyncio
import io
from pathlib import Path

import pytest
from prometheus_client import CollectorRegistry, generate_latest

from streamtwin.bus import EventBus
from streamtwin.config import Config
from streamtwin.events import SessionEnded, TranscriptFinal, TwinPatch, TwinState, from_json
from streamtwin.outputs.notes import MarkdownOutput
from streamtwin.webhooks.notifier import WebhookNotifier
from streamtwin.webhooks.payloads import verify
from streamtwin.webhooks.sender import WebhookCollector, WebhookSender, WebhookSettings
from tests.cli import assert_one_line_error, run_main
from tests.fakes.webhook_receiver import WebhookReceiver, free_port

SAMPLES = Path(__file__).resolve().parent.parent / "samples"


def quick(urls: list[str], **overrides) -> WebhookSettings:
    """Settings whose backoff tops out at 50 ms, so a retried delivery arrives within the test."""
    return WebhookSettings(urls=tuple(urls), secret="s3cret", backoff_cap_s=0.05, **overrides)


def a_meeting(bus: EventBus) -> None:
    bus.emit(TwinState(version=0, state={"summary": "", "action_items": []}))
    bus.emit(TranscriptFinal(text="Tom will send the budget by Friday.", start=1.0, end=3.2, utterance=1,
                             utterance_end=True, speaker="S1", speaker_name="Tom"))
    bus.emit(TwinPatch(version=1, patch=[{"op": "add", "path": "/action_items/-",
                                          "value": {"text": "send the budget", "owner": "Tom", "due": "Friday"}}]))
    # The same twin again (as a late joiner's snapshot resends it): nothing changed, nothing posted.
    bus.emit(TwinState(version=2, state={"summary": "", "action_items": [
        {"text": "send the budget", "owner": "Tom", "due": "Friday"}]}))
    bus.emit(SessionEnded(stats={"audio_s": 4.0}))


async def test_the_notes_and_twin_of_an_ended_session_arrive_signed() -> None:
    async with WebhookReceiver() as receiver:
        sender = WebhookSender(quick([receiver.url], events=frozenset({"ended", "twin"})))
        sender.start()
        bus = EventBus("sess-1")
        bus.subscribe(WebhookNotifier(sender))
        a_meeting(bus)
        got = await receiver.wait_for(2)
        await sender.aclose()
    # The session's first, blank twin is not a change: one twin delivery, then the end.
    assert [r.headers["x-streamtwin-event"] for r in got] == ["twin", "ended"]
    for request in got:
        assert verify("s3cret", request.body, request.headers["x-streamtwin-signature"])
        assert request.headers["content-type"] == "application/json"
        assert request.json()["id"] == request.headers["x-streamtwin-delivery"]
    change = got[0].json()
    assert change["version"] == 1 and change["patch"][0]["path"] == "/action_items/-"
    ended = got[1].json()
    assert ended["session"] == "sess-1" and ended["stats"] == {"audio_s": 4.0}
    assert ended["twin"]["action_items"] == [{"text": "send the budget", "owner": "Tom", "due": "Friday"}]
    notes = ended["notes_markdown"]
    assert "- [ ] send the budget (Tom, due Friday)" in notes
    assert "**00:01** **Tom:** Tom will send the budget by Friday." in notes


async def test_a_receiver_down_for_a_while_gets_everything_in_order() -> None:
    receiver = WebhookReceiver(port=free_port())
    sender = WebhookSender(quick([receiver.url], events=frozenset({"ended", "twin"})))
    sender.start()
    bus = EventBus("sess-2")
    bus.subscribe(WebhookNotifier(sender))
    a_meeting(bus)  # nobody listens on the port yet: connection refused, retried
    while sender.counts().get("failed_attempts", 0) < 3:
        await asyncio.sleep(0.01)
    assert sender.waiting() == 2
    async with receiver:
        got = await receiver.wait_for(2)
        assert await sender.drain(5.0)
    await sender.aclose()
    assert [r.headers["x-streamtwin-event"] for r in got] == ["twin", "ended"]
    assert sender.counts()["delivered"] == 2 and sender.counts()["expired"] == 0


async def test_a_server_error_is_retried_and_one_receiver_down_delays_no_other() -> None:
    down = WebhookReceiver(port=free_port())  # never started
    async with WebhookReceiver(statuses=[500, 503]) as flaky:
        sender = WebhookSender(quick([down.url, flaky.url]))
        sender.start()
        sender.submit("ended", "d1", b'{"event":"ended"}')
        got = await flaky.wait_for(1)
        assert flaky.attempts == 3 and got[0].body == b'{"event":"ended"}'
        while sender.counts().get("delivered", 0) < 1:  # the answer is read after the receiver counted it
            await asyncio.sleep(0.01)
        assert sender.waiting() == 1  # still queued for the receiver that is down
        registry = CollectorRegistry()
        registry.register(WebhookCollector(sender))
        metrics = generate_latest(registry).decode()
        await sender.aclose()
    assert "streamtwin_webhook_queued 1.0" in metrics
    assert 'streamtwin_webhook_deliveries_total{result="delivered"} 1.0' in metrics


async def test_a_rejected_body_is_dropped_and_the_next_one_goes() -> None:
    async with WebhookReceiver(statuses=[400]) as receiver:
        sender = WebhookSender(quick([receiver.url]))
        sender.start()
        sender.submit("ended", "d1", b'{"n":1}')
        sender.submit("ended", "d2", b'{"n":2}')
        got = await receiver.wait_for(1)
        await sender.aclose()
    assert [r.body for r in got] == [b'{"n":2}']
    assert sender.counts()["rejected"] == 1


async def test_submit_returns_at_once_while_the_receiver_hangs() -> None:
    """A receiver that accepts and never answers: the bus subscriber only queues; the session goes on."""
    hung: list[asyncio.StreamWriter] = []

    async def never_answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        hung.append(writer)
        await asyncio.Event().wait()

    server = await asyncio.start_server(never_answer, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    sender = WebhookSender(quick([f"http://127.0.0.1:{port}/"], events=frozenset({"ended", "twin"})))
    sender.start()
    bus = EventBus("sess-3")
    bus.subscribe(WebhookNotifier(sender))
    for version in range(1, 51):
        bus.emit(TwinState(version=version, state={"summary": str(version)}))
    while not hung:
        await asyncio.sleep(0.01)
    assert sender.waiting() == 50  # all queued, the first in flight
    await sender.aclose()
    server.close()


def test_bad_webhook_flags_are_one_line_errors(capfd: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    missing = str(tmp_path / "missing.wav")  # the webhook is checked before the source is opened
    ran = run_main(capfd, "run", missing, "--llm", "none", "--webhook", "ftp://example.com/in")
    assert_one_line_error(ran, "--webhook", "http:// or https://")
    ran = run_main(capfd, "run", missing, "--llm", "none", "--webhook", "http://127.0.0.1:1/x",
                   "--webhook-events", "twin,started")
    assert_one_line_error(ran, "--webhook-events", "started")
    ran = run_main(capfd, "serve", "--llm", "none", "--port", "0", "--webhook", "localhost:9000/in")
    assert_one_line_error(ran, "--webhook", "http:// or https://")


def test_the_flags_fill_the_config() -> None:
    from streamtwin.cli.main import build_parser, config_from_args

    args = build_parser().parse_args([
        "serve", "--webhook", "http://a.example/1", "--webhook", "https://b.example/2",
        "--webhook-events", "twin,ended", "--webhook-secret", "k", "--webhook-max-age-s", "900",
    ])
    config = config_from_args(args)
    assert config.webhook == ["http://a.example/1", "https://b.example/2"]
    assert config.webhook_events == ["twin", "ended"] and config.webhook_secret == "k"
    settings = WebhookSettings.from_config(config)
    assert settings is not None and settings.max_age_s == 900 and settings.events == {"twin", "ended"}
    assert Config().webhook_events == ["ended"] and WebhookSettings.from_config(Config()) is None


@pytest.mark.model
def test_run_posts_the_notes_when_the_source_ends(capfd: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    receiver = WebhookReceiver()
    with receiver.in_a_thread():
        ran = run_main(
            capfd, "run", str(SAMPLES / "standup.wav"), "--asr-model", "tiny.en", "--language", "en",
            "--llm", "none", "--speakers", "off", "--format", "jsonl", "--webhook", receiver.url,
            "--webhook-secret", "k",
        )
    assert ran.returncode == 0, ran.stderr
    assert len(receiver.received) == 1
    body = receiver.received[0]
    assert verify("k", body.body, body.headers["x-streamtwin-signature"])
    events = [from_json(line) for line in ran.stdout.splitlines()]
    notes = io.StringIO()
    written = MarkdownOutput(notes)  # what run --format md writes for the same events
    for event in events:
        written(event)
    posted = body.json()
    assert any(isinstance(e, TranscriptFinal) for e in events) and posted["notes_markdown"] == notes.getvalue()
    assert posted["session"] == events[0].session and posted["event"] == "ended"
