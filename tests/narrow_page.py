"""The page on a phone in real headless Chromium, for the tests of its ask boxes (the Assistant panel's, "Ask all
meetings"): a 360 px page that collects its script errors, and a question asked from the keyboard."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from playwright.async_api import async_playwright

from tests.test_browser import CHROMIUM, CHROMIUM_BASE_FLAGS

WIDTH = 360


@asynccontextmanager
async def narrow_page(width: int = WIDTH) -> AsyncIterator[tuple[Any, list[str]]]:
    """A page ``width`` px wide, and the errors its scripts raise (a test ends with that list empty)."""
    errors: list[str] = []
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_BASE_FLAGS)
        page = await browser.new_page(viewport={"width": width, "height": 740})
        page.on("pageerror", lambda error: errors.append(str(error)))
        try:
            yield page, errors
        finally:
            await browser.close()


async def ask_from_the_keyboard(page: Any, form: str, question: str, width: int = WIDTH) -> None:
    """The box ``form`` (a text input and a button) fits the page; ``question`` typed in and sent with Enter, its
    button disabled until the answer comes (one question at a time)."""
    box = await page.locator(form).bounding_box()
    button = await page.locator(f"{form} button").bounding_box()
    assert box["x"] >= 0 and button["x"] + button["width"] <= width, (box, button)
    await page.focus(f"{form} input")
    await page.keyboard.type(question)
    await page.keyboard.press("Enter")
    assert await page.locator(f"{form} button").is_disabled()
