"""Which backend answers an LLM call: failover and racing, decided without I/O or a clock of its own.

A call has *members*, the backends configured for it in order: the first ``race`` of
them are sent the request at once (``race`` = 1: just the primary), the rest are
fallbacks, tried one after another.  :class:`CallRouter` follows one call: the
adapter (:mod:`streamtwin.llm.failover`) tells it what happened (a member's token, its
end, its error, the time passing) and does what it answers (:class:`Launch`,
:class:`Cancel`, :class:`Answer`, :class:`GiveUp`).

* **Racing.** The first member to produce a token answers; the others are cancelled (and
  stand by: should the winner fail, they are the first to take over).
* **Failover.** A member fails when it errors or *stalls* (:class:`TokenDeadline`): no
  first token within ``first_token_s`` of its launch, or no further token within
  ``stall_s`` of the last one.  The next member takes over.  Before the first token nobody saw
  anything; after it the new member starts the answer again (``Answer.restart``:
  the text shown so far is withdrawn), since providers cannot continue each other's
  half-sentences reliably.
* **Memory across calls** (:class:`BackendHealth`): a member that failed rests for
  its provider's ``retry-after``, else for a cool-down that doubles with each failure
  in a row (10 s up to 2 min), so later calls do not each wait out the same stall;
  a resting member is tried only when no other is left.

A single backend has nothing to fail over to, but its stalls are judged by the same
:class:`TokenDeadline` (:mod:`streamtwin.llm.watchdog`), so they end the call long before
its SDK's read timeout.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

PRIMARY = "primary"  # the first member answered, nothing went wrong
RACE = "race"  # the first of several members sent the request at once to produce a token
FALLBACK = "fallback"  # the members before it failed, stalled or were resting

COOLDOWN_S = 10.0
MAX_COOLDOWN_S = 120.0


@dataclass(frozen=True)
class Launch:
    """Send the call's request to ``member``."""

    member: int


@dataclass(frozen=True)
class Cancel:
    """Stop ``member``'s stream and ignore whatever it still sends (a later :class:`Launch` of it is a new stream)."""

    member: int
    reason: str


@dataclass(frozen=True)
class Answer:
    """From now on ``member``'s stream is the call's (announced before its first token is passed on).

    ``restart``: ``previous`` had already passed text on before it failed; that text is withdrawn.
    """

    member: int
    route: str
    reason: str = ""
    previous: int | None = None
    restart: bool = False


@dataclass(frozen=True)
class GiveUp:
    """Every member failed: the call fails with ``member``'s failure (the last one); ``reason`` lists them all."""

    member: int
    reason: str
    stalled: bool  # the last failure was a stall (no error of its own to raise)


Action = Launch | Cancel | Answer | GiveUp


@dataclass
class _Rest:
    until: float
    failures: int


class BackendHealth:
    """Which members failed lately, shared by every call of one backend set."""

    def __init__(self, cooldown_s: float = COOLDOWN_S, max_cooldown_s: float = MAX_COOLDOWN_S) -> None:
        self.cooldown_s = cooldown_s
        self.max_cooldown_s = max_cooldown_s
        self._rest: dict[int, _Rest] = {}

    def failed(self, member: int, now: float, retry_after: float | None = None) -> None:
        failures = self._rest[member].failures + 1 if member in self._rest else 1
        cooldown = min(self.max_cooldown_s, self.cooldown_s * 2 ** (failures - 1))
        self._rest[member] = _Rest(now + max(cooldown, retry_after or 0.0), failures)

    def succeeded(self, member: int) -> None:
        self._rest.pop(member, None)

    def resting(self, member: int, now: float) -> bool:
        rest = self._rest.get(member)
        return rest is not None and now < rest.until

    def order(self, members: Sequence[int], now: float) -> list[int]:
        """``members`` in their order, those resting last (the soonest back first)."""
        ready = [m for m in members if not self.resting(m, now)]
        resting = sorted((m for m in members if self.resting(m, now)), key=lambda m: self._rest[m].until)
        return ready + resting


@dataclass
class TokenDeadline:
    """When one stream has stalled: no first token ``first_token_s`` after its launch, or no next one
    ``stall_s`` after the last."""

    launched: float
    first_token_s: float
    stall_s: float
    last_token: float | None = None

    def deadline(self) -> float:
        if self.last_token is None:
            return self.launched + self.first_token_s
        return self.last_token + self.stall_s

    def why(self) -> str:
        """What a stream past its deadline did wrong, for people."""
        if self.last_token is None:
            return f"no first token in {self.first_token_s:g} s"
        return f"stalled, no token for {self.stall_s:g} s"


@dataclass
class CallRouter:
    """One call over ``members`` backends (the first ``race`` sent the request together)."""

    health: BackendHealth
    members: int
    race: int = 1
    first_token_s: float = 5.0
    stall_s: float = 3.0
    names: Sequence[str] = ()  # for the reasons people read; member numbers otherwise
    answering: int | None = None
    done: bool = False
    _running: dict[int, TokenDeadline] = field(default_factory=dict)
    _waiting: list[int] = field(default_factory=list)
    _failures: list[str] = field(default_factory=list)
    _first: list[int] = field(default_factory=list)  # launched at the start (together, if a race)
    _withdrawn: int | None = None  # a member whose text was shown, then failed

    def start(self, now: float) -> list[Action]:
        order = self.health.order(range(self.members), now)
        ready = [m for m in order if not self.health.resting(m, now)]
        first = self._first = [m for m in ready if m < self.race] or order[:1]
        for member in range(self.members):
            if member not in ready:
                self._failures.append(f"{self._name(member)}: resting after a failure")
        self._waiting = [m for m in order if m not in first]
        for member in first:
            self._launch(member, now)
        return [Launch(m) for m in first]

    # --- what happened ------------------------------------------------------------

    def on_token(self, member: int, now: float) -> list[Action]:
        running = self._running.get(member)
        if running is None:
            return []  # cancelled or failed already: whatever it still sends is stale
        running.last_token = now
        if self.answering == member:
            return []
        return self._answer(member)

    def on_finished(self, member: int, now: float) -> list[Action]:
        """``member``'s stream ended well (possibly with no token at all: an empty answer)."""
        if member not in self._running:
            return []
        actions = [] if self.answering == member else self._answer(member)
        self.health.succeeded(member)
        self._running.clear()
        self.done = True
        return actions

    def on_error(self, member: int, now: float, why: str, retry_after: float | None = None) -> list[Action]:
        if member not in self._running:
            return []
        return self._fail(member, now, f"{self._name(member)}: {why}", retry_after, stalled=False)

    def tick(self, now: float) -> list[Action]:
        """Members past their deadline stall: they are cancelled and count as failed."""
        actions: list[Action] = []
        for member, running in list(self._running.items()):
            if member not in self._running or now < running.deadline():
                continue
            why = running.why()
            actions.append(Cancel(member, why))
            actions += self._fail(member, now, f"{self._name(member)}: {why}", None, stalled=True)
        return actions

    def next_deadline(self) -> float | None:
        """When :meth:`tick` next has something to decide (None: nothing running)."""
        return min((r.deadline() for r in self._running.values()), default=None)

    # --- decisions ------------------------------------------------------------------

    def _launch(self, member: int, now: float) -> None:
        self._running[member] = TokenDeadline(now, self.first_token_s, self.stall_s)

    def _answer(self, member: int) -> list[Action]:
        self.answering = member
        losers = [m for m in self._running if m != member]
        for loser in losers:
            del self._running[loser]
        # Healthy still: should the winner fail mid-stream, they start the answer again before any fallback.
        self._waiting[:0] = losers
        actions: list[Action] = [Cancel(m, "lost the race") for m in losers]
        previous, self._withdrawn = self._withdrawn, None
        if previous is None and member in self._first and len(self._first) > 1:
            route = RACE
        elif previous is None and member in self._first and member == 0:
            route = PRIMARY
        else:
            route = FALLBACK
        reason = "" if route == PRIMARY else "; ".join(self._failures)
        actions.append(Answer(member, route, reason, previous, restart=previous is not None))
        return actions

    def _fail(self, member: int, now: float, why: str, retry_after: float | None, stalled: bool) -> list[Action]:
        running = self._running.pop(member)
        self.health.failed(member, now, retry_after)
        self._failures.append(why)
        if self.answering == member:
            self.answering = None
            if running.last_token is not None:
                self._withdrawn = member
        if self._running:
            return []  # racers still running: one of them may answer yet
        if not self._waiting:
            self.done = True
            return [GiveUp(member, "; ".join(self._failures), stalled)]
        successor = self._waiting.pop(0)
        self._launch(successor, now)
        return [Launch(successor)]

    def _name(self, member: int) -> str:
        return self.names[member] if member < len(self.names) else f"backend {member}"
