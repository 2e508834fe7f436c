"""Credentials out of anything that is logged or sent: ``rtsp://user:pass@host`` -> ``rtsp://host``,
``?token=...`` -> ``?token=***``.  A pure function on text."""

from __future__ import annotations

import re

USERINFO = re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://)[^/?#@\s]*@")
SECRET_PARAMS = re.compile(
    r"(?i)([?&;](?:token|access_token|secret|password|passwd|pass|pwd|key|api_key|apikey|auth|sig|signature|"
    r"credential|view|resume)=)[^&#\s]*"
)


def redact(text: str) -> str:
    return SECRET_PARAMS.sub(r"\1***", USERINFO.sub(r"\1", text))
