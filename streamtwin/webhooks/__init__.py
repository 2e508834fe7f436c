"""Webhooks: a session's notes (and, if asked, each twin change) posted to receivers, signed, retried.

:mod:`~streamtwin.webhooks.delivery` is the queue and retry policy (pure), :mod:`~streamtwin.webhooks.payloads`
the bodies, headers and signature (pure), :mod:`~streamtwin.webhooks.sender` the asyncio adapter over httpx,
:mod:`~streamtwin.webhooks.notifier` the bus subscriber that feeds it.  See docs/integrations.md.
"""
