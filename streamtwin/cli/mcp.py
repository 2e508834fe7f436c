"""``streamtwin mcp [REC...]``: an MCP server over stdio (default) or streamable HTTP (``--http``), on the
official SDK (streamtwin/mcp_server/)."""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
from collections.abc import Callable

from streamtwin.config import Config

log = logging.getLogger(__name__)

MCP_EXAMPLES = """\
examples:
  streamtwin mcp recordings/                          stdio, for an agent that starts it (Claude Desktop, ...)
  streamtwin mcp --redis redis://127.0.0.1:6379/0     the event log's sessions, live ones as resources
  streamtwin mcp recordings/ --http --port 8765       streamable HTTP at http://127.0.0.1:8765/mcp
  streamtwin mcp --redis URL --http --host 0.0.0.0 --token SECRET   the same door as serve: a token off loopback

Tools: list_sessions, get_transcript, get_twin, ask (one session or all).  Resources: streamtwin://sessions/ID
(a session's notes so far), one listed per live session, updated as it runs.
"""


def add_mcp_parser(
    commands: argparse._SubParsersAction, add_llm_flags: Callable[[argparse.ArgumentParser], None],
    csv: Callable[[str], list[str]],
) -> None:
    mcp = commands.add_parser(
        "mcp",
        help="serve meetings to agents over the Model Context Protocol (stdio, or streamable HTTP)",
        description="An MCP server: recorded meetings and the event log's sessions, as tools and resources.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=MCP_EXAMPLES,
    )
    mcp.add_argument("recordings", nargs="*", metavar="REC", help="run --record files or folders of them")
    mcp.add_argument(
        "--redis", default=None, metavar="URL",
        help="redis://[:PASSWORD@]HOST:PORT/DB: the event log of serve --redis (live and ended sessions)",
    )
    mcp.add_argument("--http", action="store_true", help="streamable HTTP at /mcp instead of stdio")
    mcp.add_argument("--host", default=None, help="with --http: address to listen on (default: 127.0.0.1)")
    mcp.add_argument("--port", type=int, default=None, help="with --http: port (default: 8080)")
    mcp.add_argument(
        "--token", default=None,
        help="with --http: the token clients send (Authorization: Bearer TOKEN; env STREAMTWIN_TOKEN); "
        "required unless --host is a loopback address",
    )
    mcp.add_argument(
        "--allow-host", dest="allow_host", type=csv, default=None, metavar="NAME,...",
        help="with --http: host names served besides IP addresses and localhost (DNS rebinding guard)",
    )
    add_llm_flags(mcp)


def mcp_command(config: Config, args: argparse.Namespace) -> int:
    from streamtwin.service.access import check_bind

    if args.http:
        problem = check_bind(config.host, config.token)
        if problem:
            return _fail(problem, 2)
    try:
        return asyncio.run(_mcp(config, args.recordings, args.http))
    except KeyboardInterrupt:
        return 130


async def _mcp(config: Config, recordings: list[str], http: bool) -> int:
    from streamtwin.eventlog.open import StoreError, open_store
    from streamtwin.llm.backend import LLMError
    from streamtwin.llm.factory import make_backend
    from streamtwin.mcp_server.tools import build_mcp, run_stdio
    from streamtwin.meetings.catalog import Catalog
    from streamtwin.meetings.library import LibraryError, load_meetings

    if not recordings and not config.redis:
        return _fail("nothing to serve: name recordings (run --record files or folders) or --redis URL")
    try:
        backend = make_backend(config)
    except (LLMError, ValueError) as exc:
        return _fail(str(exc))
    store = None
    try:
        meetings = await load_meetings(config, recordings) if recordings else []
        store = await open_store(config) if config.redis else None
    except (LibraryError, StoreError) as exc:
        return _fail(str(exc))
    server = build_mcp(Catalog(meetings, store), backend)
    try:
        if http:
            await _serve_http(server, config)
        else:
            await run_stdio(server)
    finally:
        if backend is not None:
            await backend.aclose()
        if store is not None:
            await store.close()
    return 0


async def _serve_http(server, config: Config) -> None:  # type: ignore[no-untyped-def]
    import uvicorn
    from mcp.server.transport_security import TransportSecuritySettings

    from streamtwin.mcp_server.http_gate import HttpGate

    # The Host check is the gate's (serve's rules, --allow-host); the SDK's own would refuse those names.
    app = server.streamable_http_app(
        transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False), host=config.host,
    )
    gated = HttpGate(app, config.token, config.allow_host, config.auth_failures_per_min)
    web = uvicorn.Server(uvicorn.Config(gated, host=config.host, port=config.port, log_level="warning"))
    watcher = asyncio.ensure_future(server.watch())
    host = f"[{config.host}]" if ":" in config.host else config.host
    serving = asyncio.ensure_future(web.serve())
    try:
        while not web.started and not serving.done():  # say where only once it listens there
            await asyncio.sleep(0.01)
        if web.started:
            sys.stderr.write(f"streamtwin: MCP at http://{host}:{config.port}/mcp\n")
        await serving
    finally:
        serving.cancel()
        watcher.cancel()
        await asyncio.gather(watcher, return_exceptions=True)


def _fail(message: str, code: int = 1) -> int:
    print(f"streamtwin: error: {message}", file=sys.stderr)
    return code
