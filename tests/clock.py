"""A clock the test moves: classes that take a ``clock`` run on it instead of the wall clock, without waiting."""

from __future__ import annotations


class Clock:
    """``clock()`` is ``now``, which the test sets; it starts at 1000 s, well away from zero."""

    def __init__(self, now: float = 1000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now
