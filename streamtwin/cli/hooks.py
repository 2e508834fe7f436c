"""``--webhook`` and its flags, on ``run`` and ``serve`` alike, and the sender they start (streamtwin/webhooks/)."""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from streamtwin.config import Config

if TYPE_CHECKING:
    from streamtwin.bus import EventBus
    from streamtwin.service.registry import SessionFactory
    from streamtwin.session import Session
    from streamtwin.webhooks.sender import WebhookSender

log = logging.getLogger(__name__)


def add_webhook_flags(parser: argparse.ArgumentParser, csv: Callable[[str], list[str]]) -> None:
    group = parser.add_argument_group("webhooks")
    group.add_argument(
        "--webhook", action="append", default=None, metavar="URL",
        help="post the meeting notes (Markdown) and the twin (JSON) to URL when the session ends (repeatable; "
        "http or https): retried with backoff for --webhook-max-age-s, never holding the session up",
    )
    group.add_argument(
        "--webhook-events", dest="webhook_events", type=csv, default=None, metavar="twin,ended",
        help="what is posted: ended (default: the notes when a session ends) and/or twin (every twin change)",
    )
    group.add_argument(
        "--webhook-secret", default=None, metavar="SECRET",
        help="sign each body: X-Streamtwin-Signature: sha256=HMAC-SHA256(SECRET, body) in hex "
        "(env STREAMTWIN_WEBHOOK_SECRET)",
    )
    group.add_argument(
        "--webhook-max-age-s", dest="webhook_max_age_s", type=float, default=None, metavar="S",
        help="a receiver that is down loses nothing for S seconds: deliveries are retried that long "
        "(default: 600); at most 1000 wait per receiver (env STREAMTWIN_WEBHOOK_MAX_QUEUE), then the oldest go",
    )


def start_webhooks(config: Config) -> WebhookSender | None:
    """The sender the config asks for, started (None without ``--webhook``); ValueError for a bad flag."""
    from streamtwin.webhooks.sender import WebhookSender, WebhookSettings

    settings = WebhookSettings.from_config(config)
    if settings is None:
        return None
    sender = WebhookSender(settings)
    sender.start()
    return sender


async def stop_webhooks(sender: WebhookSender | None, drain_s: float) -> None:
    """Deliver what still waits (up to ``drain_s``), then stop; undelivered ones are logged as a warning."""
    if sender is not None:
        log.info("webhooks: %s", await sender.aclose(drain_s))


async def with_webhooks_of(config: Config, run: Callable[[WebhookSender | None], Awaitable[int]]) -> int:
    """``run``: the session with the webhooks the config asks for (checked first: a bad URL is exit status 1
    before anything loads; drained last, so the notes of the session's end are posted before the exit)."""
    try:
        webhooks = start_webhooks(config)
    except ValueError as exc:
        print(f"streamtwin: error: {exc}", file=sys.stderr)
        return 1
    try:
        return await run(webhooks)
    finally:
        await stop_webhooks(webhooks, config.webhook_drain_s)


def subscribe_webhooks(bus: EventBus, sender: WebhookSender | None) -> None:
    if sender is not None:
        from streamtwin.webhooks.notifier import WebhookNotifier

        bus.subscribe(WebhookNotifier(sender))


def with_webhooks(factory: SessionFactory, sender: WebhookSender | None) -> SessionFactory:
    """``serve``: every session the factory makes also feeds the webhooks (its notes when it ends)."""
    if sender is None:
        return factory

    def make(config: Config, session_id: str | None, source: str) -> Session:
        session = factory(config, session_id, source)
        subscribe_webhooks(session.bus, sender)
        return session

    return make
