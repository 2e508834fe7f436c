"""Ctrl-C on ``streamtwin run``: how long until ``session.ended`` and until the process is gone.

    python -m bench.ctrl_c [--runs 5] [--source samples/meeting.wav] [--after-finals 1]

Each run starts ``streamtwin run SOURCE --realtime --format jsonl --llm none``, waits for
``--after-finals`` transcript finals (the models are loaded and speech is being decoded),
sends SIGINT and times two things from the signal: the ``session.ended`` line on stdout,
and the process exit.  The target is 1 s for both.  Printed with the load average
(the machine is shared); the last line is one JSON object.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent


def one_run(source: Path, after_finals: int) -> dict[str, float]:
    process = subprocess.Popen(
        [sys.executable, "-m", "streamtwin", "run", str(source), "--realtime", "--format", "jsonl", "--llm", "none"],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
    )
    try:
        finals = 0
        while finals < after_finals:
            line = process.stdout.readline()
            if not line:
                raise RuntimeError("run ended before the signal")
            finals += json.loads(line)["type"] == "transcript.final"
        process.send_signal(signal.SIGINT)
        sent = time.monotonic()
        ended_s = None
        for line in process.stdout:
            if json.loads(line)["type"] == "session.ended":
                ended_s = time.monotonic() - sent
        process.wait(60)
        return {"ended_s": ended_s, "exit_s": time.monotonic() - sent, "load1": os.getloadavg()[0]}
    finally:
        process.kill()
        process.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--source", type=Path, default=ROOT / "samples" / "meeting.wav")
    parser.add_argument("--after-finals", type=int, default=1)
    args = parser.parse_args()
    runs = []
    for _ in range(args.runs):
        runs.append(one_run(args.source, args.after_finals))
        print(json.dumps({k: round(v, 3) for k, v in runs[-1].items()}), flush=True)
    ended = [r["ended_s"] for r in runs]
    exits = [r["exit_s"] for r in runs]
    print(json.dumps({
        "bench": "ctrl_c",
        "runs": len(runs),
        "ended_s_median": round(float(np.median(ended)), 3),
        "ended_s_max": round(max(ended), 3),
        "exit_s_median": round(float(np.median(exits)), 3),
        "exit_s_max": round(max(exits), 3),
        "load1_mean": round(float(np.mean([r["load1"] for r in runs])), 2),
    }))


if __name__ == "__main__":
    main()
