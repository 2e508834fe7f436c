"""How much work a twin update can afford: best-of-N samples and K refine rounds, from measured speed.

A fast backend can draft several candidate twins (the verifier picks one) and
critique-and-revise the best a few times, and the update still lands within
its latency budget (1 s by default); a CPU model cannot afford even one extra
call.  So the choice is made from what the backend's recent streams measured:
one call of a twin reply costs ``ttft + reply_tokens / tokens_per_s``, the
budget holds ``rounds`` such calls one after another, and

* samples run at once when the backend sustains that many streams (one round),
  else one after another, taking up to half the rounds;
* the rounds left over are refine rounds.

Nothing measured yet, or only measurements older than ``max_age_s`` (the
backend's speed changes with its load and rate limits): one sample, no
refinement, as for a slow model.  ``samples``/``refine`` given by the person
(``--samples``, ``--refine``) are used as given.

Plain class: no I/O, no clock; ``now`` is passed in.
"""

from __future__ import annotations

import math
import statistics
from collections import deque
from dataclasses import dataclass


@dataclass(frozen=True)
class Effort:
    """The choice for one twin update; ``call_s`` is the predicted time of one call (None: unmeasured)."""

    samples: int
    refine: int
    budget_s: float
    call_s: float | None = None


@dataclass(frozen=True)
class _Stream:
    at: float
    ttft_s: float
    tokens_per_s: float


class EffortPolicy:
    def __init__(
        self,
        budget_s: float = 1.0,
        *,
        parallel: int = 1,
        samples: int | None = None,
        refine: int | None = None,
        max_samples: int = 5,
        max_refine: int = 3,
        reply_tokens: int = 512,
        keep: int = 8,
        max_age_s: float = 300.0,
    ) -> None:
        """``parallel``: streams the backend sustains at once; ``samples``/``refine``: fixed by the
        person (None: chosen here); ``reply_tokens``: the twin reply's size until one is measured."""
        self.budget_s = budget_s
        self.parallel = max(1, parallel)
        self.fixed_samples = samples
        self.fixed_refine = refine
        self.max_samples = max_samples
        self.max_refine = max_refine
        self.max_age_s = max_age_s
        self._reply_tokens = reply_tokens
        self._streams: deque[_Stream] = deque(maxlen=keep)
        self._replies: deque[int] = deque(maxlen=keep)

    def observe_stream(self, now: float, ttft_s: float, tokens: int, generating_s: float) -> None:
        """A completed stream: its time to first token, and ``tokens`` generated in ``generating_s``
        after the first (streams too short to time are ignored)."""
        if tokens < 2 or generating_s <= 0:
            return
        self._streams.append(_Stream(now, ttft_s, tokens / generating_s))

    def observe_reply(self, tokens: int) -> None:
        """The size of a twin reply, so the next plan prices the calls it will make."""
        if tokens > 0:
            self._replies.append(tokens)

    def call_s(self, now: float) -> float | None:
        """The predicted duration of one twin call, from fresh measurements (medians); None if none."""
        fresh = [s for s in self._streams if now - s.at <= self.max_age_s]
        if not fresh:
            return None
        ttft = statistics.median(s.ttft_s for s in fresh)
        rate = statistics.median(s.tokens_per_s for s in fresh)
        reply = statistics.median(self._replies) if self._replies else self._reply_tokens
        return ttft + reply / rate

    def plan(self, now: float) -> Effort:
        call_s = self.call_s(now)
        rounds = math.floor(self.budget_s / call_s) if call_s else 0
        samples = self.fixed_samples or self._samples(rounds)
        taken = 1 if samples <= self.parallel else samples  # rounds the samples take
        refine = self.fixed_refine if self.fixed_refine is not None else min(self.max_refine, max(0, rounds - taken))
        return Effort(samples, refine, self.budget_s, None if call_s is None else round(call_s, 4))

    def _samples(self, rounds: int) -> int:
        """At once, as many as the backend takes; or one after another within half the rounds (the
        first included), if that gives more."""
        if rounds < 1:
            return 1
        together = min(self.max_samples, self.parallel)
        one_by_one = 1 + min(self.max_samples - 1, rounds // 2)
        return max(together, one_by_one)
