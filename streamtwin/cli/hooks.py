"""``--webhook`` and its flags, on ``run`` and ``serve`` alike, and the sender they start (streamtwin/webhooks/)."""

from __future__ import annotations

import argparse
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

from streamtwin.config import Config

if TYPE_CHECKING:
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


def with_webhooks(factory: SessionFactory, sender: WebhookSender | None) -> SessionFactory:
    """``serve``: every session the factory makes also feeds the webhooks (its notes when it ends)."""
    if sender is None:
        return factory
    from streamtwin.webhooks.notifier import WebhookNotifier

    def make(config: Config, session_id: str | None, source: str) -> Session:
        session = factory(config, session_id, source)
        session.bus.subscribe(WebhookNotifier(sender))
        return session

    return make
