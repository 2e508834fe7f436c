"""The in-process llama.cpp backend with the real SmolLM2-135M model shipped on PyPI."""

from __future__ import annotations

import asyncio
import gc
import json
import threading

import jsonschema
import pytest

from streamtwin.config import Config
from streamtwin.llm.backend import ChatRequest, Delta, LLMError
from streamtwin.llm.local_backend import LocalBackend, llama_response_format, reused_prefix_tokens
from tests.fakes import abandon_after_first_delta, collect

# llama.cpp takes both cores: its tests share one xdist worker, never two models at once.
pytestmark = [pytest.mark.model, pytest.mark.xdist_group("llama")]
THREADS = Config.from_sources({}).llm_threads or None  # as the commands take them (tests/conftest.py)

TRANSCRIPT = " ".join(
    f"Speaker {i % 3}: item {i} of the agenda is the budget of project {i % 5}." for i in range(30)
)
SYSTEM = {"role": "system", "content": "You summarise a live meeting in one short sentence."}


@pytest.fixture
async def backend():
    local = LocalBackend("smollm2", THREADS, n_ctx=2048)
    await local.start()
    yield local
    await local.aclose()


async def test_streams_text_and_counts_tokens(backend):
    request = ChatRequest([SYSTEM, {"role": "user", "content": "Alice: we ship on Friday."}], max_tokens=16)

    deltas, finished = await collect(backend.stream(request))

    assert "".join(deltas).strip()
    assert finished.finish_reason in ("stop", "length")
    assert 0 < finished.completion_tokens <= 16
    assert finished.prompt_tokens > 5, "the chat template and the words are counted"
    assert finished.ttft_s is not None and finished.ttft_s <= finished.total_s


async def test_second_prompt_reuses_the_cached_prefix(backend):
    first_messages = [SYSTEM, {"role": "user", "content": TRANSCRIPT}]
    grown_messages = [SYSTEM, {"role": "user", "content": TRANSCRIPT + " Speaker 1: and one more thing."}]

    _, first = await collect(backend.stream(ChatRequest(first_messages, max_tokens=4)))
    _, grown = await collect(backend.stream(ChatRequest(grown_messages, max_tokens=4)))

    assert first.cached_tokens == 0
    assert grown.prompt_tokens > first.prompt_tokens
    # Everything up to the end of the old transcript comes from the KV cache.
    assert grown.cached_tokens >= first.prompt_tokens - 8
    assert grown.cached_tokens < grown.prompt_tokens


async def test_json_schema_response_format_yields_valid_json(backend):
    schema = {
        "type": "object",
        "properties": {"name": {"type": "string"}, "age": {"type": "integer"}},
        "required": ["name", "age"],
    }
    request = ChatRequest(
        [{"role": "user", "content": "Describe Bob, who is 42, as JSON."}],
        max_tokens=48,
        response_format={"type": "json_schema", "json_schema": {"name": "person", "schema": schema}},
    )

    deltas, finished = await collect(backend.stream(request))

    assert finished.finish_reason == "stop"
    jsonschema.validate(json.loads("".join(deltas)), schema)


async def test_cancelling_stops_the_generation_at_the_next_token(backend):
    # The grammar forbids ending before 1500 numbers: only the stop flag can end this early.
    endless = {"type": "array", "items": {"type": "integer"}, "minItems": 1500}
    request = ChatRequest(
        [{"role": "user", "content": "List numbers."}],
        max_tokens=1500,
        response_format={"type": "json_schema", "json_schema": {"name": "n", "schema": endless}},
    )
    _, probe = await collect(backend.stream(ChatRequest(request.messages, max_tokens=1)))
    llama = backend._llama  # peek at llama.cpp's token count once the worker is done

    await abandon_after_first_delta(backend.stream(request), "cancel")
    await backend.aclose()  # returns once the worker thread has let go of the model

    generated = llama.n_tokens - probe.prompt_tokens
    assert generated < 64, f"generation ran on for {generated} tokens after cancellation"


async def test_generations_run_one_at_a_time(backend):
    log: list[str] = []

    async def run(tag: str) -> None:
        request = ChatRequest([{"role": "user", "content": f"Say {tag}."}], max_tokens=6)
        async for item in backend.stream(request):
            log.append(f"{tag}:{'delta' if isinstance(item, Delta) else 'done'}")

    await asyncio.gather(run("a"), run("b"))

    first_done = log.index(f"{log[0][0]}:done")
    assert all(entry.startswith(log[0][0]) for entry in log[: first_done + 1])
    assert backend.max_in_flight == 1


async def test_prompt_longer_than_the_window_is_a_bad_request():
    small = LocalBackend("smollm2", THREADS, n_ctx=128)
    try:
        with pytest.raises(LLMError) as caught:
            await collect(small.stream(ChatRequest([{"role": "user", "content": TRANSCRIPT}])))
    finally:
        await small.aclose()
    assert caught.value.code == "bad_request"


async def test_missing_model_is_reported_on_start(tmp_path):
    absent = LocalBackend(str(tmp_path / "absent.gguf"))
    with pytest.raises(LLMError) as caught:
        await absent.start()
    await absent.aclose()
    assert caught.value.code == "model_missing"


def test_openai_json_schema_becomes_llama_json_object():
    schema = {"type": "object"}
    given = {"type": "json_schema", "json_schema": {"name": "x", "schema": schema}}
    assert llama_response_format(given) == {"type": "json_object", "schema": schema}
    assert llama_response_format({"type": "json_object"}) == {"type": "json_object"}
    assert llama_response_format(None) is None


@pytest.mark.parametrize(
    "previous, prompt, reused",
    [([], [1, 2, 3], 0), ([1, 2, 3, 9], [1, 2, 3, 4], 3), ([1, 2, 3, 4, 5], [1, 2, 3], 2), ([7], [1], 0)],
)
def test_reused_prefix_tokens(previous, prompt, reused):
    assert reused_prefix_tokens(previous, prompt) == reused


async def test_a_call_abandoned_while_it_waits_for_the_thread_leaves_no_stray_failure():
    """Seen at the end of the 30-minute soak: a call cancelled while its work waited behind another's,
    then the model closed; the work then ran on a model that was gone ("Future exception was never
    retrieved: AttributeError ... input_ids")."""
    loop = asyncio.get_running_loop()
    unhandled: list[dict] = []
    loop.set_exception_handler(lambda _, context: unhandled.append(context))
    local = LocalBackend("smollm2", THREADS, n_ctx=2048)
    await local.start()
    gate = threading.Event()
    busy = loop.run_in_executor(local._executor, gate.wait)  # the model's one thread is taken
    call = asyncio.ensure_future(collect(local.stream(ChatRequest([SYSTEM], max_tokens=4))))
    await asyncio.sleep(0.2)  # the call holds the model's lock; its work waits for the thread
    call.cancel()
    await asyncio.gather(call, return_exceptions=True)
    closing = asyncio.ensure_future(local.aclose())
    await asyncio.sleep(0.2)  # aclose has let go of the model; closing it waits for the thread too
    gate.set()
    await busy
    await closing
    del call
    gc.collect()
    await asyncio.sleep(0.1)
    assert not unhandled, unhandled
