"""The plain HTTP side's rules: the headers every page and file carries.  Pure, no I/O.

The page loads its own ES modules and stylesheet only, never inline script or style, so a strict
Content-Security-Policy costs it nothing and takes an injected script's power away.  Viewer and join
links carry their tokens in the query string: ``Referrer-Policy: no-referrer`` keeps them from leaving
with a click.  ``frame-ancestors 'none'`` (no framing, against clickjacking) unless ``--allow-embed``
names the pages that may frame it.
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

