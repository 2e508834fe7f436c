"""A room in real time on the shared speech engine of a server started with no flags (LLM off).

    python -m bench.rooms [--sample room_four|shared_mic] [--asr-model base|tiny.en] [--asr-language auto|en]
                          [--limit-p90 2.0] [--language-hint en-US]

samples/room_four.wav (the default) is a stand-up of four voices (David, Tom, Priya, Aiko; turns in
room_four.json); samples/shared_mic.wav one of three.  Each participant gets a track of the whole
meeting that carries only their own turns (silence elsewhere), as each person's microphone in a
browser meeting would.  A second process publishes the tracks over WebRTC in real time: the first
speaker's hello opens the room, the others join it with its join token (admitted as a default
server admits them: the room is one session, each joiner checked against measured speech load).  The server (this process) measures, per participant:

* word commit latency: for every word of the participant's that the transcript has right, its final's
  emission time minus the arrival of the audio where the synthesizer ended the word, on that
  participant's own media connection (:mod:`bench.spoken`, as bench.asr_stream and bench.sessions
  measure it).  Until 2026-12-05 this bench timed each final from the end Whisper aligned its last
  word to (still given: ``final_from_aligned_s``);
* whether the room kept real time: every participant's p90 under ``--limit-p90`` and the room's
  ``session.ended`` within ``--limit-p90`` of the last audio;
* attribution: the share of finals whose ``speaker`` is the participant who said them, judged
  from the sample's turns (a final's words, moved back from the session clock by the speaker's
  offset, must fall in that speaker's turns);
* the server process's CPU (share of one core over the run) and the load average beside it.

``--language-hint``: each publisher's hello carries it (``options.language``, as the page sends
``navigator.language``): with ``--asr-language auto`` a hint to the detection of the first speaker's language.

The last line of output is one JSON object.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import multiprocessing
import os
import tempfile
import time
import wave
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from bench.live_latency import percentiles
from bench.spoken import spoken_word_ends, timed_commits, word_key

SAMPLES = Path(__file__).resolve().parent.parent / "samples"
SAMPLE = SAMPLES / "room_four"  # main() sets the one asked for
RATE = 16000


def turns() -> list[dict[str, Any]]:
    return json.loads(SAMPLE.with_suffix(".json").read_text())["turns"]


def write_tracks(directory: Path) -> dict[str, Path]:
    """One wav per speaker: the whole meeting, silent except for their own turns."""
    with wave.open(str(SAMPLE.with_suffix(".wav"))) as wav:
        audio = np.frombuffer(wav.readframes(wav.getnframes()), dtype=np.int16)
    tracks: dict[str, Path] = {}
    for name in dict.fromkeys(t["speaker"] for t in turns()):
        own = np.zeros_like(audio)
        for turn in (t for t in turns() if t["speaker"] == name):
            a, b = int((turn["start"] - 0.2) * RATE), int((turn["end"] + 0.2) * RATE)
            own[a:b] = audio[a:b]
        path = tracks[name] = directory / f"{name}.wav"
        with wave.open(str(path), "wb") as out:
            out.setnchannels(1)
            out.setsampwidth(2)
            out.setframerate(RATE)
            out.writeframes(own.tobytes())
    return tracks


def publishers_process(url: str, tracks: dict[str, Path], conn: Any, language: str) -> None:
    logging.basicConfig(level=logging.WARNING)
    asyncio.run(_publish_room(url, tracks, conn, language))


async def _publish_room(url: str, tracks: dict[str, Path], conn: Any, language: str) -> None:
    from streamtwin.media.publisher import Publication, open_player
    from streamtwin.service.webrtc import use_loopback_candidates

    use_loopback_candidates()
    names = list(tracks)
    players = {name: open_player(str(tracks[name])) for name in names}
    publications = [
        Publication(url, players[name].audio, None, on_event=lambda event: None, label=name, name=name,
                    language=language)
        for name in names
    ]
    host = asyncio.ensure_future(publications[0].run())
    while not publications[0].welcome and not host.done():
        await asyncio.sleep(0.01)
    for joiner in publications[1:]:
        joiner.session = publications[0].welcome.get("session", "")
        joiner.join_token = publications[0].welcome.get("join_token", "")
    results = await asyncio.gather(host, *(p.run() for p in publications[1:]), return_exceptions=True)
    conn.send([repr(r) if isinstance(r, BaseException) else r.type for r in results])


def true_speaker(local_time: float) -> str:
    """Who spoke at ``local_time`` of the sample (the nearest turn within half a second)."""
    best = min(turns(), key=lambda t: max(t["start"] - local_time, local_time - t["end"], 0.0))
    return best["speaker"] if best["start"] - 0.5 <= local_time <= best["end"] + 0.5 else ""


async def trial(config: Any, tracks: dict[str, Path], language: str = "") -> dict[str, Any]:
    from streamtwin.events import SessionEnded, TranscriptFinal
    from streamtwin.service.server import Server
    from streamtwin.service.webrtc import use_loopback_candidates

    use_loopback_candidates()
    server = Server(config)  # the default server: the room is one session, its joiners measured as they come
    await server.start()
    finals: list[TranscriptFinal] = []
    ended: list[float] = []
    offsets: dict[str, float] = {}
    clocks: dict[str, Any] = {}
    watched: set[str] = set()

    def on_event(event: Any) -> None:
        if isinstance(event, TranscriptFinal) and event.text.strip():
            finals.append(event)
        elif isinstance(event, SessionEnded):
            ended.append(event.wall)

    context = multiprocessing.get_context("spawn")
    parent, child = context.Pipe()
    process = context.Process(
        target=publishers_process, args=(f"ws://127.0.0.1:{server.port}/ws", tracks, child, language), daemon=True
    )
    cpu_before, wall_before = time.process_time(), time.time()
    process.start()
    while not parent.poll():
        for live in list(server.sessions.values()):
            if live.id not in watched:
                watched.add(live.id)
                live.session.bus.subscribe(on_event)
            room = live.session.room
            for name, stream in (room.streams.items() if room is not None else []):
                if stream.offset is not None:
                    offsets.setdefault(name, stream.offset)
            for participant in live.participants:
                if participant.ingest is not None:
                    clocks[participant.name] = participant.ingest.audio_clock
        await asyncio.sleep(0.05)
    published = parent.recv()
    process.join(10)
    cpu_s, wall_s = time.process_time() - cpu_before, time.time() - wall_before
    await server.close()

    per_participant: dict[str, Any] = {}
    right = 0
    for name in tracks:
        own = [f for f in finals if f.speaker == name]
        clock, offset = clocks.get(name), offsets.get(name, 0.0)
        latencies: list[float] = []
        from_aligned: list[float] = []
        if clock is not None and clock.origin is not None:  # a track's time is the sample's
            from_aligned = [f.wall - clock.wall_at(f.end - offset) for f in own]
            committed = [(word_key(text), f.wall) for f in own for text, _, _ in f.words]
            spoken = spoken_word_ends(str(SAMPLE), {i for i, t in enumerate(turns()) if t["speaker"] == name})
            latencies = timed_commits(committed, [(word, clock.wall_at(end)) for word, end in spoken or []])
        per_participant[name] = {"finals": len(own), "commit_latency_s": percentiles(latencies),
                                 "final_from_aligned_s": percentiles(from_aligned), "offset_s": round(offset, 3)}
        for final in own:
            said_by = [true_speaker((w[1] + w[2]) / 2 - offset) for w in final.words]
            right += said_by.count(name) * 2 > len(said_by)
    last_audio = max(
        (clock.wall_at(max(f.end for f in finals if f.speaker == name) - offsets.get(name, 0.0)) or 0.0)
        for name, clock in clocks.items() if any(f.speaker == name for f in finals)
    ) if finals and clocks else None
    return {
        "published": published,
        "per_participant": per_participant,
        "finals": len(finals),
        "attribution": round(right / len(finals), 4) if finals else None,
        "end_to_session_ended_s": round(ended[-1] - last_audio, 3) if ended and last_audio else None,
        "server_cpu_share_of_a_core": round(cpu_s / wall_s, 3),
        "wall_s": round(wall_s, 1),
    }


def main() -> None:
    from streamtwin.config import Config
    from streamtwin.speech.engine import engine_threads, load_engine

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--limit-p90", type=float, default=2.0, help="seconds of p90 commit latency that still count")
    parser.add_argument("--sample", default="room_four", help="a sample whose turns say who spoke when (room_four)")
    parser.add_argument("--asr-model", default="base", help="speech model (default: base)")
    parser.add_argument("--asr-language", default="auto", help="auto: each participant's stream detects it")
    parser.add_argument("--language-hint", default="", help="the publishers' hello language (e.g. en-US); none: ''")
    args = parser.parse_args()
    global SAMPLE
    SAMPLE = SAMPLES / args.sample
    logging.basicConfig(level=logging.WARNING)
    config = replace(
        Config.from_sources({"llm": "none", "asr_model": args.asr_model, "asr_language": args.asr_language}),
        host="127.0.0.1", port=0, vision=False,
    )
    load_engine(config)  # loaded once, before the first publisher waits for it
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as directory:
        result = asyncio.run(trial(config, write_tracks(Path(directory)), args.language_hint))
    p90s = [p["commit_latency_s"]["p90"] for p in result["per_participant"].values()]
    flushed = result["end_to_session_ended_s"]
    result["kept_real_time"] = bool(
        p90s and all(p is not None and p <= args.limit_p90 for p in p90s)
        and flushed is not None and flushed <= args.limit_p90
    )
    for name, numbers in result["per_participant"].items():
        latency, per_final = numbers["commit_latency_s"], numbers["final_from_aligned_s"]
        print(f"{name}: {numbers['finals']} finals, word commit latency p50 {latency['p50']} s p90 {latency['p90']} s "
              f"over {latency['n']} words (per final, from the aligned ends: p90 {per_final['p90']} s)")
    print(f"attribution {result['attribution']}, kept real time: {result['kept_real_time']}, "
          f"server CPU {result['server_cpu_share_of_a_core']:.0%} of a core", flush=True)
    threads, workers = engine_threads(config)
    print(json.dumps({"bench": "rooms", "sample": args.sample, "participants": len(result["per_participant"]),
                      "asr_model": config.asr_model,
                      "asr_language": config.asr_language, "language_hint": args.language_hint,
                      "limit_p90_s": args.limit_p90, "threads_per_decode": threads, "workers": workers,
                      "load_average_before": load_before, "load_average_after": os.getloadavg()[0], **result}))


if __name__ == "__main__":
    main()
