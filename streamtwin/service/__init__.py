"""The live service: HTTP, websockets, WHIP, sessions and their viewers, admission and limits, metrics."""
