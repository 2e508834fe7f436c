"""Stopping the event log's background loops (the writer, the heartbeat, the health probe)."""

from __future__ import annotations

import asyncio


async def stop(task: asyncio.Task[None] | None) -> None:
    """Cancel ``task`` and wait until it has ended.  Its loop must also check a flag of its own, set first: a
    cancel that lands as a Redis call times out comes back as a timeout (Python 3.11's ``asyncio.timeout``),
    which a loop that rides out outages would survive (CI hung for 20 minutes on a heartbeat that beat on)."""
    if task is None:
        return
    task.cancel()
    try:
        await task
    except asyncio.CancelledError:
        pass
