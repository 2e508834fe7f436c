"""Folding evicted context blocks into the running summary, in the background.

Until a fold succeeds the evicted block stays in the prompt as a marked note
(:class:`~streamtwin.assistant.context.ContextWindow` keeps it); a failed fold is
reported and its blocks stay notes.  Without a model nothing folds: the notes stay.
"""

from __future__ import annotations

import asyncio
from typing import Any, Callable

from streamtwin.llm.backend import ChatRequest
from streamtwin.assistant.llm_calls import Caller
from streamtwin.assistant.context import Block, ContextWindow
from streamtwin.assistant.prompts import FOLD_INSTRUCTION


class SummaryFolder:
    def __init__(
        self,
        caller: Caller | None,
        window: ContextWindow,
        clock: Callable[[], float],
        backoff_until: Callable[[], float],
        report_error: Callable[[BaseException], Any],
    ) -> None:
        self.caller = caller
        self.window = window
        self._clock = clock
        self._backoff_until = backoff_until
        self._report_error = report_error
        self._queue: list[Block] = []
        self.task: asyncio.Task[None] | None = None
        self.closed = False

    @property
    def busy(self) -> bool:
        return self.task is not None or bool(self._queue)

    def take_evicted(self) -> None:
        """Queue what the window evicted; start folding if nothing folds yet."""
        evicted = self.window.take_evicted()
        if self.caller is None:
            return  # no model to summarise with: the marked notes stay
        self._queue.extend(evicted)
        if self._queue and self.task is None and not self.closed:
            self.task = asyncio.create_task(self._fold(), name="assistant-fold")
            self.task.add_done_callback(self._finished)

    def _finished(self, task: asyncio.Task[None]) -> None:
        if task is self.task:
            self.task = None
        self.take_evicted()  # blocks queued between the job's last check and now

    async def _fold(self) -> None:
        """Fold evicted blocks into the summary; a batch that fails stays a marked note."""
        assert self.caller is not None
        while self._queue:
            wait = self._backoff_until() - self._clock()
            if wait > 0:
                await asyncio.sleep(wait)
            blocks, self._queue = self._queue, []
            words = self.window.summary_max_tokens * 3 // 4
            prompt = self.window.render(FOLD_INSTRUCTION.format(text="".join(b.text for b in blocks), words=words))
            request = ChatRequest(prompt.messages, max_tokens=self.window.summary_max_tokens + 32)
            try:
                summary = await self.caller.collect(request)
            except Exception as exc:  # noqa: BLE001 - the note stays in the prompt, marked as such
                self._report_error(exc)
                continue
            if summary.strip():
                self.window.set_summary(summary, through_seq=blocks[-1].seq)
                self._queue.extend(self.window.take_evicted())
