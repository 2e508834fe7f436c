"""serve's "Ask all meetings": a question over every session in the event log, answered to the one who asked.

A page says ``{"type": "hello", "role": "meetings"}`` with the access token (checked and locked out as a
publisher's is, :mod:`~streamtwin.service.joins`), then ``{"type": "ask", "text": ...}`` on that connection.
The answer comes from streamtwin/meetings/ (each session read whole, or map then reduce), streamed to that
connection only: ``meetings.started``, ``meetings.delta`` (the last call's text, its quotes not yet checked),
``meetings.done`` (the answer with its quotes checked and its sources: meeting, time, speaker).  A question is
limited as a typed live one is (size, a rate per connection, one answer in flight: streamtwin/assistant/typed.py)
and the server answers at most :data:`MAX_ANSWERING` at once; every refusal is an ``error`` to the asker, and
the connection stays.  Only with an event store in Redis (``serve --redis``) and a language model.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
from typing import Any

from streamtwin.assistant.typed import (
    MAX_QUESTION_CHARS,
    AskLimiter,
    AskRefused,
    check_question,
)
from streamtwin.eventlog.store import EventStore
from streamtwin.llm.backend import Backend, LLMError
from streamtwin.meetings.asking import DEFAULT_ANSWER_TOKENS, answer_question
from streamtwin.meetings.catalog import Catalog
from streamtwin.meetings.library import LibraryError
from streamtwin.service.channel import ClientChannel
from streamtwin.service.protocol import CLOSE_POLICY, Refusal

log = logging.getLogger(__name__)

MAX_ANSWERING = 2  # questions over all meetings answered at once, server-wide: each may read every meeting


class PastMeetings:
    """The meetings connections of one server: who may ask, and their answers in flight."""

    def __init__(self, backend: Backend | None, *, answer_tokens: int = DEFAULT_ANSWER_TOKENS) -> None:
        """``backend``: the model (None: nothing is asked)."""
        self.catalog: Catalog | None = None  # from open(): the sessions of the event log
        self.backend = backend
        self.answer_tokens = answer_tokens
        self._limiters: dict[ClientChannel, AskLimiter] = {}
        self._answering: dict[ClientChannel, asyncio.Task[None]] = {}
        self._numbers = itertools.count(1)

    def open(self, store: EventStore) -> None:
        """Ask the sessions of ``store`` (an event log in Redis: one in memory holds this process's only)."""
        self.catalog = Catalog([], store)

    @property
    def available(self) -> bool:
        return self.catalog is not None and self.backend is not None

    def offer(self) -> bytes | None:
        """What ``GET /meetings`` answers: the page shows its "Ask all meetings" box only when it may."""
        return b'{"ask":true,"max_question_chars":%d}\n' % MAX_QUESTION_CHARS if self.available else None

    def check_available(self) -> None:
        """Raises :class:`Refusal` (fatal) when there is nothing to ask: no event store in Redis, or no model."""
        if not self.available:
            raise Refusal("no_meetings", "asking all meetings needs serve --redis URL and a language model",
                          CLOSE_POLICY)

    def welcome(self, channel: ClientChannel) -> None:
        """A hello with role ``meetings`` whose token was accepted."""
        channel.role = "meetings"
        channel.send({"type": "welcome", "role": "meetings", "max_question_chars": MAX_QUESTION_CHARS})

    def ask(self, channel: ClientChannel, text: Any) -> None:
        """A question from a meetings connection; raises :class:`Refusal` (never fatal) when it is not asked."""
        limiter = self._limiters.setdefault(channel, AskLimiter())
        try:
            question = check_question(text)
            if not limiter.in_flight and len(self._answering) >= MAX_ANSWERING:
                raise AskRefused("meetings_busy", "other questions over all meetings are being answered; "
                                 "ask again in a moment")
            limiter.admit(asyncio.get_running_loop().time())
        except AskRefused as refused:
            raise Refusal(refused.code, refused.message) from None
        self._answering[channel] = asyncio.ensure_future(self._answer(channel, question, limiter))

    def forget(self, channel: ClientChannel) -> None:
        """The connection has closed: its answer is no longer wanted."""
        self._limiters.pop(channel, None)
        task = self._answering.pop(channel, None)
        if task is not None:
            task.cancel()

    async def close(self) -> None:
        tasks = list(self._answering.values())
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    async def _answer(self, channel: ClientChannel, question: str, limiter: AskLimiter) -> None:
        assert self.catalog is not None and self.backend is not None
        number = next(self._numbers)
        try:
            meetings = await self.catalog.meetings()
            if not meetings:
                channel.error("no_meetings_yet", "the event log holds no session yet: record one first")
                return
            channel.send({"type": "meetings.started", "id": number, "question": question, "meetings": len(meetings)})

            def delta(text: str) -> None:
                channel.send({"type": "meetings.delta", "id": number, "text": text})

            answer = await answer_question(question, meetings, self.backend, answer_tokens=self.answer_tokens,
                                           on_delta=delta)
            channel.send({"type": "meetings.done", "id": number, **answer.to_dict()})
        except LibraryError as exc:  # the log unreachable, or a session in it unreadable (may name the store)
            log.warning("asking all meetings: %s", exc)
            channel.error("store_unavailable", "the event log cannot be read now; try again")
        except LLMError as exc:
            channel.error("llm_failed", f"the language model failed ({exc.code}); try again")
        except Exception:  # a bug in answering ends this answer, never the connection
            log.exception("a question over all meetings failed")
            channel.error("internal", "the question could not be answered")
        finally:
            limiter.answered()
            if self._answering.get(channel) is asyncio.current_task():
                del self._answering[channel]
