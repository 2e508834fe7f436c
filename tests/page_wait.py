"""Waiting on the page from browser tests, under its Content-Security-Policy.

Playwright's ``Page.wait_for_function`` evaluates its predicate with ``eval`` inside the page, which the
page's strict policy (no ``unsafe-eval``) forbids, as it should; ``Page.evaluate`` goes through the
DevTools protocol, which the policy does not govern.  So the tests poll with it.
"""

from __future__ import annotations

import asyncio
from typing import Any

from playwright.async_api import TimeoutError as PlaywrightTimeout

POLL_S = 0.1


async def wait_for_function(page: Any, expression: str, arg: Any = None, *, timeout: float = 30_000) -> Any:
    """``page.wait_for_function(expression, arg=arg, timeout=timeout)`` (milliseconds), by polling."""
    try:
        async with asyncio.timeout(timeout / 1000):
            while not (result := await page.evaluate(expression, arg)):
                await asyncio.sleep(POLL_S)
    except TimeoutError:
        raise PlaywrightTimeout(f"{expression[:80]} did not come true within {timeout:.0f} ms") from None
    return result
