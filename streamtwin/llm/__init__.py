"""Language-model backends behind one streaming interface (:mod:`streamtwin.llm.backend`).

Only the interface is re-exported: importing it must not pull in an SDK or
llama.cpp.  Build a backend with :func:`streamtwin.llm.factory.make_backend`.
"""

from __future__ import annotations

from streamtwin.llm.backend import Answering, Backend, ChatRequest, Delta, Finished, LLMError, StreamItem

__all__ = ["Answering", "Backend", "ChatRequest", "Delta", "Finished", "LLMError", "StreamItem"]
