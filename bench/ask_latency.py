"""A typed question to its answer's first token at the asker, while the session transcribes (issue 36).

Run from the repository root:  python -m bench.ask_latency [--questions 60] [--asr-model base]

The server (this process) runs one session fed samples/meeting.wav in real time (looped), so speech
recognition, the rules' twin and the assistant's comments run while questions come.  The LLM is a loopback
server speaking Groq's wire format that answers at once (an answer the checks accept: one call per question),
reached through the real Groq SDK: what is measured is the pipeline, not a model.  A viewer connected over the real websocket types each question
(``{"type": "ask"}``), waits for its ``assistant.done``, pauses a random 0.2-1 s, and asks the next (a new
viewer every six questions: one connection may ask six a minute).

Per question: milliseconds from sending the ask to receiving ``assistant.started`` and to the answer's first
text (``assistant.delta``; an answer is checked before it is shown, so it comes whole).  Target: first text
p50 <= 150 ms, p99 <= 300 ms.  Ends with one JSON line; say the load average beside the figures.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import random
import time
import wave
from dataclasses import replace
from pathlib import Path

import numpy as np

from bench.llm_race import percentiles_ms
from streamtwin.assistant.typed import ASKS_PER_MINUTE
from streamtwin.config import Config
from streamtwin.llm.groq_backend import GroqBackend
from streamtwin.media.publisher import ASK_REFUSALS
from streamtwin.service.server import Server, make_session_factory
from tests.fakes.openai_server import FakeLLMServer, Reply
from tests.live import hello, open_ws, recv_json, send_json

SAMPLE = Path(__file__).resolve().parent.parent / "samples" / "meeting.wav"
CHUNK_S = 0.1
QUESTIONS = [
    "What is this meeting about?", "Who is working on the search page?", "What did we decide so far?",
    "Which questions are still open?", "Who spoke last?", "What are the action items?",
]


async def feed_in_real_time(session, audio: np.ndarray, stop: asyncio.Event) -> None:
    """Push the sample in 0.1 s chunks at wall-clock pace, from the start again when it ends."""
    step = int(16000 * CHUNK_S)
    started, pushed = time.monotonic(), 0
    while not stop.is_set():
        at = pushed % len(audio)
        await session.push_audio(audio[at : at + step])
        pushed += step
        await asyncio.sleep(max(0.0, started + pushed / 16000 - time.monotonic()))


async def ask_all(server: Server, session_id: str, viewer_token: str, count: int, seed: int) -> list[dict]:
    rng = random.Random(seed)
    timings = []
    ws = None
    for index in range(count):
        if index % ASKS_PER_MINUTE == 0:  # a connection may ask so many a minute: the next viewer asks on
            if ws is not None:
                await ws.close()
            ws = await open_ws(server)
            assert (await hello(ws, "viewer", session=session_id, token=viewer_token))["type"] == "welcome"
        question = f"{QUESTIONS[index % len(QUESTIONS)]} ({index})"
        sent = time.perf_counter()
        await send_json(ws, {"type": "ask", "text": question})
        generation, row = None, {"question": question}
        while True:
            message = await recv_json(ws, timeout=60)
            now = time.perf_counter()
            kind = message.get("type")
            if kind == "error" and message["code"] in ASK_REFUSALS:  # others (twin_invalid: the fake's
                row["error"] = message["code"]                      # "Yes." is no twin) are not the question's
                break
            if kind == "assistant.started" and message.get("question") == question:
                generation, row["started_ms"] = message["generation"], (now - sent) * 1000
            elif kind == "assistant.delta" and message["generation"] == generation and "first_text_ms" not in row:
                row["first_text_ms"] = (now - sent) * 1000
            elif kind == "assistant.done" and message["generation"] == generation:
                row["cancelled"] = message["cancelled"]
                break
        timings.append(row)
        await asyncio.sleep(rng.uniform(0.2, 1.0))
    if ws is not None:
        await ws.close()
    return timings


async def trial(config: Config, count: int, seed: int) -> dict:
    with wave.open(str(SAMPLE)) as wav:
        audio = np.frombuffer(wav.readframes(wav.getnframes()), dtype=np.int16).astype(np.float32) / 32768
    # "Yes." passes every check of an answer (streamtwin/assistant/answers.py) whatever was asked: one call per
    # question.  A fixed sentence would be refused from the second question on as a repeat, and asked again.
    async with FakeLLMServer(reply=Reply("Yes.")) as llm:
        backend = GroqBackend("gsk-bench", base_url=llm.url)
        server = Server(config, session_factory=make_session_factory(backend))
        await server.start()
        live = server.open_session("bench")
        await live.session.start()
        stop = asyncio.Event()
        feeder = asyncio.ensure_future(feed_in_real_time(live.session, audio, stop))
        await asyncio.sleep(5.0)  # speech under way before the first question
        try:
            rows = await ask_all(server, live.id, live.viewer_token, count, seed)
        finally:
            stop.set()
            await feeder
            await server.close()
        calls = len(llm.requests)
    answered = [r for r in rows if "first_text_ms" in r]
    return {
        "questions": count,
        "answered": len(answered),
        "refused": sorted({r["error"] for r in rows if "error" in r}),
        "started_ms": percentiles_ms([r["started_ms"] / 1000 for r in answered]),
        "first_text_ms": percentiles_ms([r["first_text_ms"] / 1000 for r in answered]),
        "llm_calls": calls,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--questions", type=int, default=60)
    parser.add_argument("--asr-model", default="base")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    config = replace(
        Config.from_sources({"asr_model": args.asr_model}), host="127.0.0.1", port=0, vision=False, llm="groq",
        offer_timeout_s=3600,  # the bench pushes the audio itself: no publisher ever offers media
    )
    load_before = os.getloadavg()
    result = asyncio.run(trial(config, args.questions, args.seed))
    first = result["first_text_ms"]
    print(f"{result['answered']} of {result['questions']} questions answered; ask -> first answer text "
          f"p50 {first['p50']} ms, p90 {first['p90']} ms, p99 {first['p99']} ms "
          f"(assistant.started p50 {result['started_ms']['p50']} ms); {result['llm_calls']} LLM calls")
    print(json.dumps({"bench": "ask_latency", "asr_model": args.asr_model, "load_average_before": load_before,
                      "load_average_after": os.getloadavg(), **result}))


if __name__ == "__main__":
    main()
