"""A resume rotates the publisher's resume token (issue 38).

The reproduction: a resume token worked from a second connection while the first was alive and was
never rotated, so whoever had read it once could take the session over again and again.  Now each
resume's welcome carries a fresh token and the one it used stops working at once.
"""

from __future__ import annotations

from tests.live import hello, open_ws


async def test_each_resume_gets_a_fresh_token_and_the_old_one_stops_working(make_server):
    server = await make_server(resume_grace_s=10)
    publisher = await open_ws(server)
    welcome = await hello(publisher, "publisher")
    session, first = welcome["session"], welcome["resume_token"]

    publisher.transport.abort()  # a network blip
    back = await open_ws(server)
    resumed = await hello(back, "publisher", session=session, resume=first)
    assert resumed["resumed"] is True and resumed["resume_token"] != first
    again = await open_ws(server)  # the token that resumed is spent, even within the grace period
    assert (await hello(again, "publisher", session=session, resume=first))["code"] == "unauthorized"

    back.transport.abort()
    later = await open_ws(server)  # the fresh one resumes the next time
    resumed_again = await hello(later, "publisher", session=session, resume=resumed["resume_token"])
    assert resumed_again["resumed"] is True
    assert resumed_again["resume_token"] not in (first, resumed["resume_token"])
    await later.close()


async def test_a_leaked_token_takes_a_live_connection_over_once_not_again(make_server):
    server = await make_server(resume_grace_s=10)
    publisher = await open_ws(server)
    welcome = await hello(publisher, "publisher")
    session, leaked = welcome["session"], welcome["resume_token"]
    intruder = await open_ws(server)
    assert (await hello(intruder, "publisher", session=session, resume=leaked))["resumed"] is True
    await publisher.wait_closed()  # the publisher's live connection was replaced
    assert publisher.close_reason == "replaced by a resumed connection"
    second = await open_ws(server)  # the old main: every takeover with the leaked token succeeded
    assert (await hello(second, "publisher", session=session, resume=leaked))["code"] == "unauthorized"
    await intruder.close()
