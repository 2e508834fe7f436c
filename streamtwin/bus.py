"""The session's event stream: stamps envelopes and fans events out to subscribers.

Stages call :meth:`EventBus.emit`; outputs, the LLM driver, metrics and the
websocket fan-out subscribe.  A subscriber is a plain callback run inline (it
must be quick and must not block: queue work elsewhere), so one emit costs
microseconds and ordering is the same for everyone.
"""

from __future__ import annotations

import logging
import time
from typing import Callable

from streamtwin.events import Event

log = logging.getLogger(__name__)

Subscriber = Callable[[Event], None]


class EventBus:
    def __init__(self, session: str, clock: Callable[[], float] = time.time):
        self.session = session
        self._clock = clock
        self._seq = 0
        self._subscribers: list[Subscriber] = []

    def subscribe(self, callback: Subscriber) -> Callable[[], None]:
        """Register ``callback``; returns a function that unsubscribes it."""
        self._subscribers.append(callback)

        def unsubscribe() -> None:
            if callback in self._subscribers:
                self._subscribers.remove(callback)

        return unsubscribe

    @property
    def seq(self) -> int:
        """The seq of the last event emitted (0 before the first)."""
        return self._seq

    def emit(self, event: Event) -> Event:
        """Stamp ``event`` (session, seq, wall) and deliver it to every subscriber."""
        self._seq += 1
        event.session = self.session
        event.seq = self._seq
        event.wall = self._clock()
        for callback in list(self._subscribers):
            try:
                callback(event)
            except Exception:  # one broken subscriber must not starve the others
                log.exception("event subscriber %r failed on %s", callback, event.type)
        return event
