"""One websocket client's outbound queue: bounded, ordered, assistant deltas coalesced.

The fan-out hands every client the same serialised events; what reaches a
client depends only on how fast that client reads.  Deltas go through the
client's own :class:`~pipeline.policy.coalesce.TokenCoalescer` (merged into
frames of a few tens of ms, merged further while the socket has a backlog,
oldest text dropped past a cap and announced by a ``notice``).  Every other
message is queued in order; a client so slow that this queue passes its bounds
is hopeless: the outbox says so (``overflow``) and the server drops the client
instead of buffering without end.

Plain class: no I/O, no clock; ``now`` is passed in.
"""

from __future__ import annotations

import json
from collections import deque
from typing import Any

from .coalesce import Frame, TokenCoalescer

DEFAULT_MAX_MESSAGES = 1000
DEFAULT_MAX_BYTES = 8 << 20


class Outbox:
    def __init__(
        self,
        coalescer: TokenCoalescer | None = None,
        *,
        max_messages: int = DEFAULT_MAX_MESSAGES,
        max_bytes: int = DEFAULT_MAX_BYTES,
    ) -> None:
        self.coalescer = coalescer or TokenCoalescer()
        self.max_messages = max_messages
        self.max_bytes = max_bytes
        self._queue: deque[str] = deque()
        self._bytes = 0
        self._envelopes: dict[int, dict[str, Any]] = {}  # generation -> envelope of its latest delta
        self.overflow: str | None = None  # why this client must be dropped, once it must

    @property
    def queued(self) -> int:
        return len(self._queue)

    @property
    def queued_bytes(self) -> int:
        return self._bytes

    def put(self, text: str) -> bool:
        """Queue one message after any pending deltas (order is kept); False once overflowed."""
        if self.overflow is not None:
            return False
        self._queue_frames(self.coalescer.flush())
        self._append(text)
        return self.overflow is None

    def put_delta(self, now: float, generation: int, text: str, envelope: dict[str, Any]) -> None:
        """Queue assistant text; ``envelope`` (the latest delta's fields but ``text``) heads its frame."""
        if self.overflow is not None or not text:
            return
        self._envelopes[generation] = envelope
        self.coalescer.push(now, generation, text)

    def next_due(self, backlog_bytes: int = 0) -> float | None:
        """When :meth:`take` will have something (``now`` if it has already)."""
        if self._queue:
            return 0.0
        return self.coalescer.next_due(backlog_bytes)

    def take(self, now: float, backlog_bytes: int = 0) -> list[str]:
        """Everything ready to send now, in order: queued messages, then delta frames whose window passed."""
        self._queue_frames(self.coalescer.due(now, backlog_bytes))
        out = list(self._queue)
        self._queue.clear()
        self._bytes = 0
        return out

    def _queue_frames(self, frames: list[Frame]) -> None:
        for frame in frames:
            envelope = self._envelopes.get(frame.generation, {})
            if frame.dropped_chars:
                self._append(
                    json.dumps(
                        {
                            "type": "notice",
                            "code": "deltas_dropped",
                            "message": f"connection too slow: {frame.dropped_chars} characters of assistant "
                            f"text were dropped",
                            "generation": frame.generation,
                            "dropped_chars": frame.dropped_chars,
                        }
                    )
                )
            body = dict(envelope, type="assistant.delta", generation=frame.generation, text=frame.text)
            self._append(json.dumps(body, ensure_ascii=False, separators=(",", ":")))
        if not self.coalescer.pending_chars:
            self._envelopes.clear()

    def _append(self, text: str) -> None:
        self._queue.append(text)
        self._bytes += len(text)
        if len(self._queue) > self.max_messages or self._bytes > self.max_bytes:
            self.overflow = (
                f"too slow: {len(self._queue)} messages ({self._bytes // 1024} KiB) waiting to be sent"
            )
            self._queue.clear()
            self._bytes = 0
