"""Concurrent live sessions: how many real-time audio+video sessions one machine holds (LLM off).

    python -m bench.sessions [--asr-model base|tiny.en] [--max 8] [--limit-p90 2.0] [--repeat 2] [--language en|auto]
                           [--language-hint en-US] [--source samples/meeting.mp4] [--stagger 0]

Every session decodes through the one shared speech engine (one loaded model, a decode per core,
windows batched when they are ready together).

For N = 1, 2, ... the server (this process) receives N WebRTC publishers at
once (a second process plays the sample N times, in real time, audio and
video).  For every committed word the server measures its commit latency: the
emission time of its transcript.final minus the arrival of the audio the word
ends with (the stricter figure: a final's earlier words waited longer than its
last).  Since 2026-12-05 a word ends where the synthesizer ended it (:mod:`bench.spoken`;
the words the transcript has right), no longer where Whisper aligned it, early with base and
late with tiny.en (that figure is still given: ``commit_from_aligned_s``).  ``--repeat K``
plays each N K times and pools the words (a p90 over 40 finals moved by a second from run
to run).  N sessions keep up while the p90
commit latency stays under ``--limit-p90`` seconds and every session's speech
is flushed within ``--limit-p90`` of its source ending; the first N that fails
ends the run.  Speech is in ``--language`` (default ``en``, the sample's): with
``auto`` each session first holds its words until 3 s of audio settle the
language, a start-up cost of ~3 s on the first words of every session that does
not grow with their number, and on a 20 s clip those words alone are the p90.
Publishers share the two cores with the
server, as they would not in production: the figure is a floor.

By default every publisher starts at once and plays the same clip, so every session's utterances
end in the same instant and their final decodes all want a worker then, which independent speakers
rarely do. ``--stagger S`` starts the k-th publisher k*S seconds after the first: a diagnostic
that tells CPU from that coincidence (the capacity figure is the default, synchronised run).

The last line of output is one JSON object.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import multiprocessing
import os
import resource
import threading
import time
from dataclasses import replace
from typing import Any

from bench.live_latency import percentiles
from bench.spoken import spoken_word_ends, timed_commits, word_key


def publishers_process(url: str, source: str, count: int, conn: Any, stagger_s: float = 0.0, hint: str = "") -> None:
    logging.basicConfig(level=logging.WARNING)
    asyncio.run(_publish_many(url, source, count, conn, stagger_s, hint))


async def _publish_many(url: str, source: str, count: int, conn: Any, stagger_s: float = 0.0, hint: str = "") -> None:
    """Play ``source`` to ``url`` ``count`` times at once, the k-th starting k * ``stagger_s`` after the
    first, each hello carrying the language ``hint`` if given; sends each publication's end time (or its
    error) through ``conn``."""
    from streamtwin.media.publisher import Publication, open_player
    from streamtwin.service.webrtc import use_loopback_candidates

    use_loopback_candidates()

    async def one(delay: float) -> float:
        await asyncio.sleep(delay)
        player = open_player(source)
        publication = Publication(url, player.audio, player.video, on_event=lambda event: None, label=source,
                                  language=hint)
        await publication.run()
        return time.time()

    conn.send(await asyncio.gather(*(one(k * stagger_s) for k in range(count)), return_exceptions=True))


def thread_cpu() -> dict[int, float]:
    """CPU seconds of each thread of this process, by native id (Linux ``/proc``; empty elsewhere)."""
    tick = os.sysconf("SC_CLK_TCK")
    seconds = {}
    for tid in os.listdir("/proc/self/task") if os.path.isdir("/proc/self/task") else []:
        try:
            with open(f"/proc/self/task/{tid}/stat") as stat:
                fields = stat.read().rpartition(")")[2].split()
        except OSError:  # the thread ended meanwhile
            continue
        seconds[int(tid)] = (int(fields[11]) + int(fields[12])) / tick  # utime, stime
    return seconds


class CpuSplit:
    """Where a trial's CPU went: the event loop (this thread), the threads that outlive sessions (the speech
    engine's: its native decode threads and its pool), the rest of the server (a session's own threads: codecs,
    jitter buffers), and the publishers (child processes, counted once they are joined)."""

    def __init__(self) -> None:
        self._wall = time.monotonic()
        self._process = time.process_time()
        self._loop = time.thread_time()
        self._threads = thread_cpu()
        self._children = self._children_cpu()

    @staticmethod
    def _children_cpu() -> float:
        usage = resource.getrusage(resource.RUSAGE_CHILDREN)
        return usage.ru_utime + usage.ru_stime

    def result(self) -> dict[str, float]:
        """CPU seconds since this was made (call it after the publishers' process was joined)."""
        now = thread_cpu()
        main = threading.get_native_id()
        lasting = sum(now[tid] - before for tid, before in self._threads.items() if tid in now and tid != main)
        server = time.process_time() - self._process
        loop = time.thread_time() - self._loop
        return {
            "wall_s": round(time.monotonic() - self._wall, 1),
            "server_s": round(server, 1),
            "engine_threads_s": round(lasting, 1),
            "event_loop_s": round(loop, 1),
            "session_threads_s": round(max(0.0, server - lasting - loop), 1),
            "publishers_s": round(self._children_cpu() - self._children, 1),
        }


async def trial(count: int, source: str, config: Any, stagger_s: float = 0.0, hint: str = "") -> dict[str, Any]:
    from streamtwin.events import SessionEnded, TranscriptFinal
    from streamtwin.service.server import Server
    from streamtwin.service.webrtc import use_loopback_candidates

    use_loopback_candidates()
    # Measuring the engine, not admission: measured capacity (max_speech_load) would refuse the sessions.
    server = Server(replace(config, max_sessions=max(count, config.max_sessions), max_speech_load=0.0))
    await server.start()
    lives: dict[str, Any] = {}
    ingests: dict[str, Any] = {}  # a session lets go of its ingest when the publisher leaves
    finals: dict[str, list[tuple[float, list[tuple[str, float]]]]] = {}  # emitted at, its words and their ends
    ended: dict[str, float] = {}

    def recorder(session_id: str):
        def on_event(event: Any) -> None:
            if isinstance(event, TranscriptFinal):
                finals[session_id].append((event.wall, [(word[0], word[2]) for word in event.words] or [("", event.end)]))
            elif isinstance(event, SessionEnded):
                ended[session_id] = event.wall
        return on_event

    cpu = CpuSplit()
    context = multiprocessing.get_context("spawn")
    parent, child = context.Pipe()
    process = context.Process(
        target=publishers_process, args=(f"ws://127.0.0.1:{server.port}/ws", source, count, child, stagger_s, hint),
        daemon=True,
    )
    process.start()
    while not parent.poll():
        for session_id, live in list(server.sessions.items()):
            if session_id not in lives:
                lives[session_id] = live
                finals[session_id] = []
                live.session.bus.subscribe(recorder(session_id))
            if live.ingest is not None:
                ingests[session_id] = live.ingest
        await asyncio.sleep(0.05)
    published = parent.recv()
    process.join(10)
    await server.close()
    spent = cpu.result()

    failures = [str(p) for p in published if isinstance(p, BaseException)]
    spoken = spoken_word_ends(source)
    latencies: list[float] = []  # from each word's spoken end where the source has them, else as aligned
    aligned: list[float] = []
    slowest: list[tuple[float, float, str]] = []  # latency, media time, word
    flush: list[float] = []
    for session_id, live in lives.items():
        ingest = ingests.get(session_id)
        clock = ingest.audio_clock if ingest is not None else None
        if clock is None or clock.origin is None:
            failures.append(f"{session_id}: no audio arrived")
            continue
        for wall, words in finals[session_id]:
            for text, end in words:
                aligned.append(wall - clock.wall_at(end))
                slowest.append((round(aligned[-1], 2), round(end, 2), text.strip()))
        if spoken is not None:
            committed = [(word_key(text), wall) for wall, words in finals[session_id] for text, _ in words]
            latencies += timed_commits(committed, [(word, clock.wall_at(end)) for word, end in spoken])
        audio_s = live.session.speech.audio_seconds
        if session_id in ended:
            flush.append(ended[session_id] - clock.wall_at(audio_s))
    if spoken is None:
        latencies = aligned
    return {
        "sessions": count,
        "opened": len(lives),
        "failures": failures,
        "commit_latency_s": percentiles(latencies),
        "commit_from_aligned_s": percentiles(aligned),
        "max_commit_latency_s": round(max(latencies), 3) if latencies else None,
        "end_to_session_ended_s": round(max(flush), 3) if flush else None,
        "finals": sum(len(f) for f in finals.values()),
        "words": len(latencies),
        "latencies": latencies,
        "aligned_latencies": aligned,
        "slowest_words": sorted(slowest, reverse=True)[:5],
        "cpu_s": spent,
    }


def pooled(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """Several trials of the same count as one: words pooled, the worst flush, every failure."""
    latencies = [latency for run in runs for latency in run.pop("latencies")]
    aligned = [latency for run in runs for latency in run.pop("aligned_latencies")]
    flushes = [run["end_to_session_ended_s"] for run in runs]
    return {
        "sessions": runs[0]["sessions"],
        "opened": min(run["opened"] for run in runs),
        "failures": [failure for run in runs for failure in run["failures"]],
        "commit_latency_s": percentiles(latencies),
        "commit_from_aligned_s": percentiles(aligned),
        "max_commit_latency_s": round(max(latencies), 3) if latencies else None,
        "end_to_session_ended_s": None if None in flushes else max(flushes),
        "finals": sum(run["finals"] for run in runs),
        "words": len(latencies),
        "cpu_s": {key: round(sum(run["cpu_s"][key] for run in runs), 1) for key in runs[0]["cpu_s"]},
        "runs": runs,
    }


def keeps_up(result: dict[str, Any], count: int, limit: float) -> bool:
    p90 = result["commit_latency_s"]["p90"]
    flushed = result["end_to_session_ended_s"]
    return (
        not result["failures"] and result["opened"] == count and p90 is not None and p90 <= limit
        and flushed is not None and flushed <= limit
    )


def main() -> None:
    from streamtwin.config import Config
    from streamtwin.speech.engine import engine_threads, load_engine

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--source", default="samples/meeting.mp4")
    parser.add_argument("--max", type=int, default=8, help="stop after this many sessions")
    parser.add_argument("--limit-p90", type=float, default=2.0, help="seconds of p90 commit latency that still count")
    parser.add_argument("--asr-model", default="base", help="speech model (default: base)")
    parser.add_argument("--asr-threads", type=int, default=0, help="threads per decode (0: one, a decode per core)")
    parser.add_argument("--start", type=int, default=1, help="first session count to try")
    parser.add_argument(
        "--language", default="en",
        help="speech language (default en, the sample's; auto: each session's first words wait for the detection)",
    )
    parser.add_argument(
        "--language-hint", default="", metavar="TAG",
        help="each publisher's hello carries it (options.language, as a browser sends navigator.language): with "
        "--language auto, the detection only confirms it (default: none)",
    )
    parser.add_argument("--repeat", type=int, default=2, help="trials per session count, their words pooled (default 2)")
    parser.add_argument(
        "--stagger", type=float, default=0.0, metavar="S",
        help="start the k-th publisher k*S seconds after the first (default 0: all at once, the capacity figure)",
    )
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    flags = {"llm": "none", "asr_threads": args.asr_threads, "asr_model": args.asr_model, "asr_language": args.language}
    config = replace(Config.from_sources(flags), host="127.0.0.1", port=0)
    load_engine(config)  # loaded once, before the first publisher waits for it
    trials = []
    held = 0
    for count in range(args.start, args.max + 1):
        result = pooled([asyncio.run(trial(count, args.source, config, args.stagger, args.language_hint))
                         for _ in range(args.repeat)])
        result["keeps_up"] = keeps_up(result, count, args.limit_p90)
        trials.append(result)
        latency = result["commit_latency_s"]
        print(
            f"{count} sessions: word commit latency p50 {latency['p50']} s p90 {latency['p90']} s over {result['words']} words "
            f"(from the aligned ends p90 {result['commit_from_aligned_s']['p90']} s) "
            f"(max {result['max_commit_latency_s']}), last flush {result['end_to_session_ended_s']} s after the end"
            f"{'' if result['keeps_up'] else ' -> falls behind'}",
            flush=True,
        )
        cpu = result["cpu_s"]
        print(
            f"  CPU over {cpu['wall_s']} s: server {cpu['server_s']} s (engine threads {cpu['engine_threads_s']}, "
            f"event loop {cpu['event_loop_s']}, sessions' threads {cpu['session_threads_s']}), "
            f"publishers {cpu['publishers_s']} s; {os.cpu_count()} cores",
            flush=True,
        )
        if not result["keeps_up"]:
            break
        held = count
    threads, workers = engine_threads(config)
    print(json.dumps({"bench": "sessions", "source": args.source, "stagger_s": args.stagger,
                      "asr_model": config.asr_model, "language": config.asr_language,
                      "language_hint": args.language_hint, "limit_p90_s": args.limit_p90,
                      "threads_per_decode": threads, "workers": workers,
                      "load_average": os.getloadavg()[0], "sessions_in_real_time": held, "trials": trials}))


if __name__ == "__main__":
    main()
