"""Admission: how many connections and sessions one address and the whole server may hold,
and how fast an address may fail authentication.  Plain bookkeeping, no I/O, time passed in.

The server asks before it accepts (``admit_*`` return a refusal or None) and reports what
ends (``release_*``); counts never go below zero, so a release that was never admitted is harmless.
"""

from __future__ import annotations

from collections import Counter, deque
from dataclasses import dataclass
from typing import Callable

from streamtwin.speech.capacity import room_for_one_more

MAX_TRACKED_ADDRESSES = 4096


@dataclass(frozen=True)
class Limits:
    max_connections: int = 256
    max_connections_per_address: int = 32
    max_sessions: int = 2
    max_sessions_per_address: int = 2
    max_speech_load: float = 0.85  # refuse a session that would take the speech engine past this share (0: off)
    auth_failures: int = 10  # per address within auth_window_s; then that address is refused
    auth_window_s: float = 60.0


@dataclass(frozen=True)
class Verdict:
    code: str
    message: str


class Admission:
    def __init__(self, limits: Limits, speech_load: Callable[[], float] | None = None):
        """``speech_load``: the speech engine's recent peak share of its workers (measured capacity)."""
        self.limits = limits
        self.speech_load = speech_load
        self.connections: Counter[str] = Counter()
        self.sessions: Counter[str] = Counter()
        self._failures: dict[str, deque[float]] = {}

    # --- connections and sessions --------------------------------------------------------
    def admit_connection(self, address: str) -> Verdict | None:
        """A locked-out address still connects: it may carry a session's own token (see :meth:`locked_out`)."""
        limits = self.limits
        return _admit(self.connections, address, limits.max_connections, limits.max_connections_per_address, "connections")

    def release_connection(self, address: str) -> None:
        _decrement(self.connections, address)

    def admit_session(self, address: str) -> Verdict | None:
        limits = self.limits
        sessions = sum(self.sessions.values())
        if self.speech_load is not None and sessions < limits.max_sessions:
            load = self.speech_load()
            if not room_for_one_more(load, sessions, limits.max_speech_load):
                return Verdict(
                    "busy",
                    f"speech recognition is using {load:.0%} of this machine with {sessions} session(s); "
                    "another one would fall behind real time; try again later",
                )
        return _admit(self.sessions, address, limits.max_sessions, limits.max_sessions_per_address, "sessions")

    def admit_participant(self) -> Verdict | None:
        """Another participant joining a room.  The room already holds its session; people in a room take
        turns, so one more adds little speech to decode until the engine is saturated, and that is the
        one refusal here: the room's size is its roster's (``--max-participants``)."""
        limits = self.limits
        if self.speech_load is None or limits.max_speech_load <= 0:
            return None
        load = self.speech_load()
        if load <= limits.max_speech_load:
            return None
        return Verdict(
            "busy",
            f"speech recognition is using {load:.0%} of this machine (the limit is "
            f"{limits.max_speech_load:.0%}); another participant would fall behind real time; try again later",
        )

    def release_session(self, address: str) -> None:
        _decrement(self.sessions, address)

    # --- authentication failures -----------------------------------------------------------
    # Only the access token counts: the operator's secret, which may be guessable.  Viewer, join and resume
    # tokens are 128 random bits: guessing them is hopeless, and refusing them would end meetings.
    def auth_failed(self, address: str, now: float) -> None:
        if len(self._failures) >= MAX_TRACKED_ADDRESSES:  # many addresses: forget the stale ones
            for stale in list(self._failures):
                self._recent(stale, now)
        self._recent(address, now)
        self._failures.setdefault(address, deque()).append(now)

    def locked_out(self, address: str, now: float) -> bool:
        """Whether the access token is refused from ``address`` without being looked at."""
        return len(self._recent(address, now)) >= self.limits.auth_failures

    def _recent(self, address: str, now: float) -> deque[float]:
        """The failures of ``address`` within the window (an address with none is forgotten)."""
        failures = self._failures.get(address)
        if failures is None:
            return deque()
        while failures and failures[0] <= now - self.limits.auth_window_s:
            failures.popleft()
        if not failures:
            del self._failures[address]
        return failures


def _admit(counter: Counter[str], address: str, total: int, per_address: int, what: str) -> Verdict | None:
    """Count one more for ``address`` unless a cap is reached."""
    if sum(counter.values()) >= total:
        return Verdict("busy", f"the server holds its maximum of {total} {what}; try again later")
    if counter[address] >= per_address:
        return Verdict(f"too_many_{what}", f"this address holds its maximum of {per_address} {what}")
    counter[address] += 1
    return None


def _decrement(counter: Counter[str], key: str) -> None:
    if counter[key] > 1:
        counter[key] -= 1
    else:
        counter.pop(key, None)
