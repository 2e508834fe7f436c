"""``streamtwin mcp``'s tools and resources, on the official MCP SDK's ``MCPServer``.

Tools: ``list_sessions`` (recordings and the event log's sessions), ``get_transcript`` (revised text, speakers,
times), ``get_twin`` (the twin as it stands), ``ask`` (one session, or every one: streamtwin/meetings/, the
quotes checked).  Resources: ``streamtwin://sessions/{id}`` (the notes so far, Markdown) for any session,
listed for each live one; a client listening for a live session's resource is told when it grows
(:meth:`~streamtwin.meetings.catalog.Catalog.watch` publishes on the SDK's subscription bus).
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ToolError
from mcp.server.subscriptions import (
    InMemorySubscriptionBus,
    ResourcesListChanged,
    ResourceUpdated,
)
from mcp.types import Resource as MCPResource

from streamtwin.llm.backend import Backend, LLMError
from streamtwin.meetings.asking import answer_question
from streamtwin.meetings.catalog import Catalog
from streamtwin.meetings.layout import check_question, stamp
from streamtwin.meetings.library import LibraryError
from streamtwin.outputs.notes import render_notes

log = logging.getLogger(__name__)

SESSION_URI = "streamtwin://sessions/{session}"
INSTRUCTIONS = (
    "Meetings recorded or live in streamtwin. list_sessions names them; get_transcript and get_twin read one; "
    "ask answers a question from one meeting or from all of them, each read whole, with checked quotes."
)


def session_uri(session: str) -> str:
    return SESSION_URI.format(session=session)


class StreamtwinMCP(MCPServer):
    """The SDK's server, whose resource list also holds one resource per live session."""

    def __init__(self, catalog: Catalog, **kwargs: Any) -> None:
        self.bus = InMemorySubscriptionBus()
        super().__init__(subscriptions=self.bus, **kwargs)
        self.catalog = catalog

    async def watch(self) -> None:
        """Until cancelled: listeners hear of live sessions coming and going, and of each one growing."""

        async def listed() -> None:
            await self.bus.publish(ResourcesListChanged())

        async def grew(session: str) -> None:
            await self.bus.publish(ResourceUpdated(uri=session_uri(session)))

        await self.catalog.watch(listed, grew)

    async def list_resources(self) -> list[MCPResource]:
        listed = await super().list_resources()
        return listed + [
            MCPResource(uri=session_uri(session), name=f"session {session}", mime_type="text/markdown",
                        description="A live session's notes so far: its twin, then its transcript.")
            for session in self.catalog.live
        ]


def build_mcp(catalog: Catalog, backend: Backend | None, *, answer_tokens: int = 512) -> StreamtwinMCP:
    """The MCP server over ``catalog``; ``ask`` needs ``backend`` (None: ``ask`` says so)."""
    from streamtwin import __version__

    server = StreamtwinMCP(catalog, name="streamtwin", version=__version__, instructions=INSTRUCTIONS)

    @server.tool()
    async def list_sessions() -> dict[str, Any]:
        """The meetings that can be read and asked: recordings, and the event log's sessions (live or ended)."""
        return {"sessions": [entry.to_dict() for entry in await _guard(catalog.entries())]}

    @server.tool()
    async def get_transcript(session: str) -> str:
        """A meeting's transcript: a line per utterance, ``[mm:ss] Speaker: text`` (revised text)."""
        meeting = await _guard(catalog.meeting(session))
        return "\n".join(f"[{stamp(line.start)}] {line.speaker or 'unknown'}: {line.text}" for line in meeting.lines)

    @server.tool()
    async def get_twin(session: str) -> dict[str, Any]:
        """A meeting's digital twin as it stands: summary, action items, decisions, open questions, people."""
        return {"session": session, "twin": (await _guard(catalog.meeting(session))).twin}

    @server.tool()
    async def ask(question: str, session: str = "") -> dict[str, Any]:
        """Answer a question from one meeting (``session``) or from every meeting (empty), each read whole; the
        answer's quotes are checked against the transcripts and listed as sources (meeting, time, speaker)."""
        if backend is None:
            raise ToolError("this MCP server has no language model (started with --llm none)")
        try:
            question = check_question(question)  # before any meeting is read
            meetings = await _guard(catalog.meetings(session))
            answer = await answer_question(question, meetings, backend, answer_tokens=answer_tokens)
        except ValueError as exc:
            raise ToolError(str(exc)) from None
        except LLMError as exc:
            raise ToolError(f"the language model failed ({exc.code}): {exc.message}") from None
        return answer.to_dict()

    @server.resource(SESSION_URI, mime_type="text/markdown", description="A session's notes so far (Markdown).")
    async def session_notes(session: str) -> str:
        try:
            meeting = await catalog.meeting(session)
        except LibraryError as exc:
            raise ResourceError(str(exc)) from None
        return render_notes(meeting.lines, meeting.twin)

    return server


async def _guard(pending: Any) -> Any:
    """A catalog call whose failure (no such meeting, the log unreachable) is the tool's error message."""
    try:
        return await pending
    except LibraryError as exc:
        raise ToolError(str(exc)) from None


async def run_stdio(server: StreamtwinMCP) -> None:
    """Serve over stdin/stdout until the client closes them, the log watched alongside."""
    watcher = asyncio.ensure_future(server.watch())
    try:
        await server.run_stdio_async()
    finally:
        watcher.cancel()
        await asyncio.gather(watcher, return_exceptions=True)
