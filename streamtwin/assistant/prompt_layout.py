"""The shape of a prompt: chat messages, where their stable front ends, and a canonical text rendering.

:class:`~streamtwin.assistant.context.ContextWindow` lays a prompt out so that its front is a byte prefix of
the next call's; this module says what a prompt is and how that is checked (:func:`flatten`, the
ChatML-like rendering any concatenating chat template preserves the prefixes of).  Plain code.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

IMAGE_PLACEHOLDER = "<|image|>"  # what an image part contributes to the canonical text rendering


def content_text(content: str | list[dict[str, Any]]) -> str:
    """A message's content as text: a list of parts is joined, each image part a placeholder."""
    if isinstance(content, str):
        return content
    return "".join(part["text"] if part.get("type") == "text" else IMAGE_PLACEHOLDER for part in content)


def flatten(messages: list[dict[str, Any]]) -> str:
    """A canonical text rendering of chat messages (ChatML-like).

    Any chat template that concatenates messages in order with fixed wrappers
    preserves the prefixes of this rendering, so prefix stability asserted on it
    carries over to the real template of every backend.
    """
    return "".join(f"<|{m['role']}|>\n{content_text(m['content'])}<|end|>\n" for m in messages)


@dataclass(frozen=True)
class PromptImage:
    """An image for the volatile end of a prompt: its caption line and an OpenAI ``image_url`` URL."""

    caption: str
    url: str


@dataclass(frozen=True)
class Prompt:
    """Rendered chat messages plus where the stable front ends.

    ``boundary`` is an index into ``flatten(messages)``: everything before it is
    the front, which the next call repeats byte for byte unless the window
    evicted or received a new summary in between.
    """

    messages: list[dict[str, Any]]
    boundary: int
    front_tokens: int

    @property
    def flat(self) -> str:
        return flatten(self.messages)

    @property
    def front(self) -> str:
        return self.flat[: self.boundary]
