"""One websocket client, from its first message to its close: the ``/ws`` conversation.

A client says hello (publisher or viewer; :mod:`streamtwin.service.joins` decides what it joins), then a
publisher sends its WebRTC offer and, when done, ``end``; either may ``ask`` the assistant a typed question.
A page that asks all past meetings says hello as ``meetings`` and then only asks
(:mod:`streamtwin.service.past_meetings`).  Every refusal is an ``error`` frame to that
client alone (fatal ones close it); a bug in one conversation ends that connection, never the server.
A publisher whose connection drops keeps its place for the resume grace period; a close frame is a goodbye.
"""

from __future__ import annotations

import asyncio
import logging
import socket
from typing import Any
from urllib.parse import parse_qs

from websockets.asyncio.server import ServerConnection
from websockets.datastructures import Headers
from websockets.exceptions import ConnectionClosed
from websockets.protocol import State

from streamtwin.assistant.typed import AskLimiter, AskRefused, check_question
from streamtwin.config import Config
from streamtwin.service.channel import ClientChannel
from streamtwin.service.http import request_query
from streamtwin.service.joins import Joins
from streamtwin.service.metrics import ServiceMetrics
from streamtwin.service.participant import Participant
from streamtwin.service.past_meetings import PastMeetings
from streamtwin.service.proxies import TrustedProxies
from streamtwin.service.protocol import (
    CLOSE_INTERNAL,
    CLOSE_POLICY,
    Refusal,
    offer_sdp,
    parse_client_message,
    parse_hello,
    parse_rename,
)
from streamtwin.service.registry import LiveSession
from streamtwin.service.webrtc import OfferError

log = logging.getLogger(__name__)

# A small kernel send buffer keeps a slow client's backlog in its outbox, where deltas are merged
# or dropped, instead of megabytes aging in the kernel (Linux autotunes it up to 4 MB on loopback).
SEND_BUFFER_BYTES = 256 * 1024


def client_address(connection: ServerConnection, proxies: TrustedProxies) -> str:
    """The client's address: the peer's, or behind a trusted proxy the one its forwarding headers name."""
    peer = connection.remote_address
    headers = connection.request.headers if connection.request is not None else Headers()
    return proxies.client(
        str(peer[0]) if peer else "", headers.get_all("Forwarded"), headers.get_all("X-Forwarded-For")
    )


class Conversations:
    """The websockets handler: one conversation per connection; ``channels`` are the connections open now."""

    def __init__(self, config: Config, metrics: ServiceMetrics, joins: Joins, proxies: TrustedProxies,
                 meetings: PastMeetings | None = None) -> None:
        self.config = config
        self.proxies = proxies
        self.meetings = meetings or PastMeetings(None)
        self.channels: set[ClientChannel] = set()
        self._metrics = metrics
        self._joins = joins
        self._askers: dict[ClientChannel, AskLimiter] = {}  # each connection's typed questions
        self._answering: set[asyncio.Task[None]] = set()  # answers being waited for (held against collection)

    async def __call__(self, ws: ServerConnection) -> None:
        sock = ws.transport.get_extra_info("socket")
        if sock is not None:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, SEND_BUFFER_BYTES)
            # asyncio sets TCP_NODELAY only on sockets made with proto=IPPROTO_TCP, which a socket from
            # socket.create_server is not: without it Nagle holds a small frame back until the client
            # acknowledges the previous one (milliseconds of delayed ACK per message).
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        channel = ClientChannel(ws, self._metrics, client_address(ws, self.proxies))
        self.channels.add(channel)
        query_token = parse_qs(request_query(ws.request.path)).get("token", [""])[0] if ws.request else ""
        try:
            await self._converse(ws, channel, query_token)
        except Exception:  # a bug: say so once, end this connection, keep serving the others
            log.exception("a %s connection failed", channel.role or "client")
            channel.error("internal", "internal server error", fatal=True)
            channel.finish(CLOSE_INTERNAL, "internal error")
        finally:
            self.channels.discard(channel)
            self._askers.pop(channel, None)
            self.meetings.forget(channel)
            self._leave(channel)
            if ws.state is not State.OPEN:  # nothing more can be sent
                channel.task.cancel()
            else:
                channel.finish(CLOSE_INTERNAL, "internal error")  # a no-op when a close is already queued
            await asyncio.gather(channel.task, return_exceptions=True)

    async def _converse(self, ws: ServerConnection, channel: ClientChannel, query_token: str) -> None:
        timeout = self.config.hello_timeout_s
        join_by = asyncio.get_running_loop().time() + timeout
        while not channel.task.done():
            try:
                async with asyncio.timeout_at(join_by if not channel.role else None):
                    raw = await ws.recv()
            except TimeoutError:
                channel.error("hello_timeout", f"no hello within {timeout:g} s", fatal=True)
                channel.finish(CLOSE_POLICY, "no hello")
                return
            except ConnectionClosed:
                return
            try:
                await self._dispatch(channel, parse_client_message(raw), query_token)
            except Refusal as refusal:
                channel.error(refusal.code, refusal.message, fatal=refusal.close is not None)
                if refusal.close is not None:
                    channel.finish(refusal.close, refusal.message)
                    return

    async def _dispatch(self, channel: ClientChannel, message: dict[str, Any], query_token: str) -> None:
        kind = message["type"]
        live = channel.live
        if kind == "hello":
            if channel.role:
                joined = f" session {live.id}" if live is not None else ""
                raise Refusal("already_joined", f"already joined{joined} as {channel.role}")
            hello = parse_hello(message)
            if hello.role == "meetings":  # no store, no model: refused before the token is looked at
                self.meetings.check_available()
                self._joins.check_access_token(channel, hello.token or query_token)
                self.meetings.welcome(channel)
            else:
                await self._joins.hello(channel, hello, query_token)
            return
        if channel.role == "meetings":
            if kind != "ask":
                raise Refusal("meetings_only", f"a meetings connection only asks: not {kind!r}")
            self.meetings.ask(channel, message.get("text"))
            return
        if live is None:
            raise Refusal("hello_required", 'say hello first: {"type": "hello", "role": "publisher" | "viewer"}')
        if kind == "ask":
            self._ask(channel, live, message.get("text"))
            return
        if kind == "rename":  # anyone watching may name a voice; every viewer sees it (an event)
            label, name = parse_rename(message)
            if not isinstance(live, LiveSession):
                raise Refusal("rename_elsewhere", "this session runs on another node: rename from a viewer there")
            try:
                live.session.rename_speaker(label, name)
            except ValueError as exc:
                raise Refusal("bad_rename", str(exc)) from None
            return
        if channel.role != "publisher":
            raise Refusal("not_publisher", f"only the publisher of a session may send {kind!r}")
        participant = live.participant_of(channel)
        if participant is None:
            raise Refusal("replaced", "another connection resumed this session", CLOSE_POLICY)
        if kind == "offer":
            await self._offer(channel, live, participant, offer_sdp(message))
        elif kind == "end":
            live.leave(participant)  # in a room with others: only this publisher's streams end

    def _ask(self, channel: ClientChannel, live: LiveSession, text: Any) -> None:
        """A typed question from a publisher or a viewer (both hold the session's token): answered to every
        viewer, as a spoken one; refusals go to the asker alone and never close the connection."""
        session = getattr(live, "session", None)
        if session is None:  # a viewer fed from the event log: the session runs on another node
            raise Refusal("ask_unavailable", "this node relays the session from its log; questions go to the node "
                          "that runs it")
        limiter = self._askers.setdefault(channel, AskLimiter())
        try:
            question = check_question(text)
            limiter.admit(asyncio.get_running_loop().time())
        except AskRefused as refused:
            raise Refusal(refused.code, refused.message) from None
        participant = live.participant_of(channel) if channel.role == "publisher" else None
        asker = (participant.name or "publisher") if participant is not None else "viewer"
        task = asyncio.ensure_future(self._answer(channel, session, question, asker, limiter))
        self._answering.add(task)
        task.add_done_callback(self._answering.discard)

    async def _answer(self, channel: ClientChannel, session: Any, question: str, asker: str,
                      limiter: AskLimiter) -> None:
        try:
            await session.ask(question, asker)
        except AskRefused as refused:
            channel.error(refused.code, refused.message)
        except Exception:  # a bug in answering ends this answer, never the conversation
            log.exception("a typed question failed")
            channel.error("internal", "the question could not be answered")
        finally:
            limiter.answered()

    async def _offer(self, channel: ClientChannel, live: LiveSession, participant: Participant, sdp: str) -> None:
        if participant.media_flowing() and not participant.resumed:
            raise Refusal("already_streaming", "this publisher already sends media; start a new session instead")
        participant.resumed = False  # one replacement of the media per resume
        try:
            answer = await participant.accept_offer(
                sdp, still_wanted=lambda: not live.finishing and participant.channel is channel
            )
        except OfferError as exc:
            raise Refusal("bad_sdp", str(exc)) from None
        channel.send({"type": "answer", "sdp": answer})

    def _leave(self, channel: ClientChannel) -> None:
        live = channel.live
        if live is None:
            return
        if channel.role == "viewer":  # a LiveSession or a LogViewer
            live.remove(channel)
            return
        # (a publisher dropped as too slow was already removed; one that another connection resumed was not it)
        participant = live.participant_of(channel)
        live.remove(channel)
        if channel.role != "publisher" or participant is None or live.finishing:
            return
        # A close frame is a deliberate goodbye; a connection that just died may come back.
        if channel.ws.protocol.close_rcvd is not None:
            who = participant.who
            live.leave(participant, ("publisher_left", f"{who} closed its connection"))
        else:
            live.publisher_gone(participant)
