"""A session's bus subscriber that hands its twin changes and its notes to the webhook sender.

It follows the twin (:class:`~streamtwin.twin.mirror.TwinMirror`) and writes the meeting notes with the same
:class:`~streamtwin.outputs.notes.MarkdownOutput` as ``run --format md``; on ``session.ended`` the notes and
the final twin are one ``ended`` delivery, and with ``--webhook-events twin`` every ``twin.state`` or
``twin.patch`` that changes what the twin says is one ``twin`` delivery.  Inline and cheap: it builds a body and queues it.
"""

from __future__ import annotations

import io
from typing import Any

from streamtwin.events import Event, SessionEnded, TwinPatch, TwinState
from streamtwin.outputs.notes import MarkdownOutput
from streamtwin.twin.mirror import TwinMirror
from streamtwin.webhooks.payloads import ended_body, twin_body
from streamtwin.webhooks.sender import WebhookSender


class WebhookNotifier:
    def __init__(self, sender: WebhookSender) -> None:
        self._sender = sender
        self._notes_text = io.StringIO()
        self._notes = MarkdownOutput(self._notes_text)
        self._twin = TwinMirror()
        self._posted: dict[str, Any] = {}  # the twin as last posted (nothing yet: the empty twin)

    def __call__(self, event: Event) -> None:
        self._notes(event)
        if isinstance(event, (TwinState, TwinPatch)):
            self._twin.apply(event)
            if "twin" in self._sender.events and self._changed():
                patch: list[dict[str, Any]] = event.patch if isinstance(event, TwinPatch) else []
                delivery_id, created = self._sender.new_id()
                body = twin_body(delivery_id, created, event.session, self._twin.version, self._twin.state, patch)
                self._sender.submit("twin", delivery_id, body)
        elif isinstance(event, SessionEnded) and "ended" in self._sender.events:
            delivery_id, created = self._sender.new_id()
            body = ended_body(
                delivery_id, created, event.session, self._notes_text.getvalue(), self._twin.state, event.stats
            )
            self._sender.submit("ended", delivery_id, body)

    def _changed(self) -> bool:
        """Whether the twin now says something it did not when last posted (an empty twin says nothing: the
        session's first, blank ``twin.state`` is not a change)."""
        state = {key: value for key, value in (self._twin.state or {}).items() if value not in (None, "", [], {})}
        if state == self._posted:
            return False
        self._posted = state
        return True
