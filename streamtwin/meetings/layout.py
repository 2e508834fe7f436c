"""The prompts that ask past meetings a question: every meeting whole, in one prompt when they fit the model's
window, else in chunks of whole meetings (map) and one last call that combines what the chunks found (reduce).

Each meeting is rendered once: a header (its label ``M1``, ``M2``, ..., name, date, length), its final twin as
compact JSON, then a line per utterance ``[mm:ss] Speaker: text``.  The meetings come first and the question
last, so a model that keeps the KV cache of a prompt's front (llama.cpp does) reads the meetings once for
several questions.  Sizes are estimated from characters (:data:`CHARS_PER_TOKEN`, on the safe side for
English with Llama- and Qwen-style tokenizers): no tokenizer runs, and 1 M tokens of meetings are laid out in
well under a second.

Plain functions: no I/O.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime, timezone

from streamtwin.meetings.transcript import Meeting

CHARS_PER_TOKEN = 3.5  # English runs ~4 characters a token; 3.5 leaves a margin for names and numbers
MAX_QUESTION_CHARS = 2000
INSTRUCTION_TOKENS = 400  # the system prompt, the question and the chat template, at most

CITE = (
    'Support every fact with a quote of the words said, in this form: [M3 12:04 Anna] "the exact words". '
    "Copy quotes word for word from the transcript lines; never invent one."
)
WHOLE_SYSTEM = (
    "You answer questions about recorded meetings, using only the meetings given. Each meeting has a label "
    "(M1, M2, ...), its notes as JSON (twin) and its transcript, a line per utterance: [time] speaker: words. "
    "When the answer spans several meetings, say what each one said and in which order things happened. "
    f"{CITE} If the meetings do not say, answer that they do not say."
)
MAP_SYSTEM = (
    "You read some recorded meetings to help answer a question; other meetings are read separately. Each "
    "meeting has a label (M1, M2, ...), its notes as JSON (twin) and its transcript: [time] speaker: words. "
    "List every fact in these meetings that bears on the question, one per line, each with its meeting "
    f"label. {CITE} If nothing here bears on the question, answer only: NONE"
)
REDUCE_SYSTEM = (
    "You answer a question about recorded meetings from notes that readers took from them, meeting by meeting. "
    'Each quote in the notes has a number in square brackets, then its meeting label (M1, M2, ...), time and '
    'speaker: [3] M5 12:04 Anna: "the exact words". Combine the notes into one answer; when the answer spans '
    "several meetings, say what each one said and in which order things happened. After each fact, put the "
    "number of the quote that supports it in square brackets, like [3]. If the notes do not answer the "
    "question, say so."
)


def check_question(question: str) -> str:
    """The question, stripped; ValueError for an empty or oversized one."""
    text = " ".join(str(question).split())
    if not text:
        raise ValueError("the question is empty")
    if len(text) > MAX_QUESTION_CHARS:
        raise ValueError(f"the question is {len(text)} characters long; at most {MAX_QUESTION_CHARS}")
    return text


def estimate_tokens(text: str) -> int:
    return int(len(text) / CHARS_PER_TOKEN) + 1


def stamp(seconds: float) -> str:
    """Media seconds as ``mm:ss`` (``h:mm:ss`` past an hour), as the quotes cite them."""
    whole = max(0, int(seconds))
    hours, rest = divmod(whole, 3600)
    return f"{hours}:{rest // 60:02d}:{rest % 60:02d}" if hours else f"{rest // 60:02d}:{rest % 60:02d}"


def date_of(wall: float) -> str:
    return datetime.fromtimestamp(wall, tz=timezone.utc).strftime("%Y-%m-%d %H:%M UTC") if wall > 0 else "unknown"


def label(index: int) -> str:
    return f"M{index + 1}"


def header(meeting: Meeting, index: int, part: str = "") -> str:
    return (
        f"=== {label(index)}: {meeting.name}{part} | date {date_of(meeting.started)} | length "
        f"{stamp(meeting.duration)} ==="
    )


def twin_line(meeting: Meeting) -> str:
    kept = {key: value for key, value in meeting.twin.items() if value not in (None, "", [], {})}
    return "twin: " + json.dumps(kept, ensure_ascii=False, separators=(",", ":"), sort_keys=True) if kept else ""


def transcript_lines(meeting: Meeting) -> list[str]:
    return [f"[{stamp(line.start)}] {line.speaker or 'unknown'}: {line.text}" for line in meeting.lines]


def render(meeting: Meeting, index: int) -> str:
    """One meeting, whole."""
    twin = twin_line(meeting)
    return "\n".join([header(meeting, index), *([twin] if twin else []), *transcript_lines(meeting)])


@dataclass(frozen=True)
class Layout:
    """How the meetings are read: ``whole`` (one prompt) or ``chunks`` for map-reduce (each a text of whole
    meetings, or of one meeting's consecutive lines when a meeting alone is too long)."""

    whole: str
    chunks: tuple[str, ...]
    tokens: int  # estimated, all meetings

    @property
    def map_reduce(self) -> bool:
        return len(self.chunks) > 1


def lay_out(meetings: list[Meeting], context_tokens: int, answer_tokens: int) -> Layout:
    """The meetings in one prompt if they fit ``context_tokens`` (with room for the instructions and
    ``answer_tokens``), else packed into chunks that each do."""
    texts = [render(meeting, index) for index, meeting in enumerate(meetings)]
    whole = "\n\n".join(texts)
    budget = max(64, context_tokens - answer_tokens - INSTRUCTION_TOKENS)
    tokens = estimate_tokens(whole)
    if tokens <= budget:
        return Layout(whole, (whole,), tokens)
    chunks: list[str] = []
    current: list[str] = []
    used = 0
    for index, (meeting, text) in enumerate(zip(meetings, texts)):
        size = estimate_tokens(text)
        pieces = [(text, size)] if size <= budget else _split(meeting, index, budget)
        for piece, piece_tokens in pieces:
            if current and used + piece_tokens > budget:
                chunks.append("\n\n".join(current))
                current, used = [], 0
            current.append(piece)
            used += piece_tokens + 1
    if current:
        chunks.append("\n\n".join(current))
    return Layout(whole, tuple(chunks), tokens)


def _split(meeting: Meeting, index: int, budget: int) -> list[tuple[str, int]]:
    """A meeting too long for one chunk: its lines in consecutive parts, each with the header (and the twin in
    the first), none over ``budget`` (a single line longer than that is cut)."""
    limit_chars = int(budget * CHARS_PER_TOKEN)
    twin = twin_line(meeting)
    parts: list[list[str]] = [[twin[:limit_chars // 2]] if twin else []]
    size = len(parts[0][0]) if twin else 0
    for line in transcript_lines(meeting):
        line = line[: limit_chars // 2]
        if parts[-1] and size + len(line) + 1 > limit_chars - 200:
            parts.append([])
            size = 0
        parts[-1].append(line)
        size += len(line) + 1
    out = []
    for number, lines in enumerate(parts, start=1):
        text = "\n".join([header(meeting, index, f" (part {number} of {len(parts)})"), *lines])
        out.append((text, estimate_tokens(text)))
    return out


def whole_messages(layout: Layout, question: str) -> list[dict[str, str]]:
    return _messages(WHOLE_SYSTEM, f"Meetings:\n\n{layout.whole}", question)


def map_messages(chunk: str, question: str) -> list[dict[str, str]]:
    return _messages(MAP_SYSTEM, f"Meetings:\n\n{chunk}", question)


def reduce_messages(notes: list[str], question: str) -> list[dict[str, str]]:
    found = "\n\n".join(f"Notes {number}:\n{text.strip()}" for number, text in enumerate(notes, start=1))
    return _messages(REDUCE_SYSTEM, f"Notes from the meetings:\n\n{found or '(no meeting bears on the question)'}",
                     question)


def _messages(system: str, material: str, question: str) -> list[dict[str, str]]:
    return [
        {"role": "system", "content": system},
        {"role": "user", "content": f"{material}\n\nQuestion: {question}"},
    ]


def found_nothing(note: str) -> bool:
    """A map call's answer that says this chunk has nothing on the question."""
    words = note.strip().strip(".").split()
    return not words or (len(words) <= 3 and words[0].upper() == "NONE")
