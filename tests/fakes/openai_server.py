"""A scriptable loopback chat-completions server speaking Groq's and OpenAI's streaming formats.

``/openai/v1/chat/completions`` answers exactly as Groq does (``x_groq`` ids and usage),
``/v1/chat/completions`` as a plain OpenAI-compatible server (``usage`` on a last chunk
when ``stream_options.include_usage`` asks for it).  Each request takes the next
scripted :class:`Reply` (or the default one) and is recorded, so tests can assert on
the prompts that were sent.  Built on asyncio streams only, so it runs anywhere.

Standalone, for end-to-end runs::

    python -m tests.fakes.openai_server --port 8765 --reply "Noted."
    GROQ_BASE_URL=http://127.0.0.1:8765 GROQ_API_KEY=fake streamtwin run ...
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import re
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from tests.fakes.loopback import LoopbackServer, read_request

GROQ_PATH = "/openai/v1/chat/completions"
OPENAI_PATH = "/v1/chat/completions"
_REASONS = {
    200: "OK",
    400: "Bad Request",
    401: "Unauthorized",
    403: "Forbidden",
    404: "Not Found",
    429: "Too Many Requests",
    500: "Internal Server Error",
    503: "Service Unavailable",
}


@dataclass
class Reply:
    """What the server does with one request.

    ``text`` is streamed in word-sized pieces.  The ``*_after`` fields pick the number
    of content chunks sent before the stream goes wrong; ``drip_s`` paces chunks and,
    with ``endless``, turns the reply into a stream that never finishes.
    """

    text: str = "Hello from the fake server."
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    error_message: str = "scripted failure"
    error_after: int | None = None  # then send data: {"error": {...}} and end
    garbage_after: int | None = None  # then send a data line that is not JSON
    drop_after: int | None = None  # then close the connection mid-body
    stall: bool = False  # send headers, then nothing at all
    stall_after: int | None = None  # send that many content chunks, then nothing until the client leaves
    delay_s: float = 0.0  # wait before answering at all (a slow provider's queue and prompt time)
    drip_s: float = 0.0
    endless: bool = False


@dataclass
class RecordedRequest:
    path: str
    headers: dict[str, str]
    body: dict[str, Any]


# Scripted failures and the LLMError code an OpenAI-style client must turn each into.
FAILURE_CASES: dict[str, tuple[Reply, str]] = {
    "unauthorized": (Reply(status=401), "auth"),
    "forbidden": (Reply(status=403), "auth"),
    "rate_limited": (Reply(status=429, headers={"retry-after": "7"}), "rate_limited"),
    "server_error": (Reply(status=500), "server"),
    "bad_request": (Reply(status=400), "bad_request"),
    "error_mid_stream": (Reply(error_after=2), "stream_broken"),
    "garbage_chunk": (Reply(garbage_after=1), "stream_broken"),
    "connection_dropped": (Reply(drop_after=2), "stream_broken"),
}


def prompt_words(body: dict[str, Any]) -> int:
    """The fake's "prompt tokens": words in the messages' text."""
    return sum(len(str(message.get("content", "")).split()) for message in body.get("messages", []))


def split_words(text: str) -> list[str]:
    """Token-like pieces that join back into ``text`` exactly."""
    return re.findall(r"\s*\S+\s*", text) or [text]


class FakeLLMServer(LoopbackServer):
    """Loopback server; ``async with FakeLLMServer() as server: server.url`` or start()/stop()."""

    thread_name = "fake-llm-server"

    def __init__(
        self,
        reply: Reply | None = None,
        json_reply: Reply | None = None,
        host: str = "127.0.0.1",
        port: int = 0,
    ) -> None:
        self.default_reply = reply or Reply()
        # Used for requests with a response_format, so end-to-end runs get parseable JSON.
        self.json_reply = json_reply
        self.replies: deque[Reply] = deque()
        self.requests: list[RecordedRequest] = []
        self.aborted_streams = 0  # streams the client closed before the server finished
        self._aborted = asyncio.Condition()
        super().__init__(host, port)
        self._ids = itertools.count(1)

    # --- lifecycle -----------------------------------------------------------

    @property
    def url(self) -> str:
        """Base URL: what Groq's SDK takes; OpenAI clients add ``/v1``."""
        assert self._server is not None, "server not started"
        host, port = self._server.sockets[0].getsockname()[:2]
        return f"http://{host}:{port}"

    # --- scripting -----------------------------------------------------------

    def script(self, *replies: Reply) -> None:
        """Queue replies for the next requests, in order; afterwards the default applies."""
        self.replies.extend(replies)

    async def wait_aborted(self, count: int = 1) -> None:
        """Until ``count`` streams have been closed by the client mid-reply."""
        async with self._aborted:
            await self._aborted.wait_for(lambda: self.aborted_streams >= count)

    # --- HTTP ----------------------------------------------------------------

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        request = await self._read_request(reader)
        if request is not None:
            await self._respond(request, reader, writer)

    async def _read_request(self, reader: asyncio.StreamReader) -> RecordedRequest | None:
        path, headers, raw = await read_request(reader)
        try:
            body = json.loads(raw) if raw else {}
        except ValueError:
            body = {"_unparseable": raw.decode("utf-8", "replace")}
        return RecordedRequest(path.split("?", 1)[0], headers, body)

    async def _respond(
        self, request: RecordedRequest, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        if request.path not in (GROQ_PATH, OPENAI_PATH):
            await _send_json(writer, 404, {"error": {"message": f"unknown path {request.path}"}})
            return
        self.requests.append(request)
        reply = self._next_reply(request.body)
        if reply.delay_s:
            await asyncio.sleep(reply.delay_s)
        if reply.status != 200:
            error = {"error": {"message": reply.error_message, "type": "scripted", "code": str(reply.status)}}
            await _send_json(writer, reply.status, error, reply.headers)
            return
        if not request.body.get("stream"):
            await _send_json(writer, 400, {"error": {"message": "the fake only streams (stream=true)"}})
            return
        completed = await self._stream(request, reply, reader, writer)
        if not completed:
            async with self._aborted:
                self.aborted_streams += 1
                self._aborted.notify_all()

    def _next_reply(self, body: dict[str, Any]) -> Reply:
        if self.replies:
            return self.replies.popleft()
        if self.json_reply is not None and body.get("response_format"):
            return self.json_reply
        return self.default_reply

    async def _stream(
        self,
        request: RecordedRequest,
        reply: Reply,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
    ) -> bool:
        """Send the scripted SSE body; False when the client went away first."""
        writer.write(
            _head(200, {"content-type": "text/event-stream", "transfer-encoding": "chunked", **reply.headers})
        )
        await writer.drain()
        client_gone = asyncio.ensure_future(reader.read())  # EOF: the client closed the stream
        try:
            for event in self._events(request, reply):
                if event is None:
                    return True  # scripted abrupt end
                if event is _STALL:
                    await client_gone
                    return False
                if reply.drip_s:
                    done, _ = await asyncio.wait({client_gone}, timeout=reply.drip_s)
                    if done:
                        return False
                if client_gone.done():
                    return False
                writer.write(_chunk(event))
                await writer.drain()
            if reply.stall:
                await client_gone
                return False
            writer.write(b"0\r\n\r\n")
            await writer.drain()
            return True
        except ConnectionError:
            return False
        finally:
            client_gone.cancel()

    def _events(self, request: RecordedRequest, reply: Reply):
        """SSE frames for the reply (bytes), or None where the connection should just drop."""
        if reply.stall:
            return
        groq = request.path == GROQ_PATH
        body = request.body
        completion_id = f"chatcmpl-fake{next(self._ids)}"
        x_groq_id = f"req_fake{next(self._ids)}"
        created = int(time.time())
        model = body.get("model", "fake-model")

        def chunk(delta: dict[str, Any], finish: str | None = None, **extra: Any) -> bytes:
            payload = {
                "id": completion_id,
                "object": "chat.completion.chunk",
                "created": created,
                "model": model,
                "system_fingerprint": "fp_fake",
                "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}],
            }
            payload.update(extra)
            return _sse(payload)

        yield chunk({"role": "assistant", "content": ""}, **({"x_groq": {"id": x_groq_id}} if groq else {}))
        pieces = split_words(reply.text)
        sent = 0
        while True:
            for piece in pieces:
                if sent == reply.error_after:
                    yield _sse({"error": {"message": reply.error_message, "type": "internal_server_error"}})
                    return
                if sent == reply.garbage_after:
                    yield b"data: {this is not json\n\n"
                    return
                if sent == reply.drop_after:
                    yield None
                    return
                if sent == reply.stall_after:
                    yield _STALL
                    return
                yield chunk({"content": piece})
                sent += 1
            if not reply.endless:
                break
        prompt_tokens = prompt_words(body)
        usage = {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": sent,
            "total_tokens": prompt_tokens + sent,
        }
        if groq:
            usage.update(queue_time=0.001, prompt_time=0.002, completion_time=0.003, total_time=0.005)
            yield chunk({}, "stop", x_groq={"id": x_groq_id, "usage": usage})
        else:
            yield chunk({}, "stop")
            if (body.get("stream_options") or {}).get("include_usage"):
                yield _sse(
                    {
                        "id": completion_id,
                        "object": "chat.completion.chunk",
                        "created": created,
                        "model": model,
                        "choices": [],
                        "usage": usage,
                    }
                )
        yield b"data: [DONE]\n\n"


_STALL = object()  # in the scripted events: go quiet here


def _sse(payload: dict[str, Any]) -> bytes:
    return b"data: " + json.dumps(payload).encode() + b"\n\n"


def _chunk(data: bytes) -> bytes:
    return f"{len(data):x}\r\n".encode() + data + b"\r\n"


def _head(status: int, headers: dict[str, str]) -> bytes:
    lines = [f"HTTP/1.1 {status} {_REASONS.get(status, 'Status')}", "connection: close"]
    lines += [f"{name}: {value}" for name, value in headers.items()]
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


async def _send_json(
    writer: asyncio.StreamWriter, status: int, payload: dict[str, Any], headers: dict[str, str] | None = None
) -> None:
    data = json.dumps(payload).encode()
    writer.write(
        _head(
            status, {"content-type": "application/json", "content-length": str(len(data)), **(headers or {})}
        )
        + data
    )
    await writer.drain()


async def _serve_forever(port: int, reply: Reply, json_reply: Reply | None) -> None:
    async with FakeLLMServer(reply, json_reply, port=port) as server:
        print(server.url, flush=True)
        await asyncio.Event().wait()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, default=0, help="0 picks a free port (printed on start)")
    parser.add_argument("--reply", default=Reply().text, help="text streamed for every request")
    parser.add_argument("--json-reply", default=None, help="text streamed when a response_format is asked")
    parser.add_argument("--drip", type=float, default=0.0, help="seconds between chunks")
    args = parser.parse_args(argv)
    json_reply = Reply(args.json_reply, drip_s=args.drip) if args.json_reply is not None else None
    try:
        asyncio.run(_serve_forever(args.port, Reply(args.reply, drip_s=args.drip), json_reply))
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
