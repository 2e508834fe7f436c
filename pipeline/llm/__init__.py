"""Language-model backends behind one streaming interface (:mod:`pipeline.llm.base`).

Only the interface is re-exported: importing it must not pull in an SDK or
llama.cpp.  Build a backend with :func:`pipeline.llm.factory.make_backend`.
"""

from __future__ import annotations

from pipeline.llm.base import Answering, Backend, ChatRequest, Delta, Finished, LLMError, StreamItem

__all__ = ["Answering", "Backend", "ChatRequest", "Delta", "Finished", "LLMError", "StreamItem"]
