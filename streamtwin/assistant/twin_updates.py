"""One twin update: a schema-constrained call (N samples, voted, and up to K revisions, as many as
the backend's measured speed fits in the update's latency budget), judged by the verifier
against everything heard this session, joined with the rule-based draft, published as a
patch.  Without a model the draft alone is the twin.

The thinking is in :mod:`streamtwin.twin.model`; a :class:`TwinUpdater` carries one update out with a
:class:`~streamtwin.assistant.llm_calls.Caller`, and :class:`TwinJobs` says when updates run (every few utterances
and after answers, one at a time, never during the driver's backoff nor in a question's way).
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
from collections import deque
from typing import Any, Callable

from streamtwin.events import Error, Event, TwinPatch
from streamtwin.llm.backend import ChatRequest
from streamtwin.assistant.llm_calls import Caller
from streamtwin.assistant.context import ContextWindow, approx_tokens
from streamtwin.assistant.driver import DriverPolicy
from streamtwin.assistant.effort import Effort, EffortPolicy
from streamtwin.twin.heard import HeardIndex
from streamtwin.vision.images import Sighting, settle_scene
from streamtwin.twin.revisable import RevisableRules
from streamtwin.twin import standalone
from streamtwin.twin.item_ids import assign_ids
from streamtwin.twin.model import MAX_ITEMS, TWIN_RESPONSE_FORMAT, TwinModel
from streamtwin.twin.merge import (
    merge_draft, not_asked_of_us, not_the_askers, owners_among, retracted_dropped, summary_true_to_items,
    unowned_repeats_dropped,
)
from streamtwin.twin.verifier import Verdict, Verifier
from streamtwin.assistant.prompts import REVISE_INSTRUCTION, TWIN_INSTRUCTION


RESTATE_BUDGET_S = 60.0  # a restatement on a busy CPU; a fast backend takes a tenth of a second


class TwinUpdater:
    def __init__(
        self,
        caller: Caller | None,
        window: ContextWindow,
        heard: HeardIndex,
        emit: Callable[[Event], Any],
        clock: Callable[[], float],
        report_error: Callable[[BaseException], Any],
        *,
        max_tokens: int,
        effort: EffortPolicy,
    ) -> None:
        self.caller = caller
        self.window = window
        self.heard = heard
        self._emit = emit
        self._clock = clock
        self._report_error = report_error
        self.max_tokens = max_tokens
        self.effort = effort
        self.twin = TwinModel()
        self.verifier = Verifier()
        self.rules = RevisableRules()
        self.restatements = standalone.Restatements()
        self.sighting: Sighting | None = None  # what set the scene the camera shows
        self._shown_digest: tuple[int, ...] = ()  # the rules' draft as of the last patch (what show_rules compares)
        self._voice_names: dict[str, str] = {}  # voice label -> the name it gave
        self._respoken: list[tuple[str, str, str]] = []  # (task, "owner", old owner) moved by a speaker.turns
        self._asked: deque[str] = deque(maxlen=32)  # the latest questions to the assistant
        # Every entry the rules have drafted (the latest of each kind): what a revision may take back.
        self._drafted: dict[str, deque[Any]] = {
            kind: deque(maxlen=4 * MAX_ITEMS) for kind in ("action_items", "decisions", "open_questions")
        }

    def see(self, at: float, description: str, scene_change: bool) -> None:
        """Keep the first sighting and every scene change: the twin's scene settles on the latest."""
        if scene_change or self.sighting is None:
            self.sighting = Sighting(at, description)

    def add(self, said: str, speaker: str = "", utterance: int = 0) -> None:
        """What people said to each other in utterance number ``utterance`` (0: unnumbered)."""
        self.rules.add(said, speaker, utterance)

    def revise(self, utterance: int, said: str) -> None:
        """Utterance ``utterance`` was decoded again: the rules read it (and what followed) anew; the
        next update publishes what changed."""
        self.rules.revise(utterance, said)

    def respeak(self, utterance: int, speaker: str) -> None:
        """Utterance ``utterance`` turned out to be another voice's (a ``speaker.turns``): the rules read it, and
        what followed, anew under that voice.  An owner that moves with it replaces the one already shown (the
        twin keeps a shown owner unless a later statement replaced it, and this is one)."""
        self._moving_owners(lambda: self.rules.revise(utterance, speaker=speaker))

    def split(self, utterance: int, parts: list[tuple[str, str]]) -> None:
        """Utterance ``utterance`` held several voices (a split ``speaker.turns``): each (text, speaker) part is
        read as its voice's; owners move with it as with :meth:`respeak`."""
        self._moving_owners(lambda: self.rules.split(utterance, parts))

    def _moving_owners(self, reread: Callable[[], bool]) -> None:
        before = {entry["text"]: entry["owner"] for entry in self.rules.extractor.draft()["action_items"]}
        reread()
        for entry in self.rules.extractor.draft()["action_items"]:
            old = before.get(entry["text"])
            if old and old != entry["owner"]:
                self._respoken.append((entry["text"], "owner", old))

    def asked(self, question: str) -> None:
        """A question to the assistant: the assistant answers it, the twin does not list it as open."""
        self._asked.append(question)

    def name_voice(self, label: str, name: str) -> None:
        """A voice labelled ``label`` gave its name (each of its finals says it again): its tasks are that
        person's."""
        if self._voice_names.get(label) != name:
            self._voice_names[label] = name
            self.rules.rename(label, name)

    def voice_name(self, label: str) -> str:
        """Who the voice labelled ``label`` is: the name it gave, else the one the rules saw it answer to."""
        return self._voice_names.get(label) or self.rules.extractor.voice_name(label)

    def show_rules(self, media_time: float) -> None:
        """Publish at once what the rules found since the last patch (an item said explicitly reaches
        viewers with its utterance, not after the next model update, which on a CPU takes tens of seconds).
        Nothing is sent when nothing changed; the model's next update joins the same draft."""
        if self._draft_digest() != self._shown_digest:
            self._publish(self._unchanged(), ["rules"], self.sighting, media_time, media_time)

    def _draft_digest(self) -> tuple[int, ...]:
        draft = self.rules.extractor.draft()
        return tuple(hash(json.dumps(draft[kind], sort_keys=True)) for kind in ("action_items", "decisions",
                                                                                 "open_questions", "people"))

    def freshest(self) -> dict[str, Any]:
        """The twin with what the rules found since its last update (grounded): for answers,
        which should not wait for the next update."""
        return self._grounded(self.twin.state)

    def _grounded(self, state: dict[str, Any]) -> dict[str, Any]:
        """Joined with the rules' draft, pruned to what was heard, owners only people and not those who
        asked for the task, no question to us as open, no unowned item that repeats another entry."""
        draft = self.restatements.apply(self.rules.extractor.draft())
        state = self.restatements.apply(state)
        for label, name in {**self.rules.extractor.voice_names(), **self._voice_names}.items():
            self.heard.name_voice(label, name)  # what a voice said is that person's, for the owner check
        for kind, entries in self._drafted.items():
            entries.extend([e for e in draft[kind] if e not in entries])
        state = retracted_dropped(state, self._drafted, draft)
        superseded = [*self.rules.extractor.superseded(), *self._respoken]
        pruned = self.verifier.prune(merge_draft(state, draft, superseded), self.heard)
        assert pruned is not None
        owned = not_the_askers(owners_among(pruned, self.rules.extractor.persons()), self.rules.extractor.requests())
        return summary_true_to_items(unowned_repeats_dropped(not_asked_of_us(owned, self._asked)))

    async def update(self, context_time: float, media_time: Callable[[], float]) -> None:
        """Draft, verify and publish; raises the backend's error, after publishing what the rules
        found (a model that times out on a busy CPU must not keep the explicit items from viewers)."""
        sighting = self.sighting  # the scene as the update began
        if self.caller is None:
            self._publish(self._unchanged(), ["rules"], sighting, context_time, media_time())
            return
        try:
            await self._update_with_model(sighting, context_time, media_time)
        except Exception:
            self._publish(self._unchanged(), ["rules"], sighting, context_time, media_time())
            raise
        restated = await self._restate()
        if restated:
            self._publish(self._unchanged(), ["restated"], sighting, context_time, media_time(), restated=restated)

    async def _restate(self) -> list[list[str]]:
        """Decisions and open questions of the twin that lean on context ("Forty-two", "We split it") restated
        by the model from the lines around them (:mod:`streamtwin.twin.standalone`); returns [entry, restated]
        of each that changed.  Each entry is tried once; one that made way for a question is tried again with
        the next update."""
        assert self.caller is not None
        wanted = self.restatements.wanted(self.twin.state)
        lines = self.window.grounding_text().splitlines() if wanted else []
        changed: list[list[str]] = []
        for kind, entry in wanted:
            at = standalone.where_said(lines, entry)
            restated = ""
            if at >= 0:
                # The window's front, as every call sends it: the model's cache of it stays warm for the next answer.
                prompt = self.window.render(standalone.instruction(kind, entry, lines[at]))
                request = ChatRequest(prompt.messages, max_tokens=standalone.REPLY_TOKENS)
                try:
                    reply = await self.caller.collect(request, RESTATE_BUDGET_S)
                except TimeoutError:
                    return changed
                owner = standalone.owner_of(self.twin.state, kind, entry)
                restated = standalone.accepted(kind, entry, reply, standalone.evidence(lines, at), owner)
            self.restatements.record(kind, entry, restated)
            if restated and kind == standalone.ITEMS:
                self.heard.restated(restated, entry)  # its owner is judged by the words as said
            if restated:
                changed.append([entry, restated])
        return changed

    def _unchanged(self) -> Verdict:
        """The twin as it is, judged: joined with the rules' draft when published."""
        return self.verifier.pick([json.dumps(self.twin.state)], self.twin, self.heard)

    async def _update_with_model(
        self, sighting: Sighting | None, context_time: float, media_time: Callable[[], float]
    ) -> None:
        effort = self.effort.plan(self._clock())
        budget_end = self._clock() + effort.budget_s
        prompt = self.window.render(TWIN_INSTRUCTION, twin_state=self.twin.state)
        request = ChatRequest(prompt.messages, max_tokens=self.max_tokens, response_format=TWIN_RESPONSE_FORMAT)
        raws = await self._sample(request, effort.samples, budget_end)
        self.effort.observe_reply(approx_tokens(raws[0]))
        origins = ["sample"] * len(raws)
        verdict = self.verifier.vote(raws, self.twin, self.heard)
        for round_number in range(1, effort.refine + 1):
            best = verdict.scores[verdict.winner if verdict.winner is not None else 0]
            critique = self.verifier.critique(best)
            remaining = budget_end - self._clock()
            if not critique or remaining <= 0:
                break
            revise = dataclasses.replace(
                request,
                messages=request.messages
                + [
                    {"role": "assistant", "content": raws[best.index]},
                    {"role": "user", "content": REVISE_INSTRUCTION.format(critique=critique)},
                ],
            )
            try:
                raws.append(await self.caller.collect(revise, remaining))
            except TimeoutError:
                break
            origins.append(f"revision {round_number}")
            verdict = self.verifier.vote(raws, self.twin, self.heard)
        self._publish(verdict, origins, sighting, context_time, media_time(), effort)

    async def _sample(self, request: ChatRequest, samples: int, budget_end: float) -> list[str]:
        """``samples`` candidates: in parallel when the backend sustains it, else one after
        another while the latency budget lasts (the first always runs)."""
        requests = [request] + [dataclasses.replace(request, temperature=0.8) for _ in range(samples - 1)]
        if samples > 1 and self.caller.backend.max_in_flight >= samples:
            results = await asyncio.gather(*(self.caller.collect(r) for r in requests), return_exceptions=True)
            texts = [r for r in results if isinstance(r, str)]
            failures = [r for r in results if isinstance(r, BaseException)]
            if not texts:
                raise failures[0]
            for failure in failures:
                self._report_error(failure)
            return texts
        texts = [await self.caller.collect(requests[0])]
        for extra in requests[1:]:
            remaining = budget_end - self._clock()
            if remaining <= 0:
                break
            try:
                texts.append(await self.caller.collect(extra, remaining))
            except TimeoutError:
                break
        return texts

    def _publish(
        self,
        verdict: Verdict,
        origins: list[str],
        sighting: Sighting | None,
        context_time: float,
        media_time: float,
        effort: Effort | None = None,
        restated: list[list[str]] | None = None,
    ) -> None:
        if verdict.state is None:
            errors = "; ".join(error for score in verdict.scores for error in score.errors[:2])
            self._emit(Error(code="twin_invalid", message=f"model output rejected, the twin takes only what the rules found: {errors}"))
            verdict, origins = self._unchanged(), ["rules"]  # what the rules found still counts
        self._shown_digest = self._draft_digest()
        state = self._grounded(verdict.state)
        state["action_items"] = assign_ids(state["action_items"], self.twin.state["action_items"], self.twin.last_id)
        scene = settle_scene(state["scene"], self.twin.state["scene"], sighting, context_time)
        patch, version = self.twin.apply({**state, "scene": scene})
        if patch:
            why = verdict.why
            why["origins"] = origins
            if effort is not None:
                why["effort"] = dataclasses.asdict(effort)
            if restated:
                why["restated"] = restated
            self._emit(TwinPatch(version=version, patch=patch, why=why, media_time=media_time))


class TwinJobs:
    """Runs :meth:`TwinUpdater.update` as a task: never more than one running and one wanted.

    A wanted update waits for the running one, or for the end of the driver's backoff (the owner's
    alarm wakes :meth:`tick` then, see :meth:`due`); one that failed or made way for a question is
    wanted again.
    """

    def __init__(
        self,
        updater: TwinUpdater,
        policy: DriverPolicy,
        slots: asyncio.Semaphore,
        clock: Callable[[], float],
        media_time: Callable[[], float],
        report_error: Callable[[BaseException], Any],
        rearm: Callable[[], None],
        *,
        enabled: bool,
        every_utterances: int,
    ) -> None:
        self._updater = updater
        self._policy = policy
        self._slots = slots
        self._clock = clock
        self._media_time = media_time
        self._report_error = report_error
        self._rearm = rearm
        self._enabled = enabled
        self._every_utterances = every_utterances
        self._wanted = False
        self._unseen = 0  # utterances not yet in an update
        self.task: asyncio.Task[None] | None = None
        self.closed = False

    @property
    def busy(self) -> bool:
        return self.task is not None or self._wanted

    def on_utterance(self) -> None:
        self._unseen += 1
        if self._unseen >= self._every_utterances:
            self.want()

    def catch_up(self) -> None:
        """Utterances not yet in the twin get an update (after an answer, at the end)."""
        if self._unseen:
            self.want()

    def want(self) -> None:
        """Run an update now, or once the running one ends or the backoff is over."""
        if self.closed or not self._enabled:
            return
        self._wanted = True
        if self.task is not None or self._clock() < self._policy.backoff_until():
            return
        self._wanted = False
        self._unseen = 0
        self.task = asyncio.create_task(self._job(), name="assistant-twin")
        self.task.add_done_callback(self._finished)

    def due(self) -> float | None:
        """When a waiting update may start: the end of the backoff (None: none waits)."""
        return self._policy.backoff_until() if self._wanted and self.task is None else None

    def tick(self, now: float) -> None:
        """The alarm rang: start the waiting update if the backoff is over."""
        if self._wanted and self.task is None and now >= self._policy.backoff_until():
            self.want()

    def make_way(self) -> None:
        """A question must not wait behind a twin update for the backend's slot."""
        if self.task is not None and self._slots.locked():
            self.task.cancel()

    async def _job(self) -> None:
        try:
            await self._updater.update(self._media_time(), self._media_time)
            self._policy.on_backend_ok()
        except Exception as exc:  # noqa: BLE001 - the twin keeps its last valid state
            self._wanted = True
            self._report_error(exc)

    def _finished(self, task: asyncio.Task[None]) -> None:
        if task is self.task:
            self.task = None
        if task.cancelled():
            self._wanted = True  # e.g. it made way for a question: run again later
        # Restarted from the alarm, so work scheduled meanwhile (a question) goes first.
        self._rearm()
