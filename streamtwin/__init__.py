"""streamtwin: a real-time, streaming, multimodal pipeline (see README.md).

The Python API (streamtwin/api.py) and the event types are importable from here::

    import streamtwin
    async for event in streamtwin.stream("talk.wav", llm="none", realtime=False): ...

They load on first use, so ``import streamtwin.config`` (and the CLI's ``--help``) stays quick.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

_EXPORTS = {
    "stream": "api",
    "PushSession": "api",
    "AskRefused": "assistant.typed",
    "ask": "meetings.asking",
    "Event": "events",
    "SessionStarted": "events",
    "SessionEnded": "events",
    "Error": "events",
    "Progress": "events",
    "TranscriptPartial": "events",
    "TranscriptFinal": "events",
    "TranscriptRevised": "events",
    "AssistantStarted": "events",
    "AssistantDelta": "events",
    "AssistantDone": "events",
    "AssistantSwitched": "events",
    "TwinState": "events",
    "TwinPatch": "events",
    "VisionObservation": "events",
}
__all__ = sorted(_EXPORTS)

if TYPE_CHECKING:
    from streamtwin.api import PushSession, stream
    from streamtwin.assistant.typed import AskRefused
    from streamtwin.meetings.asking import ask
    from streamtwin.events import (
        AssistantDelta,
        AssistantDone,
        AssistantStarted,
        AssistantSwitched,
        Error,
        Event,
        Progress,
        SessionEnded,
        SessionStarted,
        TranscriptFinal,
        TranscriptPartial,
        TranscriptRevised,
        TwinPatch,
        TwinState,
        VisionObservation,
    )


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'streamtwin' has no attribute {name!r}")
    return getattr(importlib.import_module(f".{module}", __name__), name)
