"""llama-cpp-python in process: the embedded default when no server is configured.

One ``Llama`` object lives as long as the backend, so llama.cpp keeps the KV cache
of the previous prompt and a rolling context whose front stays byte-identical only
pays for its new tail.  Every model call runs on one dedicated thread: generations
are serialised by construction (a ``Llama`` is not thread-safe) and the event loop
never blocks.  Cancelling the consumer sets a flag that the worker checks after
every token; a prompt already being evaluated finishes first (its KV cache is what
the next, prefix-sharing prompt reuses).
"""

from __future__ import annotations

import asyncio
import logging
import os
import threading
import time
from collections.abc import AsyncIterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from streamtwin.llm.backend import ChatRequest, Delta, LLMError, StreamItem
from streamtwin.llm.gguf_models import DEFAULT_MODEL, resolve_model
from streamtwin.llm.openai_wire import ChunkAccumulator

log = logging.getLogger(__name__)

_END = object()


def llama_response_format(response_format: dict[str, Any] | None) -> dict[str, Any] | None:
    """OpenAI's ``json_schema`` form in the ``json_object`` + ``schema`` form llama-cpp-python reads."""
    if not response_format or response_format.get("type") != "json_schema":
        return response_format
    schema = (response_format.get("json_schema") or {}).get("schema")
    return {"type": "json_object", "schema": schema} if schema else {"type": "json_object"}


def reused_prefix_tokens(previous: Sequence[int], prompt: Sequence[int]) -> int:
    """Prompt tokens llama.cpp takes from the KV cache: the common prefix, minus one if it
    covers the whole prompt (the last token is evaluated again to get fresh logits)."""
    length = 0
    for old, new in zip(previous, prompt):
        if old != new:
            break
        length += 1
    return min(length, max(len(prompt) - 1, 0))


def _forget(worker: asyncio.Future[Any]) -> None:
    """Read a finished worker's outcome so an abandoned call's failure is not reported as unhandled."""
    if not worker.cancelled() and worker.exception() is not None:
        log.debug("abandoned generation ended with %r", worker.exception())


def _post(loop: asyncio.AbstractEventLoop, queue: asyncio.Queue[Any], item: Any) -> None:
    """Hand a chunk from the worker thread to the loop; a closed loop has no reader left."""
    try:
        loop.call_soon_threadsafe(queue.put_nowait, item)
    except RuntimeError:
        pass


@dataclass
class PromptStats:
    prompt_tokens: int = 0
    cached_tokens: int = 0


class LocalBackend:
    """Streams from a GGUF model with llama-cpp-python, one generation at a time."""

    name = "local"
    supports_images = False
    max_in_flight = 1

    def __init__(
        self,
        model_path: str | Path = DEFAULT_MODEL,
        n_threads: int | None = None,
        n_ctx: int = 4096,
        *,
        context_tokens: int | None = None,
        cache_dir: Path | None = None,
    ) -> None:
        """``model_path``: a .gguf path or an embedded model name (see :mod:`streamtwin.llm.gguf_models`)."""
        self.model = str(model_path)
        self.n_threads = n_threads or os.cpu_count() or 1
        self.n_ctx = n_ctx
        # Leave room in the window for the answer (max_tokens) and the chat template.
        self.context_tokens = context_tokens or max(256, n_ctx - 768)
        self._cache_dir = cache_dir
        self._llama: Any = None
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="llama")
        self._lock = asyncio.Lock()

    async def start(self) -> None:
        """Resolve (maybe assemble) and load the model off the loop; stream() does it lazily too."""
        async with self._lock:
            await self._ensure_loaded()

    async def _ensure_loaded(self) -> None:
        if self._llama is None:
            loop = asyncio.get_running_loop()
            self._llama = await loop.run_in_executor(self._executor, self._load)

    def _load(self) -> Any:
        # Imported here: the hosted backends must work where llama-cpp-python (compiled) is absent.
        try:
            from llama_cpp import Llama
        except ImportError:
            raise LLMError(
                "model_missing",
                "the local backend needs llama-cpp-python: pip install llama-cpp-python==0.3.36",
            ) from None
        path = resolve_model(self.model, self._cache_dir)
        started = time.monotonic()
        llama = Llama(
            model_path=str(path),
            n_ctx=self.n_ctx,
            n_threads=self.n_threads,
            n_threads_batch=self.n_threads,
            verbose=False,
        )
        log.info(
            "loaded %s in %.1f s (%d threads, n_ctx %d)",
            path.name,
            time.monotonic() - started,
            self.n_threads,
            self.n_ctx,
        )
        return llama

    async def stream(self, request: ChatRequest) -> AsyncIterator[StreamItem]:
        """Yield deltas then one Finished; waits while another generation holds the model."""
        async with self._lock:
            await self._ensure_loaded()
            loop = asyncio.get_running_loop()
            queue: asyncio.Queue[Any] = asyncio.Queue()
            stop = threading.Event()
            started = time.monotonic()
            # The model is handed over now: aclose() may drop it while this call waits for the thread.
            worker = loop.run_in_executor(self._executor, self._generate, self._llama, request, stop, loop, queue)
            # However the worker ends, the reader wakes up (after the chunks already queued).
            worker.add_done_callback(lambda _: queue.put_nowait(_END))
            accumulator = ChunkAccumulator(started)
            try:
                while (item := await queue.get()) is not _END:
                    text = accumulator.feed(item, time.monotonic())
                    if text:
                        yield Delta(text)
                prompt = await worker
            finally:
                # Also on cancellation: the thread stops at its next token (or never starts), and
                # whatever it ends with is nobody's to read any more.
                stop.set()
                worker.add_done_callback(_forget)
            finished = accumulator.finish(time.monotonic())
        yield replace(finished, prompt_tokens=prompt.prompt_tokens, cached_tokens=prompt.cached_tokens)

    def _generate(
        self,
        llama: Any,
        request: ChatRequest,
        stop: threading.Event,
        loop: asyncio.AbstractEventLoop,
        queue: asyncio.Queue[Any],
    ) -> PromptStats:
        """Worker thread: run the completion, hand each chunk (one token) to the loop, check ``stop``.

        The first chunk arrives right after the prompt was evaluated, while the first
        sampled token is not yet: ``n_tokens`` is then exactly the prompt's length.
        """
        stats = PromptStats()
        if stop.is_set():  # abandoned while it waited for the thread: its result would be discarded
            return stats
        previous = llama.input_ids[: llama.n_tokens].tolist()
        try:
            chunks = llama.create_chat_completion(
                messages=request.messages,
                max_tokens=request.max_tokens,
                temperature=request.temperature,
                stop=list(request.stop),
                response_format=llama_response_format(request.response_format),
                stream=True,
            )
            for index, chunk in enumerate(chunks):
                if index == 0:
                    prompt = llama.input_ids[: llama.n_tokens].tolist()
                    stats = PromptStats(len(prompt), reused_prefix_tokens(previous, prompt))
                if stop.is_set():
                    chunks.close()
                    break
                _post(loop, queue, chunk)
        except ValueError as exc:  # llama-cpp-python's "Requested tokens exceed context window"
            raise LLMError("bad_request", str(exc)) from exc
        except RuntimeError as exc:
            raise LLMError("server", f"llama.cpp failed: {exc}") from exc
        return stats

    async def aclose(self) -> None:
        """Wait for a running generation to notice its stop flag, then free the model."""
        async with self._lock:
            llama, self._llama = self._llama, None
            if llama is not None:
                await asyncio.get_running_loop().run_in_executor(self._executor, llama.close)
        self._executor.shutdown(wait=False)
