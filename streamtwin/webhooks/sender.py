"""Webhooks posted from the event loop: a thin asyncio adapter around :class:`~streamtwin.webhooks.delivery.
DeliveryQueue`, over httpx (already installed with the groq and openai SDKs).

:meth:`WebhookSender.submit` only queues (the bus calls it inline: a session never waits for a receiver);
one task per receiver posts what its queue says is due, so a receiver that is down delays nobody else.
``/metrics`` shows the queue and the outcomes (:class:`WebhookCollector`).
"""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import httpx
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from streamtwin.media.redact import redact
from streamtwin.webhooks.delivery import Delivery, DeliveryQueue, retry_after_seconds, summary
from streamtwin.webhooks.payloads import check_url, headers, parse_events

log = logging.getLogger(__name__)

POST_TIMEOUT_S = 10.0


@dataclass(frozen=True)
class WebhookSettings:
    urls: tuple[str, ...]
    secret: str = ""
    events: frozenset[str] = frozenset({"ended"})
    max_items: int = 1000
    max_age_s: float = 600.0
    backoff_cap_s: float = 30.0

    @classmethod
    def from_config(cls, config: Any) -> WebhookSettings | None:
        """The config's webhooks (None without ``--webhook``); ValueError for a bad URL or event name."""
        if not config.webhook:
            return None
        return cls(
            urls=tuple(check_url(url) for url in config.webhook),
            secret=config.webhook_secret,
            events=parse_events(config.webhook_events),
            max_items=config.webhook_max_queue,
            max_age_s=config.webhook_max_age_s,
        )


class _Receiver:
    def __init__(self, url: str, queue: DeliveryQueue) -> None:
        self.url = url
        self.shown = redact(url)
        self.queue = queue
        self.wake = asyncio.Event()


class WebhookSender:
    """Posts each submitted body to every receiver, in order, retried with backoff; never blocks the caller."""

    def __init__(self, settings: WebhookSettings, client: httpx.AsyncClient | None = None) -> None:
        self.settings = settings
        self._client = client or httpx.AsyncClient(timeout=POST_TIMEOUT_S, follow_redirects=False)
        self._receivers = [
            _Receiver(url, DeliveryQueue(
                max_items=settings.max_items, max_age_s=settings.max_age_s, backoff_cap_s=settings.backoff_cap_s,
            ))
            for url in settings.urls
        ]
        self._tasks: list[asyncio.Task[None]] = []
        self._idle = asyncio.Condition()

    @property
    def events(self) -> frozenset[str]:
        return self.settings.events

    def start(self) -> None:
        if not self._tasks:
            self._tasks = [asyncio.ensure_future(self._deliver(receiver)) for receiver in self._receivers]

    @staticmethod
    def new_id() -> tuple[str, float]:
        """A delivery's id and creation time (both go into its body)."""
        return uuid.uuid4().hex, time.time()

    def submit(self, event: str, delivery_id: str, body: bytes) -> None:
        """Queue ``body`` for every receiver (the oldest waiting ones are dropped when a queue is full)."""
        now = time.monotonic()
        for receiver in self._receivers:
            dropped = receiver.queue.offer(Delivery(delivery_id, event, body, now))
            if dropped:
                log.warning("webhook %s: queue full, dropped the %d oldest deliveries", receiver.shown, dropped)
            receiver.wake.set()

    def waiting(self) -> int:
        return sum(len(receiver.queue) for receiver in self._receivers)

    def counts(self) -> dict[str, int]:
        total: dict[str, int] = {}
        for receiver in self._receivers:
            for name, value in receiver.queue.counts.as_dict().items():
                total[name] = total.get(name, 0) + value
        return total

    async def drain(self, timeout_s: float) -> bool:
        """Wait until every queue is empty, at most ``timeout_s``; True if it is."""
        try:
            async with self._idle:
                await asyncio.wait_for(self._idle.wait_for(lambda: self.waiting() == 0), timeout_s)
        except TimeoutError:
            return False
        return True

    async def aclose(self, drain_s: float = 0.0) -> str:
        """Deliver what waits for up to ``drain_s``, then stop; returns a one-line account (for the log)."""
        if drain_s > 0 and self.waiting():
            await self.drain(drain_s)
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        await self._client.aclose()
        account = summary(self.counts(), self.waiting())
        if self.waiting():
            log.warning("webhooks: %s", account)
        return account

    async def _deliver(self, receiver: _Receiver) -> None:
        while True:
            delivery = receiver.queue.due(time.monotonic())
            if delivery is None:
                deadline = receiver.queue.next_deadline()
                receiver.wake.clear()
                wait = None if deadline is None else max(0.0, deadline - time.monotonic())
                try:
                    await asyncio.wait_for(receiver.wake.wait(), wait)
                except TimeoutError:
                    pass
                continue
            await self._post(receiver, delivery)
            async with self._idle:
                self._idle.notify_all()

    async def _post(self, receiver: _Receiver, delivery: Delivery) -> None:
        try:
            response = await self._client.post(
                receiver.url, content=delivery.body,
                headers=headers(delivery.event, delivery.id, delivery.body, self.settings.secret),
            )
        except httpx.HTTPError as exc:
            outcome = receiver.queue.failed(time.monotonic())
            log.info("webhook %s: %s (%s; attempt %d)", receiver.shown, type(exc).__name__, outcome, delivery.attempts)
            return
        if 200 <= response.status_code < 300:
            receiver.queue.succeeded(time.monotonic())
            return
        outcome = receiver.queue.failed(
            time.monotonic(), status=response.status_code,
            retry_after=retry_after_seconds(response.headers.get("retry-after")),
        )
        level = logging.WARNING if outcome != "retry" else logging.INFO
        log.log(level, "webhook %s: HTTP %d (%s; attempt %d)", receiver.shown, response.status_code, outcome,
                delivery.attempts)


class WebhookCollector(Collector):
    """The sender's queue and outcomes in ``/metrics``, read when scraped."""

    def __init__(self, sender: WebhookSender) -> None:
        self._sender = sender

    def describe(self) -> Iterator[Metric]:
        return self._families(read=False)

    def collect(self) -> Iterator[Metric]:
        return self._families(read=True)

    def _families(self, read: bool) -> Iterator[Metric]:
        waiting = GaugeMetricFamily(
            "streamtwin_webhook_queued", "Webhook deliveries waiting (a receiver down or slow), all receivers."
        )
        outcomes = CounterMetricFamily(
            "streamtwin_webhook_deliveries",
            "Webhook outcomes: delivered, failed_attempts (retried), dropped (queue full), expired (still failing "
            "after --webhook-max-age-s), rejected (a 4xx).", labels=("result",),
        )
        if read:
            waiting.add_metric((), self._sender.waiting())
            for name, value in sorted(self._sender.counts().items()):
                outcomes.add_metric((name,), value)
        yield from (waiting, outcomes)
