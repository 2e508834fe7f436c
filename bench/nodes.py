"""``streamtwin serve`` as a child process on a free loopback port: a second node for the benchmarks and the
multi-node tests (``tests/test_nodes.py``)."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
START_TIMEOUT_S = 120.0  # the node loads the speech model before it listens


class ServeProcess:
    """One node: ``python -m MODULE serve --port 0 ARGS...``; :attr:`port` once :meth:`start` returned."""

    def __init__(self, *args: str, module: str = "streamtwin", env: dict[str, str] | None = None):
        self.args = args
        self.module = module
        self.env = env or {}
        self.port = 0
        self.process: asyncio.subprocess.Process | None = None
        self.log: list[str] = []  # its stderr
        self._drain: asyncio.Task[None] | None = None

    async def start(self) -> None:
        self.process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", self.module, "serve", "--port", "0", *self.args,
            cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT), **self.env},
            stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE,
        )
        assert self.process.stderr is not None
        async with asyncio.timeout(START_TIMEOUT_S):
            while "serving http://" not in (line := (await self.process.stderr.readline()).decode()):
                if not line:
                    raise RuntimeError(f"serve exited: {''.join(self.log)}")
                self.log.append(line)
        self.port = int(line.split("serving http://")[1].split(" ")[0].rsplit(":", 1)[1])
        self._drain = asyncio.ensure_future(self._keep_reading())  # a full pipe would stall it

    async def _keep_reading(self) -> None:
        assert self.process is not None and self.process.stderr is not None
        while line := await self.process.stderr.readline():
            self.log.append(line.decode())

    def kill(self) -> None:
        """SIGKILL: the node dies without a word, as a crashed machine would."""
        if self.process is not None and self.process.returncode is None:
            self.process.kill()

    async def stop(self, timeout_s: float = 30.0) -> None:
        """SIGTERM (its sessions end cleanly), SIGKILL after ``timeout_s``."""
        if self.process is None:
            return
        if self.process.returncode is None:
            self.process.terminate()
            try:
                await asyncio.wait_for(self.process.wait(), timeout_s)
            except TimeoutError:
                self.process.kill()
        await self.process.wait()
        if self._drain is not None:
            await self._drain
