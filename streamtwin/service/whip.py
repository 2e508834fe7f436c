"""WHIP ingest (RFC 9725): OBS, GStreamer and FFmpeg publish to ``POST /whip`` on the service's port.

The thin side of it: the statuses and headers are chosen in streamtwin/service/whip_rules.py, the HTTP
exchange is streamtwin/service/front.py's, and a session is opened and answered exactly as for a ``/ws``
publisher (:meth:`Registry.open`, :meth:`LiveSession.accept_offer`).  A WHIP session has no
publisher connection: the liveness watchdog ends it when its media never comes or stops, and
``DELETE`` on its resource ends it at once (speech flushed, ``session.ended`` to its viewers).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from streamtwin.service import whip_rules as policy
from streamtwin.service.access import new_secret
from streamtwin.service.admission import Admission
from streamtwin.service.whip_rules import Create, Delete, Head, Reply, Rules
from streamtwin.service.protocol import Refusal
from streamtwin.service.registry import LiveSession, Registry
from streamtwin.service.webrtc import OfferError

log = logging.getLogger(__name__)

SOURCE = "whip"


class WhipEndpoint:
    """``/whip`` and ``/whip/RESOURCE`` (a :class:`~streamtwin.service.front.PlainHttp` handler)."""

    def __init__(
        self,
        registry: Registry,
        admission: Admission,
        rules: Rules,
        client_ice: Callable[[str], list[dict[str, Any]]] = lambda session_id: [],
    ):
        self.rules = rules
        self.resources: dict[str, LiveSession] = {}  # resource id (a secret) -> its session
        self._registry = registry
        self._admission = admission
        self._client_ice = client_ice
        self._tasks: set[asyncio.Task[Any]] = set()
        self._closed = False

    def claims(self, target: str) -> bool:
        return policy.claims(target)

    def early(self, head: Head, address: str) -> Reply | int:
        now = time.monotonic()
        decision = policy.decide(head, self.rules, locked_out=self._admission.locked_out(address, now))
        if isinstance(decision, Create):
            return self._with_cors(head, policy.unavailable()) if self._closed else decision.max_bytes
        if isinstance(decision, Delete):
            return self._with_cors(head, self._delete(decision.resource))
        if decision.auth_failed:  # the header's value stays out of the log
            self._admission.auth_failed(address, now)
            log.info("WHIP %s from %s: a missing or wrong token", head.method, address)
        return self._with_cors(head, decision)

    async def respond(self, head: Head, body: bytes, address: str) -> Reply:
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)
        try:
            return self._with_cors(head, await self._create(body, address))
        finally:
            self._tasks.discard(task)

    def undelivered(self, reply: Reply) -> None:
        live = self.resources.pop(reply.resource, None) if reply.resource else None
        if live is not None:
            log.info("session %s: the WHIP client left before its answer; ending the session", live.id)
            live.finish(("publisher_left", "the WHIP client left before it got the answer"))

    def close(self) -> None:
        """No new sessions from here on; a session being opened is abandoned (shutdown ends the rest)."""
        self._closed = True
        for task in list(self._tasks):
            task.cancel()

    # --- the resource -------------------------------------------------------------------------
    async def _create(self, body: bytes, address: str) -> Reply:
        offer = policy.check_offer(body)
        if isinstance(offer, Reply):
            return offer
        self._forget_ended()
        try:
            live = self._registry.open(SOURCE, address)
        except Refusal as refusal:
            log.info("WHIP session refused for %s: %s", address, refusal.message)
            return policy.refused(refusal.code, refusal.message)
        try:
            await live.session.start()
            answer = await live.accept_offer(offer)
        except OfferError as exc:
            live.finish(("bad_sdp", str(exc)))
            return policy.bad_offer(str(exc))
        except Refusal:  # it ended while answering (a shutdown)
            return policy.unavailable()
        except asyncio.CancelledError:  # the server is shutting down
            live.finish(going_away=True)
            raise
        except Exception:
            live.finish(("internal", "the WHIP session could not start"))
            raise
        resource = new_secret()
        self.resources[resource] = live
        log.info("session %s: WHIP publisher from %s", live.id, address)
        return policy.created(answer, resource, live.viewer_url, self._client_ice(live.id))

    def _delete(self, resource: str) -> Reply:
        self._forget_ended()
        live = self.resources.pop(resource, None)
        if live is None:
            return policy.not_found()
        log.info("session %s: the WHIP client ended it", live.id)
        live.finish()
        return policy.deleted()

    def _forget_ended(self) -> None:
        for resource, live in list(self.resources.items()):
            if self._registry.get(live.id) is not live:
                del self.resources[resource]

    def _with_cors(self, head: Head, reply: Reply) -> Reply:
        extra = policy.cors(head, self.rules)
        return replace(reply, headers=reply.headers + extra) if extra else reply
