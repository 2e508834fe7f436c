"""A seeded generator of hostile client input for the /ws protocol and the HTTP side.

Deterministic for a seed, so a failure names the seed that reproduces it.  Used by
tests/test_fuzz.py; kept apart so a longer run can reuse it (e.g. with another seed).
"""

from __future__ import annotations

import json
import random
from typing import Any

TYPES = ["hello", "offer", "end", "dance", "", "HELLO", "hello\n", None, 3, [], {}]
ROLES = ["publisher", "viewer", "admin", "", None, 1, ["viewer"]]
NASTY_STRINGS = [
    "", " ", "\x00", "\ud800", "\udfff", "é" * 50, "../../etc/passwd", "%2e%2e/", "<script>", "${jndi:ldap://x}",
    "a\nb", "abc\n", "\r\n\r\n", "x" * 70, "🙂" * 20, "\u202e", "null", "0" * 400,
]


def nasty_value(rng: random.Random, depth: int = 0) -> Any:
    pick = rng.randrange(10)
    if pick == 0 and depth < 4:
        return {rng.choice(NASTY_STRINGS): nasty_value(rng, depth + 1) for _ in range(rng.randrange(4))}
    if pick == 1 and depth < 4:
        return [nasty_value(rng, depth + 1) for _ in range(rng.randrange(4))]
    if pick == 2:
        return rng.choice([0, -1, 2**63, 1e308, -0.0, True, False, None])
    if pick == 3:
        return "x" * rng.choice([1, 100, 5000, 60_000])
    return rng.choice(NASTY_STRINGS)


def deep(rng: random.Random) -> str:
    depth = rng.choice([10, 100, 1000, 5000, 50_000])
    opener, closer = rng.choice([("[", "]"), ('{"a":', "}")])
    return opener * depth + "1" + closer * depth


def message(rng: random.Random, sdp: str) -> str | bytes:
    """One raw websocket message: text (mostly) or a binary frame."""
    kind = rng.randrange(12)
    if kind == 0:
        return bytes(rng.randrange(256) for _ in range(rng.randrange(1, 200)))
    if kind == 1:
        return deep(rng)
    if kind == 2:
        return rng.choice(["{", "}", "[1,", '{"type": "hello"', "nul", "NaN", "\x00", "'single'", '{"type": "end"}x'])
    if kind == 3:
        return '{"type": "hello", "n": ' + "9" * rng.choice([4300, 4301, 20_000]) + "}"
    if kind == 4:
        return json.dumps(nasty_value(rng))
    if kind == 5:
        fields = {"type": "hello", "role": rng.choice(ROLES)}
        for name in rng.sample(["session", "token", "resume", "options"], rng.randrange(5)):
            fields[name] = nasty_value(rng)
        return json.dumps(fields)  # escaped: a lone surrogate travels only as \\ud800, not as UTF-8
    if kind == 6:
        return json.dumps({"type": "offer", "sdp": mutate_sdp(rng, sdp)})
    if kind == 7:
        return json.dumps({"type": "offer", "sdp": nasty_value(rng)})
    if kind == 8:
        return json.dumps({"type": rng.choice(TYPES), **{rng.choice(NASTY_STRINGS): nasty_value(rng)}})
    if kind == 9:
        return '{"type": "hello", "options": {"source": "cam\\ud800"}, "role": "publisher"}'
    if kind == 10:
        return json.dumps({"type": "end"})
    return json.dumps({"type": "hello", "role": "publisher", "options": {"source": nasty_value(rng)}})


def mutate_sdp(rng: random.Random, sdp: str) -> str:
    """A real offer, damaged the ways the issue's probes damaged it (and a few more)."""
    lines = sdp.strip().split("\r\n")
    for _ in range(rng.randrange(1, 4)):
        op = rng.randrange(12)
        i = rng.randrange(len(lines))
        if op == 0:
            del lines[i]
        elif op == 1:
            lines = [line.replace("m=audio", "m=video", 1) for line in lines]
        elif op == 2:
            lines = [line for line in lines if not line.startswith("m=video")] or lines
        elif op == 3:
            lines = [("a=group:BUNDLE " + nasty_value(rng).__str__()[:50]) if line.startswith("a=group") else line
                     for line in lines]
        elif op == 4:
            lines = [line for line in lines if not line.startswith("a=fingerprint")]
        elif op == 5:
            lines.insert(i, rng.choice(NASTY_STRINGS)[:80])
        elif op == 6:
            lines[i] = lines[i][: rng.randrange(len(lines[i]) + 1)]
        elif op == 7:
            lines.insert(i, lines[i])
        elif op == 8:
            lines = lines[: rng.randrange(1, len(lines) + 1)]
        elif op == 9:  # no ICE credentials
            lines = [line for line in lines if not line.startswith(rng.choice(["a=ice-ufrag", "a=ice-pwd", "a=ice-"]))]
        elif op == 10:  # nothing to send
            direction = rng.choice(["a=recvonly", "a=inactive"])
            lines = [direction if line in ("a=sendonly", "a=sendrecv") else line for line in lines]
        else:  # sections turned off
            lines = [" ".join([*line.split(" ")[:1], "0", *line.split(" ")[2:]]) if line.startswith("m=") else line
                     for line in lines]
    return "\r\n".join(lines) + "\r\n"


def http_request(rng: random.Random, port: int) -> bytes:
    """One raw HTTP request: traversal, odd targets, huge or doubled headers, garbage."""
    host = f"127.0.0.1:{port}"
    target = rng.choice([
        "/", "//[x", "/../../etc/passwd", "/%2e%2e/%2e%2e/etc/passwd", "/..%2f..%2fstreamtwin/service/server.py", "/%00",
        "/app.js?" + "a" * 5000, "/ws", "/healthz", "/metrics", "/" + "a/" * 2000, "*", "http://evil/", "/%ff%fe",
        "/web/../README.md", "/index.html%00.js", "/\\..\\streamtwin\\service\\server.py",
        "/whip", "/whip/abc", "/whip/../ws", "/whip?" + "w" * 5000,
    ])
    headers = [f"Host: {rng.choice([host, 'evil.example', '', host + ':1', '[::1', 'localhost'])}"]
    extra = rng.randrange(6)
    if extra == 0:
        headers.append("X-Big: " + "b" * rng.choice([1000, 9000, 70_000]))
    elif extra == 1:
        headers += ["Origin: http://a.example", "Origin: http://b.example"]
    elif extra == 2:
        headers += [f"X-{i}: {i}" for i in range(rng.choice([50, 300]))]
    elif extra == 3:
        headers += ["Connection: Upgrade", "Upgrade: websocket", "Sec-WebSocket-Version: 13",
                    "Sec-WebSocket-Key: " + rng.choice(["dGhlIHNhbXBsZSBub25jZQ==", "bad", ""])]
    elif extra == 4:
        return bytes(rng.randrange(256) for _ in range(rng.randrange(1, 300)))
    method = rng.choice(["GET", "GET", "POST", "HEAD", "BREW", "GET /x", "DELETE", "OPTIONS"])
    return (f"{method} {target} HTTP/1.1\r\n" + "\r\n".join(headers) + "\r\n\r\n").encode(errors="replace")


def unplaceable_request(rng: random.Random, port: int) -> bytes:
    """A request the port's router cannot hand to the pages or /ws: two in one write, a body on a GET, a target
    that is not a path (absolute-form, authority-form, ``*``), a broken request line."""
    host = f"Host: 127.0.0.1:{port}"
    path = rng.choice(["/", "/healthz", "/metrics", "/ws", "/app.js", "/missing"])
    upgrade = rng.choice([[], ["Connection: Upgrade", "Upgrade: websocket", "Sec-WebSocket-Version: 13",
                               "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ=="]])
    kind = rng.randrange(4)
    if kind == 0:
        one = "\r\n".join([f"GET {path} HTTP/1.1", host, *upgrade]) + "\r\n\r\n"
        return (one + rng.choice([one, "GET /healthz HTTP/1.1\r\n\r\n", "x"])).encode()
    if kind == 1:
        body = "b" * rng.randrange(1, 200)
        framing = rng.choice([[f"Content-Length: {len(body)}"], ["Transfer-Encoding: chunked"],
                              ["Content-Length: 0", "Content-Length: 5"]])
        return ("\r\n".join([f"{rng.choice(['GET', 'POST', 'PUT'])} {path} HTTP/1.1", host, *upgrade, *framing])
                + "\r\n\r\n" + body).encode()
    if kind == 2:
        target = rng.choice([f"http://127.0.0.1:{port}{path}", f"https://evil.example{path}", "*", f"127.0.0.1:{port}"])
        return ("\r\n".join([f"{rng.choice(['GET', 'OPTIONS', 'CONNECT'])} {target} HTTP/1.1", host, *upgrade])
                + "\r\n\r\n").encode()
    line = rng.choice([f"GET {path}", f"GET  {path} HTTP/1.1", f"GET {path} HTTP/1.1 extra", f"GET {path} SPDY/3"])
    return f"{line}\r\n{host}\r\n\r\n".encode()


# --- the client side, run as its own process so it does not share the server's event loop --------------

REPLY_TIMEOUT_S = 10.0


async def real_offer() -> str:
    from aiortc import RTCConfiguration, RTCPeerConnection

    pc = RTCPeerConnection(RTCConfiguration(iceServers=[]))
    pc.addTransceiver("audio", direction="sendonly")
    pc.addTransceiver("video", direction="sendonly")
    await pc.setLocalDescription(await pc.createOffer())
    sdp = pc.localDescription.sdp
    await pc.close()
    return sdp


async def answer_or_close(ws: Any) -> str:
    """The protocol's reply to one message (events on the way skipped), or how the connection closed."""
    import asyncio

    from websockets.exceptions import ConnectionClosed

    async with asyncio.timeout(REPLY_TIMEOUT_S):
        while True:
            try:
                message = json.loads(await ws.recv())
            except ConnectionClosed as closed:
                return f"closed {closed.rcvd.code if closed.rcvd else 'without a close frame'}"
            if "v" not in message:
                return message["type"] + (f" {message['code']}" if "code" in message else "")


async def run_clients(url: str, seed: int, count: int, workers: int) -> dict[str, Any]:
    """Send ``count`` generated messages over ``workers`` connections at a time; tally the replies."""
    import asyncio

    from websockets.asyncio.client import connect
    from websockets.exceptions import ConnectionClosed

    sdp = await real_offer()
    rng = random.Random(seed)
    plan = [message(rng, sdp) for _ in range(count)]
    outcomes: dict[str, int] = {}
    silent: list[str] = []

    async def worker(messages: list[str | bytes]) -> None:
        ws = None
        for raw in messages:
            for _ in range(2):  # a connection the server just closed (after a fatal error): a new one
                if ws is None:
                    ws = await connect(url, proxy=None, max_size=None, open_timeout=10)
                try:
                    await ws.send(raw)
                    break
                except ConnectionClosed:
                    ws = None
            try:
                outcome = await answer_or_close(ws)
            except TimeoutError:
                silent.append(repr(raw)[:200])
                await ws.close()
                ws = None
                continue
            key = outcome if outcome.startswith("closed") else outcome.split(" ", 1)[0]
            outcomes[key] = outcomes.get(key, 0) + 1
            if outcome.startswith("closed"):
                ws = None
        if ws is not None:
            await ws.close()

    await asyncio.gather(*(worker(plan[i::workers]) for i in range(workers)))
    return {"seed": seed, "messages": count, "outcomes": outcomes, "silent": silent}


if __name__ == "__main__":
    import argparse
    import asyncio

    from streamtwin.service.webrtc import use_loopback_candidates

    parser = argparse.ArgumentParser(description="Fuzz a streamtwin server's /ws; prints one JSON line.")
    parser.add_argument("url")
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--messages", type=int, default=3000)
    parser.add_argument("--workers", type=int, default=4)
    args = parser.parse_args()
    use_loopback_candidates()
    print(json.dumps(asyncio.run(run_clients(args.url, args.seed, args.messages, args.workers))))
