"""The backend stream as the assistant sees it: one delta per event-loop turn, nothing lost or reordered."""

from __future__ import annotations

import asyncio

from streamtwin.llm.backend import ChatRequest
from streamtwin.assistant.llm_calls import Caller, StreamStats
from tests.fakes.burst_backend import BurstBackend

REQUEST = ChatRequest([{"role": "user", "content": "go"}])


def tokens(burst: int, count: int) -> list[str]:
    return [f" {burst}.{i}" for i in range(count)]


async def test_a_burst_of_tokens_ready_in_one_turn_becomes_one_delta_in_order():
    bursts = [tokens(b, n) for b, n in enumerate([500, 1, 64, 2000])]
    caller = Caller(BurstBackend(bursts), lambda event: None, asyncio.get_running_loop().time, 10.0)
    deltas: list[str] = []
    stats = StreamStats()
    text = await caller.stream(REQUEST, stats, deltas.append)
    assert deltas == ["".join(burst) for burst in bursts]  # few deltas, each turn whole, in order
    assert text == "".join(deltas) == "".join(token for burst in bursts for token in burst)
    assert stats.deltas == sum(map(len, bursts)) == stats.tokens()
    assert stats.first_token is not None and stats.ended is not None


async def test_without_a_listener_the_text_is_still_collected():
    bursts = [tokens(0, 3), tokens(1, 2)]
    caller = Caller(BurstBackend(bursts), lambda event: None, asyncio.get_running_loop().time, 10.0)
    assert await caller.stream(REQUEST, StreamStats()) == "".join(bursts[0] + bursts[1])


async def test_a_cancelled_stream_hands_over_what_already_came():
    bursts = [tokens(0, 10), tokens(1, 10)]
    caller = Caller(BurstBackend(bursts, gate_after=1), lambda event: None, asyncio.get_running_loop().time, 10.0)
    deltas: list[str] = []
    stats = StreamStats()
    task = asyncio.ensure_future(caller.stream(REQUEST, stats, deltas.append))
    while not deltas:
        await asyncio.sleep(0)
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)
    assert deltas == ["".join(bursts[0])]
    assert stats.text == deltas[0] and stats.deltas == 10


async def test_a_second_stream_with_the_same_stats_times_itself_never_a_negative_first_token():
    """An answer that failed its check is asked again with the same stats (assistant.done's ttft_ms):
    the first token of the first stream came before the second began (ttft_ms was -3721 on meeting.wav)."""
    now = [100.0]
    caller = Caller(BurstBackend([tokens(0, 2)]), lambda event: None, lambda: now[0], 10.0)
    stats = StreamStats()
    await caller.stream(REQUEST, stats)
    now[0] = 104.0  # the check, then the retry
    caller.backend = BurstBackend([tokens(1, 2)])
    await caller.stream(REQUEST, stats)
    assert stats.began == 104.0 and stats.ttft_ms() == 0.0
    assert stats.deltas == 2
