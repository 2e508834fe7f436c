"""Audio packets back in order, a lost one skipped at the cost of itself alone.

aiortc's audio jitter buffer (16 slots, 4 packets of prefetch) waits for a missing packet until its
16 slots are full, then frees one slot per arrival: the four packets it had prefetched before the hole
go with it, and the buffer stays full, 15 packets (0.3 s) late, from then on (aiortc issue #543).  At
1 packet in 16 lost, 31% of the audio went missing.  :class:`AudioReorder` waits the same ``depth``
packets for a late one, then skips the hole and goes on: a lost packet costs its own 20 ms, the delay
stays ``depth`` packets.  It knows nothing of RTP beyond sequence numbers, which wrap at 2**16.
"""

from __future__ import annotations

from typing import Generic, Protocol, TypeVar

SEQ_WRAP = 1 << 16
MAX_BEHIND = 100  # further behind than this, the sender has restarted its numbering: start over


class Sequenced(Protocol):
    @property
    def sequence_number(self) -> int: ...


P = TypeVar("P", bound=Sequenced)


class AudioReorder(Generic[P]):
    """Give each added packet back in sequence order, once ``depth`` newer ones have arrived."""

    def __init__(self, depth: int = 4):
        self.depth = depth
        self._held: dict[int, P] = {}
        self._next: int | None = None  # the sequence number due out next
        self._newest = 0  # how far the newest arrival is ahead of ``_next``

    def add(self, packet: P) -> P | None:
        """The packet due out now, if any: at most one per arrival, so the delay cannot grow."""
        seq = packet.sequence_number % SEQ_WRAP
        if self._next is None:
            self._next = seq
        ahead = (seq - self._next) % SEQ_WRAP
        if ahead >= SEQ_WRAP // 2:  # behind what was already given out (or skipped)
            if SEQ_WRAP - ahead < MAX_BEHIND:
                return None  # too late, or a duplicate
            self._held.clear()
            self._next, ahead, self._newest = seq, 0, 0
        self._held[seq] = packet
        self._newest = max(self._newest, ahead)
        while self._newest >= self.depth:
            due = self._held.pop(self._next, None)
            if due is not None:
                self._advance(1)
                return due
            self._advance(self._gap_length())
        return None

    def _gap_length(self) -> int:
        """How many sequence numbers, from the next due, are missing: up to the first held packet."""
        return min((seq - self._next) % SEQ_WRAP for seq in self._held) if self._held else self._newest + 1

    def _advance(self, count: int) -> None:
        self._next = (self._next + count) % SEQ_WRAP
        self._newest -= count
