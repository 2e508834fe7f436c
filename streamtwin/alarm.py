"""One event-loop timer that wakes an adapter at its policies' next deadline.

Policies have no clock of their own: they say when they next want to be asked
(``next_deadline()``), and the adapter running them keeps an :class:`Alarm` set
to the earliest of those times.
"""

from __future__ import annotations

import asyncio
from typing import Callable


class Alarm:
    """Calls ``wake()`` at the deadline last :meth:`set`; a deadline that did not move keeps its timer."""

    def __init__(self, clock: Callable[[], float], wake: Callable[[], None]) -> None:
        self._clock = clock
        self._wake = wake
        self._handle: asyncio.TimerHandle | None = None
        self._due: float | None = None

    def set(self, due: float | None) -> None:
        """Wake at ``due`` (a time of ``clock``; ``-inf`` or a past time: at once; ``None``: not at all)."""
        if due == self._due and self._handle is not None:
            return
        self.cancel()
        self._due = due
        if due is not None:
            self._handle = asyncio.get_running_loop().call_later(max(0.0, due - self._clock()), self._fire)

    def cancel(self) -> None:
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None

    def _fire(self) -> None:
        self._handle = None
        self._due = None
        self._wake()
