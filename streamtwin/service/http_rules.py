"""The plain HTTP side's rules: the headers every page and file carries, and the requests the port's router
cannot place.  Pure, no I/O.

The page loads its own ES modules and stylesheet only, never inline script or style, so a strict
Content-Security-Policy costs it nothing and takes an injected script's power away.  Viewer and join
links carry their tokens in the query string: ``Referrer-Policy: no-referrer`` keeps them from leaving
with a click.  ``frame-ancestors 'none'`` (no framing, against clickjacking) unless ``--allow-embed``
names the pages that may frame it.

websockets reads the pages', ``/healthz``'s, ``/metrics``' and ``/ws``' requests, one per connection and
without a body; what it cannot read (a body, a second request in the same write, a target that is not a
path) it closes without a status.  :func:`unplaceable` says why before it gets there, for a 400.
"""

from __future__ import annotations

Headers = tuple[tuple[str, str], ...]

# On every reply: a browser must not guess a type (a text reply read as script), nor leak the URL.
BASE_HEADERS: Headers = (("X-Content-Type-Options", "nosniff"), ("Referrer-Policy", "no-referrer"))

# What the page needs: its own modules, stylesheet and websocket; keyframe thumbnails as data: images;
# downloads as blob: links; the camera preview as a MediaStream (not a URL: no source to allow).
PAGE_POLICY = (
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data: blob:",
    "media-src 'self' blob:",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
)


def content_security_policy(allow_embed: list[str]) -> str:
    """The page's policy; ``allow_embed``: origins whose pages may frame it (``*``: any), none by default."""
    if "*" in allow_embed:
        ancestors = "*"
    elif allow_embed:
        ancestors = " ".join(origin.rstrip("/") for origin in allow_embed)
    else:
        ancestors = "'none'"
    return "; ".join((*PAGE_POLICY, f"frame-ancestors {ancestors}"))



def end_of_head(received: bytes) -> int:
    """Where a request's head ends in what was received (after its blank line), or -1: not yet."""
    ends = [at + len(mark) for mark in (b"\r\n\r\n", b"\n\n") if (at := received.find(mark)) >= 0]
    return min(ends, default=-1)


def unplaceable(head: bytes, *, trailing: bool) -> str | None:
    """Why the port's router cannot hand a request head to the pages, ``/healthz``, ``/metrics`` or ``/ws``
    (websockets closes such a request without a word), or None; ``trailing``: bytes came after the head."""
    lines = head.decode("latin-1").replace("\r\n", "\n").split("\n")
    parts = lines[0].split(" ")
    if len(parts) != 3 or not parts[2].startswith("HTTP/"):
        return "a malformed request line: send METHOD /path HTTP/1.1"
    if not parts[1].startswith("/"):
        return "the target must be a path such as /healthz, not an absolute URL or *"
    fields = [line.partition(":") for line in lines[1:] if line]
    lengths = [value.strip() for name, _, value in fields if name.strip().lower() == "content-length"]
    if any(name.strip().lower() == "transfer-encoding" for name, _, _ in fields) or lengths not in ([], ["0"]):
        return "only POST /whip takes a body"
    if trailing:
        return "one request per connection: send the next one on a new connection"
    return None
