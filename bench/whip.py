"""WHIP round trips: how long a WHIP client waits for its answer, for its first audio to arrive, and for DELETE.

    python -m bench.whip [--rounds 10]

The server runs in this process with the small speech model and no LLM; an aiortc WHIP client (send-only
audio, samples/meeting.wav) publishes over loopback (aioice limited to 127.0.0.1) and ends each round with
DELETE.  Per round: ``POST /whip`` -> ``201`` (session opened and started, the offer answered with every
candidate gathered), ``201`` -> the first audio frame at the server, ``DELETE`` -> ``200``, and ``DELETE`` ->
the session gone (speech flushed, ``session.ended`` sent).  The last line of output is one JSON object.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import statistics
import time
from dataclasses import replace
from pathlib import Path

SAMPLE = Path(__file__).resolve().parent.parent / "samples" / "meeting.wav"


async def one_round(server, http) -> dict[str, float]:
    from aiortc import RTCConfiguration, RTCPeerConnection, RTCSessionDescription
    from aiortc.contrib.media import MediaPlayer

    player = MediaPlayer(str(SAMPLE))
    pc = RTCPeerConnection(RTCConfiguration(iceServers=[]))
    pc.addTransceiver(player.audio, direction="sendonly")
    try:
        await pc.setLocalDescription(await pc.createOffer())
        began = time.perf_counter()
        created = await http.post("/whip", content=pc.localDescription.sdp, headers={"Content-Type": "application/sdp"})
        answered = time.perf_counter()
        assert created.status_code == 201, created.text
        live = next(iter(server.sessions.values()))
        await pc.setRemoteDescription(RTCSessionDescription(sdp=created.text, type="answer"))
        while live.ingest is None or live.ingest.last_audio_at is None:
            await asyncio.sleep(0.002)
        first_audio = time.perf_counter()
        await asyncio.sleep(2.0)  # some speech in flight
        deleting = time.perf_counter()
        deleted = await http.delete(created.headers["location"])
        assert deleted.status_code == 200
        replied = time.perf_counter()
        while server.sessions:
            await asyncio.sleep(0.002)
        gone = time.perf_counter()
    finally:
        await pc.close()
        player.audio.stop()
    return {
        "answer_ms": (answered - began) * 1000,
        "first_audio_ms": (first_audio - answered) * 1000,
        "delete_ms": (replied - deleting) * 1000,
        "ended_ms": (gone - deleting) * 1000,
    }


async def main(rounds: int) -> dict[str, object]:
    import httpx

    from streamtwin.config import Config
    from streamtwin.speech.engine import load_engine
    from streamtwin.service.server import Server
    from streamtwin.service.webrtc import use_loopback_candidates

    use_loopback_candidates()
    config = replace(Config(llm="none", host="127.0.0.1", port=0), asr_model="tiny.en", asr_language="en", vision=False)
    await asyncio.to_thread(load_engine, config)
    server = Server(config)
    await server.start()
    results = []
    try:
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{server.port}", trust_env=False, timeout=30) as http:
            for _ in range(rounds):
                results.append(await one_round(server, http))
    finally:
        await server.close()
    summary: dict[str, object] = {"rounds": rounds}
    for key in results[0]:
        values = sorted(r[key] for r in results)
        summary[key] = {"p50": round(statistics.median(values), 1), "max": round(values[-1], 1)}
    return summary


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=10)
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    print(json.dumps(asyncio.run(main(args.rounds))))
