"""The twin as a viewer sees it, rebuilt from the events: the last ``twin.state`` with the ``twin.patch``es
after it applied.  Read by the meeting notes and by a late joiner's snapshot folded from the event log.

Plain class: no I/O, no clock.
"""

from __future__ import annotations

import logging
from typing import Any

import jsonpatch

from streamtwin.events import TwinPatch, TwinState

log = logging.getLogger(__name__)


class TwinMirror:
    """The twin as a viewer sees it: the last ``twin.state`` with the ``twin.patch``es after it applied."""

    def __init__(self) -> None:
        self.state: dict[str, Any] | None = None
        self.version = -1

    def apply(self, event: TwinState | TwinPatch) -> None:
        if isinstance(event, TwinState):
            self.state, self.version = event.state, event.version
        elif self.state is not None and event.version == self.version + 1:
            try:
                self.state = jsonpatch.apply_patch(self.state, event.patch)
                self.version = event.version
            except (jsonpatch.JsonPatchException, jsonpatch.JsonPointerException) as exc:
                log.warning("twin patch v%d does not apply: %s", event.version, exc)
        # A patch out of order waits for the next whole state, as the page does.
