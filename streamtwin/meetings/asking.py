"""Ask past meetings a question: every meeting whole in one prompt when they fit the model's window, else map
(chunks of whole meetings in parallel, each answering with quotes) then reduce (one call combines them); the
quotes checked against the transcripts before the answer is returned.

::

    answer = await streamtwin.ask("What did we decide about the launch?", ["meetings/"], llm="groq")
    print(answer.text)
    for number, source in enumerate(answer.sources, 1):
        print(number, source.meeting, source.start, source.speaker, source.quote)
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from streamtwin.config import Config
from streamtwin.llm.backend import Backend, ChatRequest, Delta, LLMError
from streamtwin.meetings.evidence import Evidence, assemble, gather
from streamtwin.meetings.layout import (
    check_question,
    lay_out,
    map_messages,
    reduce_messages,
    whole_messages,
)
from streamtwin.meetings.library import load_meetings
from streamtwin.meetings.quotes import Source, check
from streamtwin.meetings.transcript import Meeting

DEFAULT_ANSWER_TOKENS = 512
NOTE_TOKENS = 192  # a chunk's notes for the reduce call: the facts that bear on the question, with quotes


@dataclass
class Answer:
    question: str
    text: str  # each quote followed by its source's number: "the exact words" [1]
    sources: list[Source] = field(default_factory=list)
    rejected: list[str] = field(default_factory=list)  # quotes the model gave that no transcript holds
    meetings: list[str] = field(default_factory=list)  # the meetings read, in order (M1, M2, ...)
    mode: str = "whole"  # whole | map-reduce
    calls: int = 0
    prompt_tokens: int = 0  # estimated, the meetings only
    seconds: dict[str, float] = field(default_factory=dict)  # load, layout, model, check

    def to_dict(self) -> dict[str, Any]:
        return {
            "question": self.question, "answer": self.text, "sources": [s.to_dict() for s in self.sources],
            "rejected_quotes": self.rejected, "meetings": self.meetings, "mode": self.mode, "calls": self.calls,
            "prompt_tokens": self.prompt_tokens, "seconds": self.seconds,
        }


async def answer_question(
    question: str, meetings: list[Meeting], backend: Backend, *, answer_tokens: int = DEFAULT_ANSWER_TOKENS,
    on_delta: Callable[[str], None] | None = None,
) -> Answer:
    """The answer from ``meetings`` (already read); raises ValueError for a bad question or no meetings,
    :class:`~streamtwin.llm.backend.LLMError` when the model fails.  ``on_delta``: the last call's text as it
    streams (the whole answer, or the reduce call's), before its quotes are checked."""
    answers = await answer_questions([question], meetings, backend, answer_tokens=answer_tokens, on_delta=on_delta)
    return answers[0]


async def answer_questions(
    questions: Sequence[str], meetings: list[Meeting], backend: Backend, *,
    answer_tokens: int = DEFAULT_ANSWER_TOKENS, on_delta: Callable[[str], None] | None = None,
) -> list[Answer]:
    """Several questions over the same meetings, laid out once.  Each chunk (or the whole) is asked every
    question in turn, so a model that keeps the KV cache of a prompt's front (llama.cpp) reads it once: the
    prompts differ only in the question at their end.  ``on_delta`` (one question only): as for
    :func:`answer_question`."""
    questions = [check_question(question) for question in questions]
    if not meetings:
        raise ValueError("no meetings to ask")
    if on_delta is not None and len(questions) != 1:
        raise ValueError("on_delta streams one question's answer")
    started = time.perf_counter()
    layout = lay_out(meetings, backend.context_tokens, answer_tokens)
    laid_out = time.perf_counter()
    slots = asyncio.Semaphore(max(1, getattr(backend, "max_in_flight", 1) or 1))  # waiters go first come

    async def call(messages: list[dict[str, str]], tokens: int, streamed: bool = False) -> str:
        async with slots:
            return await complete(backend, messages, tokens, on_delta if streamed else None)

    evidence: list[Evidence] = []

    if layout.map_reduce:
        note_tokens = min(answer_tokens, NOTE_TOKENS)
        notes = await asyncio.gather(*(
            call(map_messages(chunk, question), note_tokens) for chunk in layout.chunks for question in questions
        ))
        asked = len(questions)
        # Each question's quotes checked and numbered before the reduce call reads them: an invented one never
        # reaches it, and the one it cites by number is put back in its answer (streamtwin/meetings/evidence.py).
        evidence = [gather(notes[at::asked], meetings) for at in range(asked)]
        texts = await asyncio.gather(*(
            call(reduce_messages(evidence[at].notes, question), answer_tokens, streamed=True)
            for at, question in enumerate(questions)
        ))
        calls, mode = len(layout.chunks) + 1, "map-reduce"
    else:
        texts = await asyncio.gather(*(
            call(whole_messages(layout, question), answer_tokens, streamed=True) for question in questions
        ))
        calls, mode = 1, "whole"
    answered = time.perf_counter()
    answers = []
    for at, (question, text) in enumerate(zip(questions, texts)):
        checking = time.perf_counter()
        checked = assemble(text, evidence[at], meetings) if layout.map_reduce else check(text, meetings)
        answers.append(Answer(
            question=question, text=checked.text, sources=checked.sources, rejected=checked.rejected,
            meetings=[meeting.name for meeting in meetings], mode=mode, calls=calls, prompt_tokens=layout.tokens,
            seconds={"layout": laid_out - started, "model": answered - laid_out,
                     "check": time.perf_counter() - checking},
        ))
    return answers


async def complete(
    backend: Backend, messages: list[dict[str, str]], max_tokens: int, on_delta: Callable[[str], None] | None = None,
) -> str:
    parts = []
    async for item in backend.stream(ChatRequest(messages=messages, max_tokens=max_tokens, temperature=0.0)):
        if isinstance(item, Delta):
            parts.append(item.text)
            if on_delta is not None:
                on_delta(item.text)
    return "".join(parts)


async def ask(
    question: str,
    recordings: str | os.PathLike[str] | Sequence[str | os.PathLike[str]],
    *,
    backend: Backend | None = None,
    config: Config | None = None,
    answer_tokens: int = DEFAULT_ANSWER_TOKENS,
    **options: Any,
) -> Answer:
    """Ask ``recordings`` (``run --record`` files, folders of them, ``redis://HOST:PORT/DB/`` for every session
    in the event log) a question.  ``options`` are :class:`~streamtwin.config.Config` fields as for
    :func:`streamtwin.stream` (``llm="groq"``, ``llm_model=...``), or a whole ``config``; or pass a ``backend``
    you hold.

    Raises ValueError (a bad question), :class:`~streamtwin.meetings.library.LibraryError` (recordings that
    cannot be read) or :class:`~streamtwin.llm.backend.LLMError` (no model, or it failed)."""
    question = check_question(question)
    if config is None:
        from streamtwin.api import make_config

        config = make_config(options)
    elif options:
        raise TypeError("pass either a config or options, not both")
    named = [recordings] if isinstance(recordings, (str, os.PathLike)) else list(recordings)
    specs = [os.fspath(r) for r in named]
    started = time.perf_counter()
    meetings = await load_meetings(config, specs)
    loaded = time.perf_counter() - started
    own = backend is None
    if backend is None:
        from streamtwin.llm.factory import make_backend

        backend = make_backend(config)
        if backend is None:
            raise LLMError("model_missing", "asking meetings needs a language model: not --llm none")
    try:
        answer = await answer_question(question, meetings, backend, answer_tokens=answer_tokens)
    finally:
        if own:
            await backend.aclose()
    answer.seconds = {"load": loaded, **answer.seconds}
    return answer
