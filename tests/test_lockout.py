"""The wrong-token lockout slows guessing of the access token without ending meetings (issue 38).

The reproduction: ten hellos with a wrong token from one address (a shared office NAT), then, from that
address, a correct viewer token, a correct resume token and a correct join token.  On the old main all
were refused for 60 s, longer than the 15 s a dropped publisher has to come back: the meeting was lost.
Now the server's own 128-bit tokens get in; only the access token is refused until the lockout passes.
"""

from __future__ import annotations

import httpx

from tests.live import hello, open_ws, recv_until

TOKEN = "s3cret"


async def lock_out(server) -> None:
    for _ in range(10):  # the default: 10 a minute
        ws = await open_ws(server)
        assert (await hello(ws, "publisher", token="guess"))["code"] == "unauthorized"


async def test_a_locked_out_address_keeps_its_meeting(make_server):
    server = await make_server(token=TOKEN, max_sessions=3, resume_grace_s=10)
    host = await open_ws(server)
    welcome = await hello(host, "publisher", token=TOKEN, options={"name": "Ann"})
    await lock_out(server)

    viewer = await open_ws(server)  # the viewer link still watches
    watching = await hello(viewer, "viewer", session=welcome["session"], token=welcome["viewer_token"])
    assert watching["type"] == "welcome"

    joiner = await open_ws(server)  # the join link still joins
    joined = await hello(joiner, "publisher", session=welcome["session"], token=welcome["join_token"],
                         options={"name": "Tom"})
    assert (joined["type"], joined["name"]) == ("welcome", "Tom")

    host.transport.abort()  # the network blinks: Ann's page comes back within the grace period
    notice, _ = await recv_until(viewer, "notice")
    assert notice["code"] == "publisher_away"
    back = await open_ws(server)
    resumed = await hello(back, "publisher", session=welcome["session"], resume=welcome["resume_token"],
                          token=TOKEN)
    assert (resumed["type"], resumed["resumed"], resumed["name"]) == ("welcome", True, "Ann")

    # The access token is what the lockout guards: not looked at, right or wrong, until the minute has passed.
    newcomer = await open_ws(server)
    assert (await hello(newcomer, "publisher", token=TOKEN))["code"] == "rate_limited"
    stranger = await open_ws(server)
    assert (await hello(stranger, "viewer", session=welcome["session"], token=TOKEN))["code"] == "rate_limited"
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{server.port}", trust_env=False) as http:
        headers = {"Content-Type": "application/sdp", "Authorization": f"Bearer {TOKEN}"}
        assert (await http.post("/whip", content="v=0", headers=headers)).status_code == 429
    for ws in (viewer, joiner, back):
        await ws.close()


async def test_wrong_session_tokens_do_not_count_towards_the_lockout(make_server):
    """A stale resume or join token (a page that reconnects late) guesses nothing: 128 random bits."""
    server = await make_server(token=TOKEN, max_sessions=3)
    host = await open_ws(server)
    welcome = await hello(host, "publisher", token=TOKEN, options={"name": "Ann"})
    for _ in range(12):
        ws = await open_ws(server)
        assert (await hello(ws, "publisher", session=welcome["session"], resume="stale"))["code"] == "unauthorized"
        ws = await open_ws(server)
        wrong_join = await hello(ws, "publisher", session=welcome["session"], token="stale", options={"name": "Tom"})
        assert wrong_join["code"] == "unauthorized"
    ws = await open_ws(server)
    assert (await hello(ws, "publisher", token=TOKEN))["type"] == "welcome"
    await ws.close()
    await host.close()
