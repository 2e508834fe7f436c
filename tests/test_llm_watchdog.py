"""A single hosted backend that stalls, through the real SDKs and a loopback server speaking their wire format.

Alone, a backend has nothing to fail over to; before the watchdog a stalled stream hung the generation,
unreported, until the SDK's read timeout (60 s OpenAI, 30 s Groq).  Now the session hears ``llm_timeout``
once the stall timeout has passed, and the driver backs off and asks again.
"""

from __future__ import annotations

import asyncio
import time

import pytest

from streamtwin.assistant.builder import build_assistant
from streamtwin.bus import EventBus
from streamtwin.config import Config
from streamtwin.events import AssistantDone, Error, Event, TranscriptFinal
from streamtwin.llm.factory import make_backend
from streamtwin.llm.watchdog import WatchedBackend
from tests.fakes.openai_server import FakeLLMServer, Reply

STALL_S = 2.0
# Generous: the point is seconds, not the SDK's 30-60 s; a loaded machine must not fail the test.
REPORTED_WITHIN_S = 20.0


def single_backend_config(kind: str, url: str) -> Config:
    timeouts = {"llm_first_token_timeout_s": STALL_S, "llm_stall_timeout_s": STALL_S, "llm_heartbeat_s": 1e9}
    if kind == "groq":
        return Config(llm="groq", groq_api_key="gsk-test", groq_base_url=url, **timeouts)
    return Config(llm="openai", llm_base_url=url, llm_model="fake-model", **timeouts)


@pytest.mark.parametrize(
    "kind, stall, why",
    [
        ("groq", Reply("We ship on Friday.", stall_after=1), "stalled, no token for 2 s"),
        ("openai", Reply("We ship on Friday.", stall_after=1), "stalled, no token for 2 s"),
        ("openai", Reply(stall=True), "no first token in 2 s"),
    ],
)
async def test_a_stalled_single_backend_is_reported_as_llm_timeout_within_seconds(kind, stall, why):
    async with FakeLLMServer(Reply("Noted.")) as server:
        server.script(stall)
        config = single_backend_config(kind, server.url)
        backend = make_backend(config)
        assert isinstance(backend, WatchedBackend)
        bus = EventBus("stall")
        events: list[Event] = []
        bus.subscribe(events.append)
        assistant = build_assistant(config, backend, bus.emit, twin_updates=False)
        bus.subscribe(assistant.on_event)
        await assistant.start()
        try:
            began = time.monotonic()
            bus.emit(TranscriptFinal(text="We ship on Friday.", start=0.0, end=1.5, utterance=1, utterance_end=True))
            async with asyncio.timeout(REPORTED_WITHIN_S):
                while not [e for e in events if isinstance(e, Error)]:
                    await asyncio.sleep(0.02)
            reported = time.monotonic()
            print(f"{kind}: reported {reported - began:.2f} s after the final")
            (error,) = [e for e in events if isinstance(e, Error)]
            assert error.code == "llm_timeout" and error.message == f"{kind}: {why}" and not error.fatal
            await asyncio.wait_for(server.wait_aborted(1), 5)  # the stalled HTTP stream was closed
            (failed,) = [e for e in events if isinstance(e, AssistantDone)]
            assert failed.cancelled and failed.reason == "llm_timeout"  # not an answer

            # The driver backs off (1 s after a first failure), then asks again and is answered.
            async with asyncio.timeout(REPORTED_WITHIN_S):
                while len(server.requests) < 2:
                    await asyncio.sleep(0.02)
            assert time.monotonic() - reported > 0.8
            async with asyncio.timeout(REPORTED_WITHIN_S):
                while not [e for e in events if isinstance(e, AssistantDone) and not e.cancelled]:
                    await asyncio.sleep(0.02)
        finally:
            await assistant.close()
            await backend.aclose()
