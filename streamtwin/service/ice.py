"""Which ICE servers (STUN, TURN) the server's peer connections and its publishers use.

TURN credentials are minted per client from ``--turn-secret`` and expire within ``turn_ttl_s``; credentials
written into a ``--ice-servers`` URL stay on the server and are never sent to a client.
"""

from __future__ import annotations

import time
from typing import Any
from urllib.parse import unquote

from aiortc import RTCIceServer

from streamtwin.config import Config
from streamtwin.service.access import turn_credentials


class IceServers:
    """The configured ICE servers, for the server's own peer connections and for each publisher."""

    def __init__(self, config: Config) -> None:
        self._urls = config.ice_servers
        self._secret = config.turn_secret
        self._ttl_s = config.turn_ttl_s

    def for_server(self) -> list[RTCIceServer]:
        return ice_servers(self._urls, self._turn("streamtwin"))

    def for_client(self, session_id: str) -> list[dict[str, Any]]:
        return ice_servers_json(self._urls, self._turn(session_id))

    def _turn(self, user: str) -> tuple[str, str] | None:
        if not self._secret:
            return None
        return turn_credentials(self._secret, user, time.time(), self._ttl_s)


def ice_servers(urls: list[str], turn: tuple[str, str] | None = None) -> list[RTCIceServer]:
    """``stun:host:port``, ``turn:host:port?transport=udp`` or ``turn:user:secret@host:port`` (URL-escaped).

    ``turn`` (username, credential), minted per client from ``--turn-secret``, applies to TURN URLs
    that carry no credentials of their own.
    """
    servers = []
    for url in urls:
        scheme, _, rest = url.partition(":")
        username = credential = None
        if "@" in rest:
            userinfo, rest = rest.rsplit("@", 1)
            user, _, secret = userinfo.partition(":")
            username, credential = unquote(user), unquote(secret)
        elif turn is not None and scheme in ("turn", "turns"):
            username, credential = turn
        servers.append(RTCIceServer(urls=f"{scheme}:{rest}", username=username, credential=credential))
    return servers


def ice_servers_json(urls: list[str], turn: tuple[str, str] | None = None) -> list[dict[str, Any]]:
    """The servers a client may use, as ``RTCPeerConnection`` takes them: STUN, and TURN with the
    short-lived ``turn`` credentials.  Static credentials written into a URL stay on the server."""
    out = []
    for url in urls:
        if "@" in url:
            continue
        for server in ice_servers([url], turn):
            entry: dict[str, Any] = {"urls": server.urls}
            if server.username is not None:
                entry.update(username=server.username, credential=server.credential)
            out.append(entry)
    return out
