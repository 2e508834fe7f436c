"""One websocket client's outbound queue: bounded, ordered, assistant text shared until the client falls behind.

The session hands every client the same serialised messages, delta frames
included (:mod:`streamtwin.service.coalesce`); what reaches a client depends only
on how fast that client reads.  A client that keeps up sends each frame as it
was serialised for everyone.  One that falls behind (its previous frame of a
generation still queued when the next arrives) gets them merged into one
pending frame, serialised again for it alone when it can send; past
``max_pending_chars`` its oldest pending text is dropped and announced by a
``notice`` in its place.  Every other message is queued in order; a client so
slow that this queue passes its bounds is hopeless: the outbox says so
(``overflow``) and the server drops the client instead of buffering without end.

Plain class: no I/O, no clock.
"""

from __future__ import annotations

import json
from collections import deque
from dataclasses import dataclass
from typing import Any, Callable

DEFAULT_MAX_MESSAGES = 1000
DEFAULT_MAX_BYTES = 8 << 20
DEFAULT_MAX_PENDING_CHARS = 1 << 18

Message = str | bytes


@dataclass(frozen=True)
class SharedFrame:
    """One ``assistant.delta`` frame as the session sends it to every client: ``body`` (text
    included) and ``data``, its serialisation."""

    generation: int
    text: str
    body: dict[str, Any]
    data: bytes


class _Run:
    """Queued text of one generation: one shared frame, or frames merged (and cut) for this client."""

    __slots__ = ("generation", "parts", "chars", "body", "data", "dropped")

    def __init__(self, frame: SharedFrame) -> None:
        self.generation = frame.generation
        self.parts = [frame.text]
        self.chars = len(frame.text)
        self.body = frame.body
        self.data: bytes | None = frame.data  # None once merged or cut: serialised again at take
        self.dropped = 0


class Outbox:
    def __init__(
        self,
        encode: Callable[[dict[str, Any]], Message],
        *,
        max_messages: int = DEFAULT_MAX_MESSAGES,
        max_bytes: int = DEFAULT_MAX_BYTES,
        max_pending_chars: int = DEFAULT_MAX_PENDING_CHARS,
    ) -> None:
        """``encode`` serialises an event object (a merged frame) as the session does."""
        self.max_messages = max_messages
        self.max_bytes = max_bytes
        self.max_pending_chars = max_pending_chars
        self._encode = encode
        self._queue: deque[Message | _Run] = deque()
        self._bytes = 0  # of queued messages; delta text is bounded by max_pending_chars instead
        self._pending_chars = 0
        self.dropped_chars_total = 0
        self.overflow: str | None = None  # why this client must be dropped, once it must

    @property
    def queued(self) -> int:
        return len(self._queue)

    @property
    def queued_bytes(self) -> int:
        return self._bytes

    @property
    def pending_chars(self) -> int:
        return self._pending_chars

    def put(self, message: Message) -> bool:
        """Queue one message after anything queued before it; False once overflowed."""
        if self.overflow is not None:
            return False
        self._queue.append(message)
        self._bytes += len(message)
        self._check_bounds()
        return self.overflow is None

    def put_frame(self, frame: SharedFrame) -> None:
        """Queue assistant text: as shared, or merged into this generation's frame still waiting here."""
        if self.overflow is not None or not frame.text:
            return
        tail = self._queue[-1] if self._queue else None
        if isinstance(tail, _Run) and tail.generation == frame.generation:
            tail.parts.append(frame.text)
            tail.chars += len(frame.text)
            tail.body = frame.body
            tail.data = None
        else:
            self._queue.append(_Run(frame))
            self._check_bounds()
        self._pending_chars += len(frame.text)
        if self._pending_chars > self.max_pending_chars:
            self._drop_oldest(self._pending_chars - self.max_pending_chars)

    def take(self) -> list[Message]:
        """Everything queued, in order, ready to send."""
        out: list[Message] = []
        for item in self._queue:
            if isinstance(item, _Run):
                out += self._render(item)
            else:
                out.append(item)
        self._queue.clear()
        self._bytes = 0
        self._pending_chars = 0
        return out

    def _render(self, run: _Run) -> list[Message]:
        out: list[Message] = []
        if run.dropped:
            out.append(
                json.dumps(
                    {
                        "type": "notice",
                        "code": "deltas_dropped",
                        "message": f"connection too slow: {run.dropped} characters of assistant text were dropped",
                        "generation": run.generation,
                        "dropped_chars": run.dropped,
                    }
                )
            )
        if run.data is not None:
            out.append(run.data)
        elif run.chars:
            out.append(self._encode(dict(run.body, text="".join(run.parts))))
        return out

    def _drop_oldest(self, excess: int) -> None:
        for item in self._queue:
            if excess <= 0:
                break
            if not isinstance(item, _Run) or not item.chars:
                continue
            cut = min(excess, item.chars)
            text = "".join(item.parts)[cut:]
            item.parts = [text] if text else []
            item.chars -= cut
            item.dropped += cut
            item.data = None
            self._pending_chars -= cut
            self.dropped_chars_total += cut
            excess -= cut

    def _check_bounds(self) -> None:
        if len(self._queue) > self.max_messages or self._bytes > self.max_bytes:
            self.overflow = f"too slow: {len(self._queue)} messages ({self._bytes // 1024} KiB) waiting to be sent"
            self._queue.clear()
            self._bytes = 0
            self._pending_chars = 0
