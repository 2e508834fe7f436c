"""WHIP's HTTP decisions (streamtwin/service/whip_rules.py), without sockets: statuses, headers, their order."""

from __future__ import annotations

import pytest

from streamtwin.service.access import allowed_origins
from streamtwin.service.whip_rules import (
    Create,
    Delete,
    Head,
    Reply,
    Rules,
    check_offer,
    claims,
    cors,
    created,
    decide,
    ice_server_links,
    refused,
)

PORT = 8080
RULES = Rules("s3cret", [], allowed_origins(PORT, [], []), max_offer_bytes=1000)
OPEN = Rules("", [], allowed_origins(PORT, [], []), max_offer_bytes=1000)


def head(method: str = "POST", target: str = "/whip", **headers: str) -> Head:
    defaults = {"host": f"127.0.0.1:{PORT}", "content-type": "application/sdp", "authorization": "Bearer s3cret"}
    merged = {**defaults, **{k.replace("_", "-"): v for k, v in headers.items()}}
    return Head(method, target, tuple((k, v) for k, v in merged.items() if v is not None))


def status(decision: Reply | Create | Delete) -> int | str:
    return decision.status if isinstance(decision, Reply) else type(decision).__name__


def test_a_good_offer_is_created_and_a_known_resource_deleted():
    assert decide(head(), RULES) == Create(1000)
    assert decide(head(content_type="application/sdp; charset=utf-8"), RULES) == Create(1000)
    assert decide(head(authorization="bearer s3cret"), RULES) == Create(1000)  # the scheme is case-insensitive
    assert decide(head("DELETE", "/whip/abc_DEF-1"), RULES) == Delete("abc_DEF-1")
    assert decide(head(authorization=None), OPEN) == Create(1000)  # no token configured: none asked


@pytest.mark.parametrize(
    "request_head, expected",
    [
        (head(authorization=None), 401),
        (head(authorization="Bearer wrong"), 401),
        (head(authorization="Basic s3cret"), 401),
        (head("DELETE", "/whip/abc", authorization=None), 401),  # before saying whether it exists
        (head(content_type="text/plain"), 415),
        (head(content_type=None), 415),
        (head(content_length="1001"), 413),
        (head(content_length="12x"), 400),
        (head("GET"), 405),
        (head("HEAD"), 405),
        (head("PUT"), 405),
        (head("DELETE", "/whip"), 405),
        (head("POST", "/whip/abc"), 405),
        (head("GET", "/whip/abc"), 405),
        (head("PATCH", "/whip/abc"), 501),
        (head("POST", "/whip/a/b"), 404),
        (head("POST", "/whip/../ws"), 404),
        (head(host="evil.example"), 403),
        (head(host=None), 403),
        (head(origin="https://evil.example"), 403),
        (head(origin="null"), 403),  # a sandboxed frame or a file:// page
    ],
)
def test_refusals(request_head, expected):
    assert status(decide(request_head, RULES)) == expected


def test_refusals_carry_the_headers_the_rfcs_ask_for():
    reply = decide(head(authorization=None), RULES)
    assert ("WWW-Authenticate", 'Bearer realm="streamtwin"') in reply.headers and reply.auth_failed
    assert ("Accept-Post", "application/sdp") in decide(head(content_type="text/plain"), RULES).headers
    assert ("Allow", "POST, OPTIONS") in decide(head("GET"), RULES).headers
    assert ("Allow", "DELETE, OPTIONS") in decide(head("PUT", "/whip/abc"), RULES).headers
    assert b"s3cret" not in decide(head(authorization="Bearer wrong"), RULES).body


def test_a_locked_out_address_hears_429_even_with_the_right_token():
    reply = decide(head(), RULES, locked_out=True)
    assert reply.status == 429 and ("Retry-After", "60") in reply.headers


def test_duplicate_security_headers_are_refused():
    doubled = Head("POST", "/whip", head().headers + (("authorization", "Bearer other"),))
    assert status(decide(doubled, RULES)) == 400
    two_hosts = Head("POST", "/whip", head().headers + (("host", "evil.example"),))
    assert status(decide(two_hosts, RULES)) == 400


def test_options_answers_a_preflight_without_a_token():
    page = f"http://localhost:{PORT}"
    preflight = head("OPTIONS", authorization=None, content_type=None, origin=page)
    reply = decide(preflight, RULES)
    assert reply.status == 200
    assert ("Accept-Post", "application/sdp") in reply.headers
    assert ("Access-Control-Allow-Methods", "POST, OPTIONS") in reply.headers
    assert "Authorization" in dict(reply.headers)["Access-Control-Allow-Headers"]
    assert dict(cors(preflight, RULES))["Access-Control-Allow-Origin"] == page
    assert "Location" in dict(cors(preflight, RULES))["Access-Control-Expose-Headers"]
    resource = decide(head("OPTIONS", "/whip/abc", authorization=None, origin=page), RULES)
    assert ("Access-Control-Allow-Methods", "DELETE, OPTIONS") in resource.headers
    # A page of another site gets no CORS headers at all (it is refused before them).
    assert decide(head("OPTIONS", origin="https://evil.example"), RULES).status == 403
    assert cors(head(origin="https://evil.example"), RULES) == ()
    assert cors(head(), RULES) == ()  # no Origin: not a browser, nothing to add


def test_allow_origin_extends_cors_like_it_extends_the_websocket():
    rules = Rules("", [], allowed_origins(PORT, [], ["https://studio.example"]))
    assert status(decide(head(origin="https://studio.example"), rules)) == "Create"
    assert status(decide(head(origin="https://other.example"), rules)) == 403


def test_claims_only_whip_paths():
    assert claims("/whip") and claims("/whip/") and claims("/whip/x") and claims("/whip?stream=1")
    assert not claims("/ws") and not claims("/") and not claims("/whipped") and not claims("/static/whip")


def test_created_carries_answer_location_and_links():
    ice = [{"urls": "stun:stun.example:3478"}, {"urls": "turn:turn.example", "username": "1:u", "credential": "pw"}]
    reply = created("v=0\r\nanswer", "res1", "/?session=S&role=viewer&token=T", ice)
    assert (reply.status, reply.content_type, reply.body) == (201, "application/sdp", b"v=0\r\nanswer")
    assert ("Location", "/whip/res1") in reply.headers and reply.resource == "res1"
    links = [value for name, value in reply.headers if name == "Link"]
    assert links[0] == '</?session=S&role=viewer&token=T>; rel="alternate"; type="text/html"; title="viewer"'
    assert links[1:] == ice_server_links(ice) == [
        '<stun:stun.example:3478>; rel="ice-server"',
        '<turn:turn.example>; rel="ice-server"; username="1:u"; credential="pw"; credential-type="password"',
    ]


def test_check_offer_refuses_what_is_plainly_not_sdp():
    offer = "v=0\r\na=fingerprint:sha-256 AB\r\nm=audio 9 UDP/TLS/RTP/SAVPF 111\r\na=ice-ufrag:u\r\na=ice-pwd:p\r\n"
    assert check_offer(offer.encode()) == offer
    assert check_offer(b"v=0\r\no=- 1 1 IN IP4 0.0.0.0\r\n").status == 400  # no media at all
    assert check_offer(b"\xff\xfe garbage").status == 400
    assert check_offer(b"hello").status == 400
    assert check_offer(b"").status == 400


def test_admission_refusals_map_to_503_and_429():
    busy = refused("busy", "the server holds its maximum of 2 sessions")
    assert busy.status == 503 and ("Retry-After", "10") in busy.headers
    assert refused("too_many_sessions", "this address holds its maximum").status == 429
    assert refused("internal", "boom").status == 500
