"""/healthz under floods: is the server still quick to answer while strangers hammer it?

    python -m bench.floods [--seconds 30] [--every 0.02] [--behind-proxy]

The server (default limits, LLM off) runs in this process; the flood comes from another process, as
it would from another host.  Two floods, one after the other, each for ``--seconds``:

* ``churn``: websocket connects and disconnects, 20 at a time, and every tenth round a burst of 100
  at once (past the per-address cap of 32: the rest are refused with 429);
* ``half_open``: 200 TCP connections that never send a byte, opened again as the server drops
  them at its open timeout (5 s).

Meanwhile a thread GETs /healthz every ``--every`` seconds (it shares the GIL with the server: the
figures are if anything pessimistic).  Target: p99 < 100 ms.  One JSON line per flood, then one
for the whole run, with the load average (the machine is shared).

``--behind-proxy``: the server trusts 127.0.0.1 as a reverse proxy (``--trusted-proxy``) and every churn
connection names a client of its own in ``X-Forwarded-For`` (10.0.0.0/8, each address once), as clients
behind nginx would: the per-address caps then count each of them, and the burst of 100 is admitted whole
(the server's cap is 256 connections in all); what is measured is the cost of reading the header too.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import logging
import multiprocessing
import os
import socket
import time
from dataclasses import replace
from typing import Any

from bench.soak import Healthz, pct

log = logging.getLogger("bench.floods")
HALF_OPEN = 200


def churn_process(port: int, behind_proxy: bool = False) -> None:
    asyncio.run(_churn(f"ws://127.0.0.1:{port}/ws", behind_proxy))


async def _churn(url: str, behind_proxy: bool) -> None:
    from websockets.asyncio.client import connect

    clients = itertools.count(1)

    async def one() -> None:
        n = next(clients)
        forwarded = {"X-Forwarded-For": f"10.{n >> 16 & 255}.{n >> 8 & 255}.{n & 255}"} if behind_proxy else None
        try:
            ws = await connect(url, proxy=None, open_timeout=10, additional_headers=forwarded)
            await ws.close()
        except Exception:  # refusals at the caps are part of the flood
            pass

    rounds = 0
    while True:
        rounds += 1
        await asyncio.gather(*(one() for _ in range(100 if rounds % 10 == 0 else 20)))


def half_open_process(port: int, behind_proxy: bool = False) -> None:
    """Hold HALF_OPEN silent connections; replace each one the server closes."""
    held: list[socket.socket] = []
    while True:
        while len(held) < HALF_OPEN:
            try:
                held.append(socket.create_connection(("127.0.0.1", port), timeout=5))
            except OSError:
                time.sleep(0.05)
        time.sleep(0.5)
        alive = []
        for sock in held:
            sock.setblocking(False)
            try:
                gone = sock.recv(1) == b""
            except BlockingIOError:
                gone = False
            except OSError:
                gone = True
            if gone:
                sock.close()
            else:
                alive.append(sock)
        held = alive


async def one_flood(
    server: Any, name: str, target: Any, seconds: float, every: float, behind_proxy: bool
) -> dict[str, Any]:
    probe = Healthz(server.port, seconds, every_s=every)
    flood = multiprocessing.get_context("spawn").Process(
        target=target, args=(server.port, behind_proxy), daemon=True
    )
    flood.start()
    await asyncio.sleep(1.0)  # the flood is under way before measuring
    probe.start()
    load = []
    began = time.monotonic()
    while time.monotonic() - began < seconds:
        await asyncio.sleep(1.0)
        load.append(os.getloadavg()[0])
    probe.stop.set()
    flood.kill()
    flood.join()
    while server.admission.connections:  # let the server drop what the flood left open
        await asyncio.sleep(0.1)
    result = {
        "flood": name,
        "behind_proxy": behind_proxy,
        "seconds": seconds,
        "probes": len(probe.latencies),
        "healthz_ms_p50": pct(probe.latencies, 50),
        "healthz_ms_p99": pct(probe.latencies, 99),
        "healthz_ms_max": pct(probe.latencies, 100),
        "healthz_failures": probe.failures,
        "load1_mean": round(sum(load) / len(load), 2),
    }
    print(json.dumps(result), flush=True)
    return result


async def run(seconds: float, every: float, behind_proxy: bool) -> dict[str, Any]:
    from streamtwin.config import Config
    from streamtwin.service.server import Server

    trusted = ["127.0.0.1/32"] if behind_proxy else []
    server = Server(replace(Config(), host="127.0.0.1", port=0, llm="none", trusted_proxy=trusted))
    await server.start()
    try:
        results = [
            await one_flood(server, "churn", churn_process, seconds, every, behind_proxy),
            await one_flood(server, "half_open", half_open_process, seconds, every, behind_proxy),
        ]
    finally:
        await server.close()
    return {
        "bench": "floods",
        "behind_proxy": behind_proxy,
        "healthz_ms_p99_worst": max(r["healthz_ms_p99"] for r in results),
        "healthz_failures": sum(r["healthz_failures"] for r in results),
        "load1_mean": round(sum(r["load1_mean"] for r in results) / len(results), 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=30.0, help="length of each flood")
    parser.add_argument("--every", type=float, default=0.02, help="seconds between /healthz probes")
    parser.add_argument(
        "--behind-proxy", action="store_true",
        help="trust 127.0.0.1 as a reverse proxy; each churn connection forwards a client address of its own",
    )
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING, format="%(asctime)s %(name)s: %(message)s")
    print(json.dumps(asyncio.run(run(args.seconds, args.every, args.behind_proxy))))


if __name__ == "__main__":
    main()
