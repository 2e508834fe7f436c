"""``streamtwin ask`` over many recorded meetings: the pipeline's own cost, and the answers' accuracy.

Run from the repository root:

  python -m bench.ask_meetings                       # assembly: 1 M tokens of meetings, a model of unbounded speed
  python -m bench.ask_meetings --accuracy [--limit N] [--llm-model qwen]   # the 50 meetings, the local model

1. assembly: the 50 recordings of samples/make_meetings.py, copied under new names until they hold
   ``--tokens`` (default 1 M, estimated as streamtwin/meetings/layout.py does) of meetings.  Measured with
   perf_counter, median of ``--rounds``: reading and folding the recordings (``load``), laying them out into
   one whole-context prompt (``layout``), and ``streamtwin.ask`` end to end with an in-process backend that
   answers at once with a quote from the last meeting (everything but the model: load, layout, request,
   quote check).  Target: the prompt assembled in <= 1 s, so a model of 1 M tokens/s is the limit.
2. accuracy: each question of samples/make_meetings.py (its answer is spread over 2-3 of the 50 meetings)
   asked with the local model (map-reduce: its window holds a few meetings at a time), all of them together
   (``answer_questions``: each chunk is asked every question in a row, so llama.cpp reads it once).  An answer is right
   when one alternative of every fact is in it (bench/scoring.py's ``answer_is_right``); ``sources`` counts
   the questions whose checked sources include two or more of the meetings where the answer was said;
   ``quotes_appended`` those whose reduce answer cited no quote, so the chunks' quotes were put after it (an
   answer is scored without them: they would hold the facts whatever the model said); ``right_in_own_words``
   scores the answer with every quote taken out (the model's words alone).

Ends with one JSON line.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from bench.scoring import answer_is_right
from streamtwin.config import Config
from streamtwin.llm.backend import ChatRequest, Delta, Finished, StreamItem
from streamtwin.meetings.asking import answer_questions, ask
from streamtwin.meetings.evidence import own_words
from streamtwin.meetings.layout import estimate_tokens, lay_out, whole_messages
from streamtwin.meetings.library import load_meetings

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "samples"))
import make_meetings  # noqa: E402

TARGET_ASSEMBLY_S = 1.0
QUOTED = re.compile(r'"[^"\n]*" \[\d+\]')  # a checked quote as answers show it: the transcript's words, not the model's


class InstantBackend:
    """A model of unbounded speed: answers every request at once with one quote; records each prompt's size."""

    name = "instant"
    model = "unbounded"
    max_in_flight = 64
    supports_images = False

    def __init__(self, context_tokens: int, reply: str) -> None:
        self.context_tokens = context_tokens
        self.reply = reply
        self.prompt_chars: list[int] = []

    async def stream(self, request: ChatRequest) -> AsyncIterator[StreamItem]:
        self.prompt_chars.append(sum(len(m["content"]) for m in request.messages))
        yield Delta(self.reply)
        yield Finished(completion_tokens=1)

    async def aclose(self) -> None:
        pass


async def bench_assembly(tokens: int, rounds: int) -> dict[str, Any]:
    config = Config()
    with tempfile.TemporaryDirectory() as scratch:
        base, many = Path(scratch) / "fifty", Path(scratch) / "many"
        make_meetings.write(base)
        one_round = await load_meetings(config, [str(base)])
        per_round = estimate_tokens(lay_out(one_round, 10**9, 0).whole)
        needed = -(-tokens // per_round)
        for number in range(needed):
            for path in sorted(base.glob("*.jsonl")):
                target = many / f"{number:03d}" / path.name
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(path, target)
        files = needed * len(one_round)
        loads, layouts, totals, checks = [], [], [], []
        meetings = []
        for _ in range(rounds):
            started = time.perf_counter()
            meetings = await load_meetings(config, [str(many)])
            loads.append(time.perf_counter() - started)
            started = time.perf_counter()
            layout = lay_out(meetings, 10**9, 512)
            whole_messages(layout, "When is the Falcon launch now?")
            layouts.append(time.perf_counter() - started)
        last = meetings[-1]
        reply = f'It moved [M{len(meetings)} 00:00 {last.lines[1].speaker}] "{last.lines[1].text}"'
        backend = InstantBackend(10**9, reply)
        for _ in range(rounds):
            started = time.perf_counter()
            answer = await ask("When is the Falcon launch now?", str(many), backend=backend, config=config)
            totals.append(time.perf_counter() - started)
            checks.append(answer.seconds["check"])
        assert answer.mode == "whole" and len(answer.sources) == 1, answer.to_dict()
    prompt_chars = backend.prompt_chars[-1]
    return {
        "files": files, "meetings": len(meetings), "estimated_tokens": estimate_tokens("x" * prompt_chars),
        "prompt_chars": prompt_chars, "rounds": rounds,
        "load_s": round(statistics.median(loads), 3), "layout_s": round(statistics.median(layouts), 3),
        "ask_end_to_end_s": round(statistics.median(totals), 3), "quote_check_s": round(statistics.median(checks), 4),
    }


async def bench_accuracy(limit: int, llm_model: str, context_tokens: int) -> dict[str, Any]:
    from streamtwin.llm.factory import make_backend

    config = Config(llm="local", llm_model=llm_model, llm_context_tokens=context_tokens)
    backend = make_backend(config)
    assert backend is not None
    results = []
    with tempfile.TemporaryDirectory() as scratch:
        out = Path(scratch)
        make_meetings.write(out)
        questions = json.loads((out / "questions.json").read_text())[:limit]
        meetings = await load_meetings(config, [str(out)])
        names = [m.name for m in meetings]
        started = time.perf_counter()
        answers = await answer_questions([q["question"] for q in questions], meetings, backend, answer_tokens=300)
        took = time.perf_counter() - started
        for question, answer in zip(questions, answers):
            # Scored on what the model answered (with the quotes it cited), never on quotes put after an answer
            # that cited none: those are the transcript's words, and would hold the facts whatever it said.
            said, appended = own_words(answer.text)
            facts = [fact.split("|") for fact in question["facts"]]
            right, found = answer_is_right(said, facts)
            cited = {source.meeting for source in answer.sources} & set(question["meetings"])
            results.append({
                "question": question["question"], "right": right, "facts_found": found,
                "facts": len(question["facts"]), "sourced_meetings": sorted(cited),
                "sources": len(answer.sources), "rejected_quotes": len(answer.rejected), "calls": answer.calls,
                # the reduce answer cited no quote: the chunks' quotes were put after it (meetings/evidence.py)
                "quotes_appended": bool(appended),
                "right_counting_appended_quotes": answer_is_right(answer.text, facts)[0],
                "right_in_own_words": answer_is_right(QUOTED.sub(" ", said), facts)[0],
                "mode": answer.mode, "answer": answer.text,
            })
            print(f"{'RIGHT' if right else 'wrong'} {found}/{len(question['facts'])} facts, sources from "
                  f"{len(cited)} of {len(question['meetings'])} meetings: {question['question']}\n"
                  f"    {answer.text[:400]!r}", flush=True)
    await backend.aclose()
    right = sum(r["right"] for r in results)
    return {
        "model": llm_model, "context_tokens": context_tokens, "meetings": len(names),
        "meeting_tokens": estimate_tokens(lay_out(meetings, 10**9, 0).whole),
        "questions": len(results), "right": right, "accuracy": round(right / max(1, len(results)), 3),
        "facts_found": sum(r["facts_found"] for r in results), "facts": sum(r["facts"] for r in results),
        "sourced_two_or_more": sum(len(r["sourced_meetings"]) >= 2 for r in results),
        "with_sources": sum(r["sources"] > 0 for r in results),
        "quotes_appended": sum(r["quotes_appended"] for r in results),
        "right_counting_appended_quotes": sum(r["right_counting_appended_quotes"] for r in results),
        "right_in_own_words": sum(r["right_in_own_words"] for r in results),
        "rejected_quotes": sum(r["rejected_quotes"] for r in results), "seconds": round(took, 1),
        "per_question": results,
    }


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tokens", type=int, default=1_000_000, help="assembly: meetings to lay out, in tokens")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--accuracy", action="store_true", help="ask the 50 meetings with the local model")
    parser.add_argument("--limit", type=int, default=10, help="accuracy: the first N questions")
    parser.add_argument("--llm-model", default="qwen", help="accuracy: qwen (default), smollm2 or a .gguf path")
    parser.add_argument("--context-tokens", type=int, default=3328, help="accuracy: the local model's window")
    args = parser.parse_args()
    if args.accuracy:
        result = {"bench": "ask_meetings", "accuracy": await bench_accuracy(args.limit, args.llm_model,
                                                                             args.context_tokens)}
        summary = {k: v for k, v in result["accuracy"].items() if k != "per_question"}
        print(f"accuracy: {summary}")
    else:
        assembly = await bench_assembly(args.tokens, args.rounds)
        print(f"assembly: {assembly}")
        result = {"bench": "ask_meetings", "assembly": assembly, "target_s": TARGET_ASSEMBLY_S,
                  "ok": assembly["load_s"] + assembly["layout_s"] <= TARGET_ASSEMBLY_S}
    print(json.dumps(result))


if __name__ == "__main__":
    asyncio.run(main())
