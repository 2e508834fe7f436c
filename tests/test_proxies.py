"""Behind a reverse proxy (issue 38): the client address comes from the trusted proxy's forwarding headers.

Without ``--trusted-proxy`` every client behind nginx is nginx's one address: the per-address cap and the
wrong-token lockout then hit everyone at once.  The live tests play the proxy from loopback (127.0.0.1 is
the trusted peer) and name a distinct client in ``X-Forwarded-For`` on each connection.
"""

from __future__ import annotations

import logging

import httpx
import pytest
from websockets.exceptions import InvalidStatus

from streamtwin.service.proxies import BadProxy, TrustedProxies
from tests.live import hello, open_ws

LOOPBACK = ["127.0.0.1/32"]
TOKEN = "s3cret"


def test_only_a_trusted_peer_names_the_client():
    proxies = TrustedProxies(["10.0.0.0/8", "2001:db8::/32"])
    assert proxies.client("203.0.113.9", forwarded_for=["198.51.100.1"]) == "203.0.113.9"  # not a proxy: ignored
    assert proxies.client("10.0.0.2", forwarded_for=["198.51.100.1"]) == "198.51.100.1"
    assert proxies.client("10.0.0.2") == "10.0.0.2"  # the proxy's own request (a health check)
    assert TrustedProxies().client("10.0.0.2", forwarded_for=["198.51.100.1"]) == "10.0.0.2"  # none by default


def test_the_right_most_hop_that_is_not_a_trusted_proxy_is_the_client():
    proxies = TrustedProxies(["10.0.0.0/8"])
    # The client wrote "1.2.3.4" itself; nginx appended the address it saw.
    assert proxies.client("10.0.0.2", forwarded_for=["1.2.3.4, 198.51.100.7"]) == "198.51.100.7"
    # Two proxies of ours in a row, each header line a part of one list.
    assert proxies.client("10.0.0.2", forwarded_for=["1.2.3.4, 198.51.100.7", "10.1.1.1"]) == "198.51.100.7"
    assert proxies.client("10.0.0.2", forwarded_for=["10.9.9.9, 10.1.1.1"]) == "10.9.9.9"  # all ours: the first
    assert proxies.client("10.0.0.2", forwarded_for=["198.51.100.7, unknown"]) == "10.0.0.2"  # unparsable: the peer


def test_forwarded_as_rfc_7239_writes_it():
    proxies = TrustedProxies(["10.0.0.0/8"])
    header = 'for=1.2.3.4;proto=https, For="[2001:db8:cafe::17]:4711";by=10.0.0.2'
    assert proxies.client("10.0.0.2", forwarded=[header]) == "2001:db8:cafe::17"
    assert proxies.client("10.0.0.2", forwarded=['for="198.51.100.7:5555"']) == "198.51.100.7"
    assert proxies.client("10.0.0.2", forwarded=["for=_hidden"]) == "10.0.0.2"


def test_two_headers_that_disagree_are_neither_believed():
    """A proxy appends to one of them; the client may have written the other whole."""
    proxies = TrustedProxies(["10.0.0.0/8"])
    assert proxies.client("10.0.0.2", forwarded=["for=9.9.9.9"], forwarded_for=["198.51.100.7"]) == "10.0.0.2"
    assert proxies.client("10.0.0.2", forwarded=["for=198.51.100.7"], forwarded_for=["198.51.100.7"]) == "198.51.100.7"


def test_a_dual_stack_socket_s_mapped_address_is_the_ipv4_one():
    proxies = TrustedProxies(["127.0.0.1"])
    assert proxies.client("::ffff:127.0.0.1", forwarded_for=["198.51.100.7"]) == "198.51.100.7"
    assert TrustedProxies().client("::ffff:198.51.100.7") == "198.51.100.7"


def test_a_bad_trusted_proxy_is_refused_before_anything_starts():
    from dataclasses import replace

    from streamtwin.config import Config
    from streamtwin.service.server import ConfigError, Server

    with pytest.raises(BadProxy):
        TrustedProxies(["nginx"])
    with pytest.raises(ConfigError, match="--trusted-proxy"):
        Server(replace(Config(llm="none"), port=0, trusted_proxy=["10.0.0.0/33"]))


def test_the_flag_repeats_and_takes_lists():
    from streamtwin.cli.main import build_parser, config_from_args

    args = build_parser().parse_args(["serve", "--trusted-proxy", "10.0.0.0/8", "--trusted-proxy", "::1,127.0.0.1"])
    assert config_from_args(args).trusted_proxy == ["10.0.0.0/8", "::1", "127.0.0.1"]


def forwarded(address: str) -> dict[str, dict[str, str]]:
    return {"additional_headers": {"X-Forwarded-For": address}}


async def test_the_connection_cap_counts_each_forwarded_client(make_server):
    server = await make_server(trusted_proxy=LOOPBACK, max_connections_per_address=2)
    held = [await open_ws(server, **forwarded(f"198.51.100.{i}")) for i in range(1, 6)]  # five clients, one proxy
    held += [await open_ws(server, **forwarded("198.51.100.1"))]
    with pytest.raises(InvalidStatus) as refused:  # the third from one client
        await open_ws(server, **forwarded("198.51.100.1"))
    assert refused.value.response.status_code == 429
    assert server.admission.connections["198.51.100.1"] == 2
    for ws in held:
        await ws.close()


async def test_without_a_trusted_proxy_the_header_is_the_client_s_own_word(make_server):
    server = await make_server(max_connections_per_address=2)
    held = [await open_ws(server, **forwarded(f"198.51.100.{i}")) for i in (1, 2)]
    with pytest.raises(InvalidStatus):
        await open_ws(server, **forwarded("198.51.100.3"))
    for ws in held:
        await ws.close()


async def test_one_client_s_wrong_tokens_lock_out_that_client_and_no_other(make_server, caplog):
    server = await make_server(token=TOKEN, trusted_proxy=LOOPBACK)
    for _ in range(10):
        ws = await open_ws(server, **forwarded("198.51.100.66"))
        assert (await hello(ws, "publisher", token="guess"))["code"] == "unauthorized"
    guesser = await open_ws(server, **forwarded("198.51.100.66"))
    assert (await hello(guesser, "publisher", token=TOKEN))["code"] == "rate_limited"
    colleague = await open_ws(server, **forwarded("198.51.100.7"))  # behind the same proxy
    assert (await hello(colleague, "publisher", token=TOKEN))["type"] == "welcome"
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{server.port}", trust_env=False, timeout=30) as http:
        headers = {"Content-Type": "application/sdp", "Authorization": f"Bearer {TOKEN}"}
        locked = await http.post("/whip", content="garbage", headers={**headers, "X-Forwarded-For": "198.51.100.66"})
        assert locked.status_code == 429
        with caplog.at_level(logging.INFO, logger="streamtwin.service.whip"):
            other = await http.post("/whip", content="garbage", headers={**headers, "X-Forwarded-For": "198.51.100.8"})
            assert other.status_code == 400  # past the lockout and the token: the offer is not SDP
            wrong = {**headers, "Authorization": "Bearer guess", "X-Forwarded-For": "198.51.100.9"}
            assert (await http.post("/whip", content="v=0", headers=wrong)).status_code == 401
    assert "WHIP POST from 198.51.100.9: a missing or wrong token" in caplog.text  # the log names the client
    await colleague.close()
