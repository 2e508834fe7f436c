"""When to call the LLM: triggers, preemption, coalescing, heartbeat, speculation, backoff.

The thesis is that inference is cheap and fast but stale work is worthless: the
driver never builds a queue.  New context while a generation runs either
preempts it (cancel, then restart on the fresh context) or is coalesced into ONE
pending start that fires when a slot frees up.  Questions addressed to the
assistant outrank everything and are never preempted by ordinary speech.

It also keeps track of the question being answered: the last words addressed to the assistant, which
utterance they came from, and which generation answers them, so that a second decode of that utterance
that hears the question differently (or hears a question the first decode missed) asks it again.

Plain class: inputs are method calls with ``now`` passed in, outputs are lists
of :class:`Start` / :class:`Cancel` commands for the adapter to carry out.  The
adapter reports back with :meth:`DriverPolicy.on_generation_done` or
:meth:`DriverPolicy.on_backend_error`, calls :meth:`DriverPolicy.tick` when
:meth:`DriverPolicy.next_deadline` passes, and runs the commands in order.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

HEARTBEAT = "heartbeat"
SCENE = "scene"
FINAL = "final"
QUESTION = "question"

_PRIORITY = {HEARTBEAT: 0, SCENE: 1, FINAL: 2, QUESTION: 3}
# Only new speech is worth throwing work away for; scenes and heartbeats wait.
_PREEMPTIVE = {FINAL, QUESTION}
_GREETINGS = {"hey", "hi", "hello", "ok", "okay", "so"}
GIVE_UP_FAILURES = 3  # consecutive backend failures after which the end of a session stops waiting for it


@dataclass(frozen=True)
class Start:
    gen_id: int
    trigger: str
    speculative_text: str | None = None
    question: str | None = None  # a question generation's question: the words addressed to the assistant
    asker: str = ""  # who asked it: a speaker's name or voice label, a participant's name, or "viewer"


@dataclass(frozen=True)
class Cancel:
    gen_id: int
    reason: str  # preempted | speculation_mismatch | question_revised


Command = Start | Cancel


@dataclass
class _Speculation:
    gen_id: int
    normalized: str
    trigger: str  # a final that turns out to be a question needs an answer, not a comment
    running: bool = True

    def matches(self, final_text: str, final_trigger: str) -> bool:
        return normalize_utterance(final_text) == self.normalized and final_trigger == self.trigger


def normalize_utterance(text: str) -> str:
    """Lowercase words only: a partial and its final differ mostly in case and punctuation."""
    return " ".join(re.findall(r"[a-z0-9']+", text.lower()))


def _higher(current: str | None, trigger: str) -> str:
    if current is None or _PRIORITY[trigger] > _PRIORITY[current]:
        return trigger
    return current


class DriverPolicy:
    """Decides which generations run; at most ``max_in_flight`` at a time, never a queue."""

    def __init__(
        self,
        max_in_flight: int = 1,
        preempt: bool = True,
        heartbeat_s: float = 20.0,
        debounce_s: float = 0.0,
        speculative: bool = False,
        *,
        speculative_min_s: float = 0.0,
        assistant_names: tuple[str, ...] = ("assistant",),
        backoff_initial_s: float = 1.0,
        backoff_max_s: float = 30.0,
    ) -> None:
        if max_in_flight < 1:
            raise ValueError("max_in_flight must be >= 1")
        self.max_in_flight = max_in_flight
        self.preempt = preempt
        self.heartbeat_s = heartbeat_s
        self.debounce_s = debounce_s
        self.speculative = speculative
        self.speculative_min_s = speculative_min_s
        self.assistant_names = tuple(name.lower() for name in assistant_names)
        self.backoff_initial_s = backoff_initial_s
        self.backoff_max_s = backoff_max_s

        self._running: dict[int, str] = {}  # gen_id -> trigger
        self._next_id = 1
        self._pending: str | None = None  # the ONE coalesced start waiting for a slot
        self._pending_due = -math.inf
        self._dirty = False  # context changed since the last start
        self._dirty_since: float | None = None
        self._last_start: float | None = None
        self._backoff_until = -math.inf
        self._failures = 0
        self._partial = ""
        self._partial_seen = 0
        self._partial_since = 0.0
        self._speculation: _Speculation | None = None
        self._question = ""  # the latest question to us, as heard (or typed)
        self._asker = ""  # who asked it
        self._question_utterance = 0  # the speech stage's number of the utterance it came from
        self._answering: tuple[int, int] | None = None  # (that utterance, the generation answering it)

    # --- inputs ---------------------------------------------------------------

    def is_addressed(self, text: str) -> bool:
        """Speaks to the assistant: "Assistant, ...", "Hey assistant ...", "..., assistant, ...".

        A question people ask each other ("Are we still launching next month?") is
        context for the assistant, not a task: it gets no question trigger.
        """
        return self.addressed_part(text) is not None

    def addressed_part(self, text: str) -> str | None:
        """The part of an utterance spoken to the assistant, from the sentence that addresses
        it on ("Fine. Assistant, who owns that?" -> "Assistant, who owns that?"), or None."""
        for match in re.finditer(r"(?:^|(?<=[.!?])\s+)(\S.*?)(?=(?<=[.!?])\s+|$)", text.strip()):
            sentence = match.group(1)
            words = normalize_utterance(sentence).split()
            if words and words[0] in _GREETINGS:
                words = words[1:]
            lowered = sentence.lower()
            if (words and words[0] in self.assistant_names) or any(
                re.search(rf"\b{re.escape(name)}\s*,", lowered) for name in self.assistant_names
            ):
                return text.strip()[match.start(1) :]
        return None

    def on_final(self, now: float, text: str, utterance: int = 0, speaker: str = "") -> list[Command]:
        """A committed transcript line entered the context (``utterance``: the speech stage's number for it,
        0 when unknown; ``speaker``: who said it, if known)."""
        self._partial, self._partial_seen = "", 0
        asked = self.addressed_part(text)
        if asked is not None:
            self._question, self._question_utterance, self._asker = asked, utterance, speaker
        trigger = FINAL if asked is None else QUESTION
        if self._speculation is not None and self._speculation.matches(text, trigger):
            self._speculation = None
            return []  # kept: that generation already works on exactly this text
        commands = self._drop_speculation()
        self._mark_dirty(now)
        return commands + self._request(now, trigger)

    def on_typed_question(self, now: float, text: str, asker: str) -> list[Command] | None:
        """A question typed to the assistant (no speech to wait for): its answer starts at once, preempting a
        comment as a spoken question would; the commands hold its :class:`Start`.

        None when it cannot start now: another question is being answered or waits (nothing preempts an
        answer, and there is no queue: this asker hears that the assistant is busy instead of a spoken
        question silently replacing theirs), or the backend is backing off after a failure.
        """
        if QUESTION in self._running.values() or self._pending == QUESTION or now < self._backoff_until:
            return None
        if len(self._running) >= self.max_in_flight and self._victim(QUESTION) is None:
            return None
        self._question, self._question_utterance, self._asker = text, 0, asker
        commands = self._drop_speculation()
        self._mark_dirty(now)
        return commands + self._request(now, QUESTION)

    def on_revision(self, now: float, utterance: int, text: str, first_reading: str | None) -> list[Command]:
        """Utterance ``utterance`` was decoded again and reads ``text`` (``first_reading``: what its finals said,
        while it is still known).  If it is the question being answered and now asks something else ("what is
        time working on" -> "what is Tom working on"), the question is asked again while the answer still
        runs; if its first reading missed that it was a question to us at all ("Assistant," heard as "Is this
        true,"), it is asked now."""
        asked = self.addressed_part(text)
        if asked is None or not utterance:
            return []
        answering = self._answering
        if answering is not None and answering[0] == utterance:
            if normalize_utterance(asked) == normalize_utterance(self._question):
                return []
            self._question = asked
            return self._ask_again(now, answering[1])
        if first_reading is not None and self.addressed_part(first_reading) is None:
            self._question, self._question_utterance = asked, utterance
            return self._ask_revealed(now)
        return []

    def _ask_again(self, now: float, gen_id: int) -> list[Command]:
        """The question generation ``gen_id`` answers was heard better (the utterance's second decode):
        if it still runs, it is answering words nobody said; cancel it and ask again.  A finished
        answer stands (on a fast backend it was shown before the revision came)."""
        if self._running.get(gen_id) != QUESTION:
            return []
        del self._running[gen_id]
        if self._speculation is not None and self._speculation.gen_id == gen_id:
            self._speculation = None
        return [Cancel(gen_id, "question_revised"), *self._request(now, QUESTION)]

    def _ask_revealed(self, now: float) -> list[Command]:
        """An utterance's second decode heard a question to the assistant that its finals did not: it is
        asked now, as a final that asked it would have been."""
        return self._drop_speculation() + self._request(now, QUESTION)

    def on_partial(self, now: float, text: str) -> list[Command]:
        """The uncommitted tail changed (or was repeated); may start a speculative generation."""
        if not self.speculative:
            return []
        normalized = normalize_utterance(text)
        if not normalized:
            return []  # a cleared tail says nothing about what the final will be
        commands: list[Command] = []
        if self._speculation is not None and normalized != self._speculation.normalized:
            commands = self._drop_speculation()
        if normalized != self._partial:
            self._partial, self._partial_seen, self._partial_since = normalized, 1, now
            return commands
        self._partial_seen += 1
        stable = self._partial_seen >= 2 and now - self._partial_since >= self.speculative_min_s
        idle = not self._running and self._pending is None and now >= self._backoff_until
        if stable and idle and self._speculation is None:
            trigger = QUESTION if self.is_addressed(text) else FINAL
            start = self._start(now, trigger, speculative_text=text)
            self._speculation = _Speculation(start.gen_id, normalized, trigger)
            commands.append(start)
        return commands

    def on_scene(self, now: float) -> list[Command]:
        """The picture changed enough to be worth a look."""
        self._mark_dirty(now)
        return self._request(now, SCENE)

    def note_context(self, now: float) -> None:
        """Context changed without being a trigger of its own: the heartbeat will pick it up."""
        self._mark_dirty(now)

    def on_generation_done(self, now: float, gen_id: int, cancelled: bool = False) -> list[Command]:
        """A generation ended (completed or cancelled); a pending start may take its slot."""
        self._running.pop(gen_id, None)
        if self._speculation is not None and self._speculation.gen_id == gen_id:
            self._speculation.running = False
        if not cancelled:
            self.on_backend_ok()
        return self._dispatch(now)

    def on_backend_ok(self) -> None:
        """Any backend call succeeded: the next failure starts the backoff afresh."""
        self._failures = 0

    def on_backend_error(self, now: float, retry_after: float | None = None, gen_id: int | None = None) -> None:
        """A backend call failed: back off (honouring ``retry_after``); a failed generation is retried later."""
        trigger = self._running.pop(gen_id, None) if gen_id is not None else None
        if trigger is not None:
            self._mark_dirty(now)  # what it was working on was not answered
            if self._speculation is not None and self._speculation.gen_id == gen_id:
                self._speculation = None  # the final will ask again
            else:
                self._pending = _higher(self._pending, trigger)
        self._failures += 1
        delay = retry_after if retry_after is not None else self.backoff_initial_s * 2 ** (self._failures - 1)
        self._backoff_until = max(self._backoff_until, now + min(delay, self.backoff_max_s))

    def tick(self, now: float) -> list[Command]:
        """Time passed: fire a debounced or backed-off start, or a heartbeat."""
        commands = self._dispatch(now)
        if commands or self._pending is not None or self._running:
            return commands
        heartbeat_at = self._heartbeat_at()
        if heartbeat_at is not None and now >= heartbeat_at:
            return self._request(now, HEARTBEAT)
        return []

    # --- state for the adapter ----------------------------------------------

    def next_deadline(self) -> float | None:
        """When :meth:`tick` may have something to do (None: only a new input can change things)."""
        if self._pending is not None:
            if len(self._running) < self.max_in_flight or self._victim(self._pending) is not None:
                return max(self._pending_due, self._backoff_until)
            return None  # waiting for a generation to end
        if self._running:
            return None
        heartbeat_at = self._heartbeat_at()
        return None if heartbeat_at is None else max(heartbeat_at, self._backoff_until)

    def given_up(self, now: float) -> bool:
        """The backend failed ``GIVE_UP_FAILURES`` times in a row and is still backed off: at the end of a
        session, waiting longer for it only delays the end (the twin keeps what the rules found)."""
        return self._failures >= GIVE_UP_FAILURES and now < self._backoff_until

    def backoff_until(self) -> float:
        """Before this time no backend call should be made (the twin and summary calls honour it too)."""
        return self._backoff_until

    @property
    def busy(self) -> bool:
        """A generation runs or one is pending."""
        return bool(self._running) or self._pending is not None

    # --- internals ------------------------------------------------------------

    def _drop_speculation(self) -> list[Command]:
        """Forget the speculation; cancel its generation if it still runs."""
        speculation, self._speculation = self._speculation, None
        if speculation is None or not speculation.running or speculation.gen_id not in self._running:
            return []
        del self._running[speculation.gen_id]
        return [Cancel(speculation.gen_id, "speculation_mismatch")]

    def _mark_dirty(self, now: float) -> None:
        if not self._dirty:
            self._dirty, self._dirty_since = True, now

    def _heartbeat_at(self) -> float | None:
        if not self._dirty or self._dirty_since is None:
            return None
        base = self._last_start if self._last_start is not None else self._dirty_since
        return base + self.heartbeat_s

    def _request(self, now: float, trigger: str) -> list[Command]:
        if self._pending is None:
            self._pending_due = now if trigger == QUESTION else now + self.debounce_s
        elif trigger == QUESTION:
            self._pending_due = now  # a question does not wait for the debounce
        self._pending = _higher(self._pending, trigger)
        return self._dispatch(now)

    def _dispatch(self, now: float) -> list[Command]:
        if self._pending is None or now < self._pending_due or now < self._backoff_until:
            return []
        commands: list[Command] = []
        if len(self._running) >= self.max_in_flight:
            victim = self._victim(self._pending)
            if victim is None:
                return []  # coalesced: starts when a generation ends
            del self._running[victim]
            if self._speculation is not None and self._speculation.gen_id == victim:
                self._speculation = None
            commands.append(Cancel(victim, "preempted"))
        trigger, self._pending = self._pending, None
        commands.append(self._start(now, trigger))
        return commands

    def _victim(self, trigger: str) -> int | None:
        """The oldest running generation that ``trigger`` may preempt, if any.

        Nothing preempts an answer to a question, not even a newer question: that one
        waits for the slot (someone asked, and is waiting for this answer)."""
        if not self.preempt or trigger not in _PREEMPTIVE:
            return None
        for gen_id, running_trigger in self._running.items():
            if running_trigger != QUESTION:
                return gen_id
        return None

    def _start(self, now: float, trigger: str, speculative_text: str | None = None) -> Start:
        gen_id, self._next_id = self._next_id, self._next_id + 1
        self._running[gen_id] = trigger
        self._last_start = now
        self._dirty, self._dirty_since = False, None
        question, asker = None, ""
        if trigger == QUESTION:
            question = speculative_text or self._question
            if not speculative_text:
                self._answering = (self._question_utterance, gen_id)
                asker = self._asker
        return Start(gen_id, trigger, speculative_text, question, asker)
