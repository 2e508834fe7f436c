"""ICE servers: what the server's own peer connections use and what publishers are told."""

from __future__ import annotations

from aiortc import RTCConfiguration

from streamtwin.config import Config
from streamtwin.service import webrtc
from streamtwin.service.ice import IceServers
from streamtwin.service.metrics import ServiceMetrics

URLS = ["stun:stun.example:3478", "turn:alice:s%3Acret@turn.example:3478", "turn:relay.example:3478"]


def test_publishers_get_stun_and_short_lived_turn_but_never_static_credentials():
    ice = IceServers(Config(llm="none", ice_servers=URLS, turn_secret="shared"))
    told = ice.for_client("session-1")
    assert [entry["urls"] for entry in told] == ["stun:stun.example:3478", "turn:relay.example:3478"]
    assert "username" not in told[0]
    assert told[1]["username"].endswith(":session-1") and told[1]["credential"]
    assert "alice" not in repr(told) and "cret" not in repr(told)


def test_without_a_turn_secret_no_credentials_are_made():
    assert IceServers(Config(llm="none", ice_servers=URLS)).for_client("s") == [
        {"urls": "stun:stun.example:3478"}, {"urls": "turn:relay.example:3478"},
    ]


async def test_the_configured_servers_reach_the_media_connection(monkeypatch):
    """The server's ICE servers go into the peer connection as they are (before, a publisher's offer on a
    server started with --ice-servers died: the ingest parsed the already-parsed servers as URLs)."""
    seen = []

    def configuration(iceServers):  # noqa: N803 - aiortc's name
        seen.append(iceServers)
        return RTCConfiguration(iceServers=[])  # nothing to contact in a test

    monkeypatch.setattr(webrtc, "RTCConfiguration", configuration)
    servers = IceServers(Config(llm="none", ice_servers=URLS)).for_server()

    class Session:
        id = "s"

    ingest = webrtc.WebRTCIngest(Session(), servers, on_ended=lambda error: None, metrics=ServiceMetrics(lambda: 0, dict))
    await ingest.close()
    (given,) = seen
    assert [server.urls for server in given] == ["stun:stun.example:3478", "turn:turn.example:3478",
                                                "turn:relay.example:3478"]
    assert (given[1].username, given[1].credential) == ("alice", "s:cret")
