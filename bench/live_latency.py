"""Live latency: a WebRTC publisher streams speech; from the end of each utterance to what a viewer sees.

    python -m bench.live_latency [samples/meeting.wav] [--llm none|local|groq|...] [--llm-model smollm2]

The server runs in this process, the publisher (aiortc, ``streamtwin stream``'s
code) in a second one, a websocket viewer here.  Everything is on loopback
(aioice limited to 127.0.0.1).  For every utterance of the sample's script
(``samples/meeting.json``, turn ends in seconds of media) the figures are:
the arrival at the viewer of the ``transcript.final`` that commits its last
words, and (with an LLM) of the first ``assistant.delta`` after it, minus the
wall time at which the publisher played the utterance's end.  The last line of
output is one JSON object with p50/p90.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import multiprocessing
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

SCRIPTS = {"meeting.wav": "meeting.json", "meeting.mp4": "meeting_mp4.json"}
COMMIT_SLACK_S = 0.5  # a turn's last word ends up to this long before the measured end of its audio


def publisher_process(url: str, source: str, conn: Any) -> None:
    """Publish ``source`` like ``streamtwin stream``; send back the wall time of media time 0."""
    logging.basicConfig(level=logging.WARNING)
    asyncio.run(_publish(url, source, conn))


async def _publish(url: str, source: str, conn: Any) -> None:
    from aiortc.mediastreams import MediaStreamError, MediaStreamTrack

    from streamtwin.media.publisher import Publication, open_player
    from streamtwin.service.webrtc import MediaClock, use_loopback_candidates

    class Clocked(MediaStreamTrack):
        """Passes frames through, noting when each was handed to the encoder (the media clock's origin)."""

        def __init__(self, inner: MediaStreamTrack) -> None:
            super().__init__()
            self.kind = inner.kind
            self.inner = inner
            self.clock = MediaClock()

        async def recv(self) -> Any:
            try:
                frame = await self.inner.recv()
            except MediaStreamError:
                self.stop()
                raise
            self.clock.observe(time.time(), float(frame.time))
            return frame

    use_loopback_candidates()
    player = open_player(source)
    audio = Clocked(player.audio)
    publication = Publication(url, audio, player.video, on_event=lambda event: None, label=source)
    await publication.run()
    conn.send(audio.clock.origin)


def start_publisher(url: str, source: str) -> tuple[Any, Any]:
    context = multiprocessing.get_context("spawn")
    parent, child = context.Pipe()
    process = context.Process(target=publisher_process, args=(url, source, child), daemon=True)
    process.start()
    return process, parent


def percentiles(values: list[float]) -> dict[str, float | None]:
    if not values:
        return {"p50": None, "p90": None, "n": 0}
    return {
        "p50": round(float(np.percentile(values, 50)), 3),
        "p90": round(float(np.percentile(values, 90)), 3),
        "n": len(values),
    }


async def serve_on_loopback(config: Any) -> tuple[Any, Any]:
    """A server (and its LLM backend, started) in this process; WebRTC limited to 127.0.0.1."""
    from streamtwin.llm.factory import make_backend
    from streamtwin.service.server import Server, make_session_factory
    from streamtwin.service.webrtc import use_loopback_candidates

    use_loopback_candidates()
    backend = make_backend(config)
    if backend is not None and hasattr(backend, "start"):
        await backend.start()
    server = Server(config, session_factory=make_session_factory(backend))
    await server.start()
    return server, backend


async def run(source: str, config: Any) -> dict[str, Any]:
    from websockets.asyncio.client import connect

    turns = json.loads((Path(source).parent / SCRIPTS[Path(source).name]).read_text())["turns"]
    server, backend = await serve_on_loopback(config)
    url = f"ws://127.0.0.1:{server.port}/ws"
    process, pipe = start_publisher(url, source)
    while not server.sessions:
        await asyncio.sleep(0.01)
    live = next(iter(server.sessions.values()))
    arrivals: list[tuple[float, dict[str, Any]]] = []
    async with connect(url, proxy=None, max_size=None) as ws:
        await ws.send(json.dumps({"type": "hello", "role": "viewer", "session": live.id, "token": live.viewer_token}))
        ingest = None  # the session lets go of its ingest when the publisher leaves: keep it
        async for raw in ws:
            arrivals.append((time.time(), json.loads(raw)))
            ingest = ingest or live.ingest
    origin = await asyncio.get_running_loop().run_in_executor(None, pipe.recv)
    arrived = ingest.audio_clock.origin if ingest is not None else None
    process.join(10)
    await server.close()
    if backend is not None:
        await backend.aclose()

    finals = [(t, m) for t, m in arrivals if m.get("type") == "transcript.final"]
    first_tokens: dict[int, float] = {}
    for t, m in arrivals:
        if m.get("type") == "assistant.delta":
            first_tokens.setdefault(m["generation"], t)
    started = [(t, m["generation"]) for t, m in arrivals if m.get("type") == "assistant.started"]
    per_turn = []
    for turn in turns:
        end_wall = origin + turn["end"]
        commit = next(
            (t for t, m in finals if m["end"] >= turn["end"] - COMMIT_SLACK_S and m["start"] < turn["end"]), None
        )
        row: dict[str, Any] = {"end": turn["end"], "final_s": None if commit is None else round(commit - end_wall, 3)}
        if commit is not None and backend is not None:
            generation = next((g for t, g in started if t >= commit - 0.001), None)
            token = first_tokens.get(generation) if generation is not None else None
            row["first_token_s"] = None if token is None else round(token - end_wall, 3)
        per_turn.append(row)
    result: dict[str, Any] = {
        "source": source,
        "llm": getattr(backend, "name", "none"),
        "llm_model": getattr(backend, "model", ""),
        "utterances": len(turns),
        "utterance_end_to_final_s": percentiles([r["final_s"] for r in per_turn if r["final_s"] is not None]),
        "missed_utterances": sum(r["final_s"] is None for r in per_turn),
        # Publisher plays media time 0 -> the server has decoded it: encoding, network, jitter buffer.
        "transport_s": None if arrived is None else round(arrived - origin, 3),
        "per_utterance": per_turn,
    }
    if backend is not None:
        tokens = [r["first_token_s"] for r in per_turn if r.get("first_token_s") is not None]
        result["utterance_end_to_first_token_s"] = percentiles(tokens)
    return result


def main() -> None:
    from streamtwin.config import Config

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("source", nargs="?", default="samples/meeting.wav", choices=[f"samples/{n}" for n in SCRIPTS])
    parser.add_argument("--llm", default="none")
    parser.add_argument("--llm-model", default="")
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    config = replace(Config.from_sources({"llm": args.llm, "llm_model": args.llm_model}), host="127.0.0.1", port=0)
    result = asyncio.run(run(args.source, config))
    final = result["utterance_end_to_final_s"]
    line = (
        f"{result['utterances']} utterances: end -> transcript.final p50 {final['p50']} s, p90 {final['p90']} s "
        f"(of which transport {result['transport_s']} s)"
    )
    if "utterance_end_to_first_token_s" in result:
        token = result["utterance_end_to_first_token_s"]
        line += f"; end -> first assistant token p50 {token['p50']} s, p90 {token['p90']} s ({result['llm_model']})"
    print(line)
    print(json.dumps(dict(result, bench="live_latency")))


if __name__ == "__main__":
    main()
