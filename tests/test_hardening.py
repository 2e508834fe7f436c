"""Issue 11's findings, one test each, through the wire only (so each also runs against eeb9b39 and fails there).

Sessions are real but get no media; WebRTC faults live in test_faults.py.
"""

from __future__ import annotations

import asyncio
import json

from tests.live import hello, open_ws, recv_json, send_json

REPLY_TIMEOUT_S = 5.0


async def test_deep_json_and_huge_numbers_get_an_error_and_the_connection_lives(make_server):
    server = await make_server()
    ws = await open_ws(server)
    for raw in ("[" * 1000 + "]" * 1000, '{"type": "hello", "n": ' + "9" * 4400 + "}"):
        await ws.send(raw)
        error = await recv_json(ws, REPLY_TIMEOUT_S)  # eeb9b39: no reply, the handler died silently
        assert (error["type"], error["code"], error["fatal"]) == ("error", "bad_json", False)
    assert (await hello(ws, "publisher"))["type"] == "welcome"
    await ws.close()


async def test_a_lone_surrogate_is_refused_not_a_dropped_connection(make_server):
    server = await make_server()
    ws = await open_ws(server)
    await ws.send('{"type": "hello", "role": "publisher", "options": {"source": "cam\\ud800"}}')
    error = await recv_json(ws, REPLY_TIMEOUT_S)
    assert (error["code"], error["fatal"]) == ("bad_message", False)
    assert (await hello(ws, "publisher"))["type"] == "welcome"
    await ws.close()


async def test_a_session_id_with_a_trailing_newline_is_refused(make_server):
    server = await make_server()
    ws = await open_ws(server)
    reply = await hello(ws, "publisher", session="abc\n")
    assert (reply["type"], reply["code"]) == ("error", "bad_hello")
    await ws.close()


async def test_shutdown_is_bounded_after_a_poisoned_connection(make_server):
    server = await make_server()
    poisoned = await open_ws(server)
    await poisoned.send("[" * 1000 + "]" * 1000)
    await asyncio.sleep(0.3)
    await asyncio.wait_for(server.close(), 10)  # eeb9b39: waits on the dead handler for good
    await poisoned.close()


async def test_an_offer_without_a_fingerprint_is_refused_without_echoing_internals(make_server):
    server = await make_server()
    ws = await open_ws(server)
    await hello(ws, "publisher")
    await send_json(ws, {"type": "offer", "sdp": "v=0\r\nm=audio 9 UDP/TLS/RTP/SAVPF 111\r\n"})
    while (reply := await recv_json(ws, REPLY_TIMEOUT_S))["type"] != "error":
        pass
    assert reply["code"] == "bad_sdp" and "Error" not in reply["message"]
    await ws.close()
