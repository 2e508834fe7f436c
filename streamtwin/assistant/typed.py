"""Typed questions: what a question typed to the assistant must be, and how often one connection may ask.

Plain rules, no I/O, time passed in.  A typed question is answered like one said aloud (the question is the
prompt's task, with the twin and the whole context); these limits keep a stranger holding a viewer link from
turning the model into a free chat service or starving the meeting's own questions.
"""

from __future__ import annotations

from collections import deque

MAX_QUESTION_CHARS = 500  # a question, not a document to summarise
ASKS_PER_MINUTE = 6  # per connection: one answer at a time, and at most this many in a minute


class AskRefused(Exception):
    """A typed question that will not be asked; ``code`` and ``message`` go to the one who asked."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def check_question(text: object) -> str:
    """The question, whitespace trimmed; raises :class:`AskRefused` for anything that is not one."""
    if not isinstance(text, str):
        raise AskRefused("bad_question", 'a question is a string: {"type": "ask", "text": "..."}')
    question = " ".join(text.split())
    if not question:
        raise AskRefused("bad_question", "the question is empty")
    if len(question) > MAX_QUESTION_CHARS:
        raise AskRefused("bad_question", f"a question holds at most {MAX_QUESTION_CHARS} characters")
    return question


class AskLimiter:
    """One connection's asking: one answer in flight, and at most ``per_minute`` questions in any minute."""

    def __init__(self, per_minute: int = ASKS_PER_MINUTE, window_s: float = 60.0) -> None:
        self.per_minute = per_minute
        self.window_s = window_s
        self.in_flight = False
        self._asked: deque[float] = deque()

    def admit(self, now: float) -> None:
        """Count one question asked at ``now``; raises :class:`AskRefused` (nothing counted) when over a limit."""
        if self.in_flight:
            raise AskRefused("ask_in_flight", "your previous question is still being answered; one at a time")
        while self._asked and self._asked[0] <= now - self.window_s:
            self._asked.popleft()
        if len(self._asked) >= self.per_minute:
            wait = self._asked[0] + self.window_s - now
            raise AskRefused("too_many_questions", f"at most {self.per_minute} questions a minute; ask again in {wait:.0f} s")
        self._asked.append(now)
        self.in_flight = True

    def answered(self) -> None:
        self.in_flight = False
