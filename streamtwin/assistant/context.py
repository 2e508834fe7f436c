"""The rolling context window and its cache-friendly prompt layout.

Why the layout matters: llama.cpp keeps the KV cache of the longest common
prompt prefix between calls, and hosted providers cache prompt prefixes too.
So the prompt is laid out with an append-only front and a small volatile end::

    system:  [system prompt]
    user:    [running summary + marked notes][old blocks ...][recent tail]  <- front
             [current twin state JSON][speaking now][images][instruction]  <- volatile

New items are appended to the tail; a full tail is sealed into a block (the
rendered bytes do not change).  The front of call n is therefore a byte prefix
of call n+1's prompt, unless an eviction or a summary update happened in between.
When the front exceeds the token budget, whole blocks are evicted from the
oldest end and handed to the caller (:meth:`ContextWindow.take_evicted`) to be
folded into the running summary by the LLM in the background.  Until that
summary arrives (or if it never does) each evicted block stays visible as a
truncated, explicitly marked note: nothing is dropped silently.

Images (for vision-capable backends) are OpenAI content parts in the volatile
end, each after its caption: the user message becomes a list of text and
``image_url`` parts whose first text part still begins with the front.

Plain class: no I/O, no clock; times are media times passed in by the caller.
"""

from __future__ import annotations

import json
from collections import deque
from dataclasses import dataclass
from typing import Any, Callable, Sequence

from streamtwin.assistant.prompt_layout import Prompt, PromptImage, flatten

HEARD = "heard"  # a transcript final
SEEN = "seen"  # a visual observation, as compact text
SAID = "said"  # the assistant's own earlier answer

_LINE_MARKERS = {HEARD: "", SEEN: "(seen) ", SAID: "(assistant) "}

SUMMARY_HEADER = "## Earlier in this session (summary)\n"
TRANSCRIPT_HEADER = "## Transcript (media time in seconds, newest last)\n"
IMAGES_HEADER = "\n## Camera images (oldest first; the (seen) lines above describe them)\n"
TRUNCATION_MARK = " …[truncated]"


def approx_tokens(text: str) -> int:
    """About four characters per token: close enough for English and cheap enough
    to run on every item (the budget keeps a margin for the error)."""
    return (len(text) + 3) // 4


@dataclass(frozen=True)
class Item:
    kind: str
    at: float
    line: str  # rendered, newline-terminated
    tokens: int


@dataclass(frozen=True)
class Block:
    seq: int
    text: str  # the rendered lines of its items, concatenated
    tokens: int
    first_at: float
    last_at: float
    items: int


# An evicted block is handed out exactly as it was rendered.
EvictedBlock = Block


@dataclass(frozen=True)
class _Note:
    seq: int
    text: str
    tokens: int
    first_at: float
    last_at: float


class ContextWindow:
    """Token-budgeted rolling window of what was heard, seen and said.

    ``budget_tokens`` bounds the front (system prompt, summary, notes, blocks and
    tail); the caller keeps room for the volatile part and the answer when it
    picks the budget.  Items are capped at ``block_tokens`` each (marked when
    truncated), so eviction of whole blocks always brings the front back under
    budget.  Once over budget, blocks are evicted down to ``low_water`` times the
    budget: every eviction rewrites the front (a full prompt re-read on a CPU
    model), so evicting more at once makes that happen less often.
    """

    @classmethod
    def for_model(cls, context_tokens: int, system_prompt: str, longer_reply_tokens: int = 0) -> ContextWindow:
        """Sized for a model's context (which already leaves room for one reply): a quarter stays free for
        the volatile part (twin JSON, instruction), ``longer_reply_tokens`` for a longer reply (the twin's);
        blocks of a tenth of the front, evicted down to three quarters of it."""
        budget = context_tokens - context_tokens // 4 - longer_reply_tokens
        return cls(
            budget,
            block_tokens=min(2048, max(64, budget // 10)),
            system_prompt=system_prompt,
            low_water=0.75,
            volatile_tokens=context_tokens // 4,
        )

    def __init__(
        self,
        budget_tokens: int,
        block_tokens: int = 256,
        count_tokens: Callable[[str], int] = approx_tokens,
        *,
        system_prompt: str = "",
        summary_max_tokens: int | None = None,
        notes_max_tokens: int | None = None,
        low_water: float = 1.0,
        volatile_tokens: int | None = None,
    ) -> None:
        self.block_tokens = block_tokens
        self.count_tokens = count_tokens
        self.system_prompt = system_prompt
        self.summary_max_tokens = summary_max_tokens or block_tokens
        self.notes_max_tokens = notes_max_tokens or max(64, block_tokens // 2)
        self.budget_tokens = budget_tokens
        self.low_water = low_water
        # What the caller left beside the budget for the volatile part (twin JSON, words being said, task).
        # A bigger volatile part (a twin grown over a long session) takes its excess from the front, so a
        # prompt never outgrows the model's context (None: the caller checks nothing).
        self.volatile_tokens = volatile_tokens
        self._reserved = 0
        self._item_chars_max = 16 * block_tokens  # a block's worth of text for any tokenizer, and then some
        self._fixed_tokens = (
            count_tokens(system_prompt) + count_tokens(SUMMARY_HEADER) + count_tokens(TRANSCRIPT_HEADER)
        )
        # Worst case after evicting every block: fixed parts, a full summary, full
        # notes (the lost-blocks marker included) and a tail just short of sealing.
        needed = self._fixed_tokens + self.summary_max_tokens + self.notes_max_tokens + 2 * block_tokens
        if budget_tokens < needed:
            raise ValueError(
                f"budget_tokens={budget_tokens} too small: needs >= {needed} for block_tokens={block_tokens}"
            )
        self._floor_tokens = needed
        self._blocks: deque[Block] = deque()
        self._blocks_tokens = 0
        self._blocks_text = ""  # the blocks' text, kept joined: rendering must not be O(blocks)
        self._tail: list[Item] = []
        self._tail_tokens = 0
        self._next_seq = 1
        self._summary = ""
        self._summary_tokens = 0
        self._notes: list[_Note] = []
        self._notes_tokens = 0
        self._lost: tuple[int, int, float, float] | None = None  # (count, last seq, first_at, last_at)
        self._lost_line = ""
        self._lost_tokens = 0
        self._evicted: list[Block] = []
        self._items_total = 0

    # --- input ----------------------------------------------------------------

    def add(self, at: float, text: str, kind: str = HEARD) -> None:
        """Append one item (a final, an observation, an answer) at media time ``at``."""
        # An item never holds more than a block: only the front of a long text (a fast model's
        # megabyte answer) is worth normalising and measuring.
        line = self._line(at, text, kind)
        if not line:
            return
        item = Item(kind, at, line, self.count_tokens(line))
        self._tail.append(item)
        self._tail_tokens += item.tokens
        self._items_total += 1
        if self._tail_tokens >= self.block_tokens:
            self._seal_tail()
        self._enforce_budget()

    def revise(self, at: float, old: str, new: str) -> bool:
        """Replace the item added as ``old`` at ``at`` with ``new`` (an utterance decoded again once it
        ended), if it is still in the tail; a sealed block keeps its text, so the front stays stable."""
        line = self._line(at, old, HEARD)
        for i, item in enumerate(self._tail):
            if item.line == line:
                revised = self._line(at, new, HEARD)
                self._tail[i] = Item(HEARD, at, revised, self.count_tokens(revised))
                self._tail_tokens += self._tail[i].tokens - item.tokens
                self._enforce_budget()
                return True
        return False

    def set_summary(self, text: str, through_seq: int) -> None:
        """Install a running summary that covers every evicted block up to ``through_seq``.

        Changes the front once; the notes it replaces disappear.
        """
        text = " ".join(text.split())
        self._summary = self._cap(text + "\n", self.summary_max_tokens) if text else ""
        self._summary_tokens = self.count_tokens(self._summary)
        kept = [note for note in self._notes if note.seq > through_seq]
        self._notes = kept
        self._notes_tokens = sum(note.tokens for note in kept)
        if self._lost is not None and self._lost[1] <= through_seq:
            self._lost = None
            self._lost_line = ""
            self._lost_tokens = 0
        self._enforce_budget()

    def take_evicted(self) -> list[Block]:
        """Blocks evicted since the last call, oldest first (the caller folds them into the summary)."""
        evicted, self._evicted = self._evicted, []
        return evicted

    # --- output ---------------------------------------------------------------

    @property
    def summary(self) -> str:
        return self._summary.rstrip("\n")

    @property
    def front_tokens(self) -> int:
        return (
            self._fixed_tokens
            + self._summary_tokens
            + self._notes_tokens
            + self._lost_tokens
            + self._blocks_tokens
            + self._tail_tokens
        )

    @property
    def items_total(self) -> int:
        """Items ever added (evicted ones included)."""
        return self._items_total

    def context_text(self) -> str:
        """The user-message part of the front: summary, notes, blocks and tail."""
        return "".join(self._front_parts())

    def _front_parts(self) -> list[str]:
        parts: list[str] = []
        earlier = self._summary + "".join(note.text for note in self._notes) + self._lost_line
        if earlier:
            parts += [SUMMARY_HEADER, earlier, "\n"]
        parts += [TRANSCRIPT_HEADER, self._blocks_text]
        parts += [item.line for item in self._tail]
        return parts

    def grounding_text(self) -> str:
        """What was heard and seen (the assistant's own remarks left out): what claims must rest on."""
        lines = self.context_text().splitlines(keepends=True)
        said = f"s] {_LINE_MARKERS[SAID]}"
        return "".join(line for line in lines if said not in line)

    def render(
        self,
        instruction: str,
        twin_state: dict[str, Any] | None = None,
        speaking_now: str | None = None,
        images: Sequence[PromptImage] = (),
    ) -> Prompt:
        """Chat messages for one call; the volatile part follows the front."""
        volatile: list[str] = []
        if twin_state is not None:
            twin_json = json.dumps(twin_state, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
            volatile.append(f"\n## Current twin state (JSON)\n{twin_json}\n")
        if speaking_now:
            volatile.append(f"\n## Being said right now (not final yet)\n{speaking_now}\n")
        task = f"\n## Task\n{instruction}"
        if self.volatile_tokens is not None:
            self._reserve(self.count_tokens("".join([*volatile, task])) - self.volatile_tokens)
        front = self._front_parts()
        user: str | list[dict[str, Any]]
        if images:
            user = [_text_part("".join([*front, *volatile, IMAGES_HEADER]))]  # one copy of a possibly huge front
            for image in images:
                user += [_text_part(image.caption + "\n"), {"type": "image_url", "image_url": {"url": image.url}}]
            user.append(_text_part(task))
        else:
            user = "".join([*front, *volatile, task])
        messages = [{"role": "system", "content": self.system_prompt}, {"role": "user", "content": user}]
        boundary = len(flatten(messages[:1])) + len("<|user|>\n") + sum(map(len, front))
        return Prompt(messages, boundary, self.front_tokens)

    # --- internals ------------------------------------------------------------

    def _cap(self, text: str, max_tokens: int) -> str:
        """Shorten ``text`` to ``max_tokens``, visibly marked, keeping a trailing newline."""
        if self.count_tokens(text) <= max_tokens:
            return text
        newline = "\n" if text.endswith("\n") else ""
        body = text.rstrip("\n")
        low, high = 0, len(body)  # binary search for the longest prefix that fits
        while low < high:
            middle = (low + high + 1) // 2
            if self.count_tokens(body[:middle] + TRUNCATION_MARK + newline) <= max_tokens:
                low = middle
            else:
                high = middle - 1
        return body[:low] + TRUNCATION_MARK + newline

    def _line(self, at: float, text: str, kind: str) -> str:
        cut = len(text) > self._item_chars_max
        text = " ".join(text[: self._item_chars_max].split())
        if not text:
            return ""
        mark = TRUNCATION_MARK if cut else ""
        return self._cap(f"[{at:.1f}s] {_LINE_MARKERS[kind]}{text}{mark}\n", self.block_tokens)

    def _seal_tail(self) -> None:
        if not self._tail:
            return
        block = Block(
            seq=self._next_seq,
            text="".join(item.line for item in self._tail),
            tokens=self._tail_tokens,
            first_at=self._tail[0].at,
            last_at=self._tail[-1].at,
            items=len(self._tail),
        )
        self._next_seq += 1
        self._blocks.append(block)
        self._blocks_tokens += block.tokens
        self._blocks_text += block.text
        self._tail = []
        self._tail_tokens = 0

    @property
    def front_budget(self) -> int:
        """The front's budget now: ``budget_tokens`` less what an oversized volatile part took."""
        return max(self._floor_tokens, self.budget_tokens - self._reserved)

    def _reserve(self, excess: int) -> None:
        """Make room for a volatile part ``excess`` tokens over its share (evicting whole blocks)."""
        excess = max(0, excess)
        if excess != self._reserved:
            self._reserved = excess
            self._enforce_budget()

    def _enforce_budget(self) -> None:
        budget = self.front_budget
        if self.front_tokens <= budget:
            return
        target = budget * self.low_water
        # The constructor guarantees that evicting every block is enough.
        while self.front_tokens > target and self._blocks:
            self._evict_oldest()
        self._blocks_text = "".join(block.text for block in self._blocks)

    def _evict_oldest(self) -> None:
        block = self._blocks.popleft()
        self._blocks_tokens -= block.tokens
        self._evicted.append(block)
        excerpt = " ".join(block.text.split())
        note_line = f"[{block.first_at:.1f}s-{block.last_at:.1f}s, not yet summarised] {excerpt}\n"
        note_line = self._cap(note_line, max(8, self.notes_max_tokens // 4))
        note = _Note(block.seq, note_line, self.count_tokens(note_line), block.first_at, block.last_at)
        self._notes.append(note)
        self._notes_tokens += note.tokens
        while self._notes_tokens + self._lost_tokens > self.notes_max_tokens and len(self._notes) > 1:
            self._forget_oldest_note()

    def _forget_oldest_note(self) -> None:
        """Keep only a marker that says how much is missing from the prompt."""
        note = self._notes.pop(0)
        self._notes_tokens -= note.tokens
        if self._lost is None:
            self._lost = (1, note.seq, note.first_at, note.last_at)
        else:
            count, _, lost_first, _ = self._lost
            self._lost = (count + 1, note.seq, lost_first, note.last_at)
        count, _, lost_first, lost_last = self._lost
        self._lost_line = (
            f"[{lost_first:.1f}s-{lost_last:.1f}s: {count} older block(s) not in this prompt, summary pending]\n"
        )
        self._lost_tokens = self.count_tokens(self._lost_line)


def _text_part(text: str) -> dict[str, str]:
    return {"type": "text", "text": text}
