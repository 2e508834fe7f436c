"""``streamtwin serve`` with loopback ICE candidates (aioice leaves 127.0.0.1 out otherwise), as a process
a test can start twice on one Redis and SIGKILL.

python -m tests.loopback_serve serve [flags...]
"""

from __future__ import annotations

import sys

from streamtwin.cli.main import main
from streamtwin.service.webrtc import use_loopback_candidates

if __name__ == "__main__":
    use_loopback_candidates()
    sys.exit(main(sys.argv[1:]))
