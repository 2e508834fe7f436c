"""``streamtwin stream`` limited to loopback ICE candidates, as a process a test can SIGKILL.

python -m tests.killable_publisher SOURCE WS_URL
"""

from __future__ import annotations

import asyncio
import sys

from streamtwin.config import Config
from streamtwin.cli.stream import stream
from streamtwin.service.webrtc import use_loopback_candidates

if __name__ == "__main__":
    use_loopback_candidates()
    sys.exit(asyncio.run(stream(Config(format="jsonl"), sys.argv[1], sys.argv[2])))
