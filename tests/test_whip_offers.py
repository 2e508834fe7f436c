"""A WHIP offer that can never carry media gets a 400 and opens no session (issue 38).

The reproduction: an offer without a DTLS fingerprint, without ICE credentials, or with nothing to send
(recvonly) was answered 201 and held one of the two session slots until the first-media timeout (15 s).
"""

from __future__ import annotations

import pytest

from streamtwin.service.sdp_rules import offer_problem
from tests.test_whip import SDP, an_offer, client

OFFER = """v=0\r
o=- 1 1 IN IP4 0.0.0.0\r
s=-\r
t=0 0\r
a=group:BUNDLE 0 1\r
m=audio 9 UDP/TLS/RTP/SAVPF 111\r
a=mid:0\r
a=sendonly\r
a=ice-ufrag:abcd\r
a=ice-pwd:0123456789abcdef012345\r
a=fingerprint:sha-256 AB:CD\r
m=video 0 UDP/TLS/RTP/SAVPF 96\r
a=mid:1\r
a=bundle-only\r
a=sendonly\r
"""


def damaged(offer: str, drop: tuple[str, ...] = (), swap: tuple[str, str] = ("", "")) -> str:
    lines = [line for line in offer.split("\r\n") if not line.startswith(drop or ("\0",))]
    return "\r\n".join(line.replace(*swap) if swap[0] else line for line in lines)


def test_what_an_offer_must_carry():
    assert offer_problem(OFFER) is None
    assert "fingerprint" in offer_problem(damaged(OFFER, ("a=fingerprint",)))
    assert "ICE credentials" in offer_problem(damaged(OFFER, ("a=ice-pwd",)))
    assert "sends no media" in offer_problem(damaged(OFFER, swap=("a=sendonly", "a=recvonly")))
    assert "sends no media" in offer_problem(damaged(OFFER, swap=("a=sendonly", "a=inactive")))
    assert "no audio or video" in offer_problem(damaged(OFFER, ("m=", "a=mid", "a=sendonly", "a=bundle")))
    assert "not an SDP" in offer_problem("hello")
    # Credentials at the session level serve every section; a direction there holds unless a section says otherwise.
    moved = "v=0\r\na=ice-ufrag:u\r\na=ice-pwd:p\r\na=fingerprint:sha-256 AB\r\na=recvonly\r\nm=audio 9 RTP/AVP 0\r\n"
    assert "sends no media" in offer_problem(moved)
    assert offer_problem(moved + "a=sendrecv\r\n") is None
    assert "sends no media" in offer_problem(damaged(OFFER, ("a=bundle-only",), ("m=audio 9", "m=audio 0")))


@pytest.mark.parametrize("damage", [
    {"drop": ("a=fingerprint",)},
    {"drop": ("a=ice-ufrag", "a=ice-pwd")},
    {"swap": ("a=sendonly", "a=recvonly")},
])
async def test_an_offer_that_can_never_carry_media_gets_400_and_no_session(make_server, loopback_ice, damage):
    server = await make_server(max_sessions=1)
    pc, offer = await an_offer()
    try:
        async with client(server) as http:
            reply = await http.post("/whip", content=damaged(offer, **damage), headers=SDP)
            assert reply.status_code == 400, reply.text  # the old main: 201, and a slot held for 15 s
            assert server.sessions == {} and server.admission.sessions == {}
            assert (await http.post("/whip", content=offer, headers=SDP)).status_code == 201  # the slot is free
    finally:
        await pc.close()
