"""``streamtwin mcp``: meetings for agents over the Model Context Protocol (the official ``mcp`` SDK).

:mod:`~streamtwin.meetings.catalog` knows the meetings (recordings and the event log),
:mod:`~streamtwin.mcp_server.tools` the tools and resources, :mod:`~streamtwin.mcp_server.http_gate` the door
in front of streamable HTTP.
"""
