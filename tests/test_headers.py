"""Security headers on every page and file (issue 38): a strict CSP, nosniff, no referrer.

The reproduction: the page was served with no Content-Security-Policy, no ``frame-ancestors``, no
``nosniff`` and no ``Referrer-Policy``, while its viewer and join links carry their tokens in the
query string.  tests/test_browser.py drives the real page under the policy in Chromium.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

import httpx

from streamtwin.service.http import find_web_root
from streamtwin.service.http_rules import content_security_policy

PATHS = ("/", "/index.html", "/app.js", "/style.css", "/healthz", "/metrics", "/missing.js", "/ws")


def directives(policy: str) -> dict[str, str]:
    return dict(part.strip().split(" ", 1) for part in policy.split(";"))


async def test_every_page_and_file_carries_the_headers(make_server):
    server = await make_server()
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{server.port}", trust_env=False) as http:
        for path in PATHS:
            reply = await http.get(path)
            assert reply.headers["x-content-type-options"] == "nosniff", path
            assert reply.headers["referrer-policy"] == "no-referrer", path
            policy = directives(reply.headers["content-security-policy"])
            assert policy["script-src"] == "'self'" and policy["style-src"] == "'self'", path
            assert policy["frame-ancestors"] == "'none'" and policy["object-src"] == "'none'", path
        whip = await http.post("/whip", content="v=0", headers={"Content-Type": "text/plain"})
        assert whip.status_code == 415 and whip.headers["x-content-type-options"] == "nosniff"
        assert whip.headers["referrer-policy"] == "no-referrer"


async def test_allow_embed_names_the_pages_that_may_frame_it(make_server):
    server = await make_server(allow_embed=["https://intranet.example/"])
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{server.port}", trust_env=False) as http:
        policy = directives((await http.get("/")).headers["content-security-policy"])
    assert policy["frame-ancestors"] == "https://intranet.example"
    assert directives(content_security_policy(["*"]))["frame-ancestors"] == "*"


class InlineFinder(HTMLParser):
    """What a strict CSP would block in a page: inline scripts, style elements and attributes, handlers."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        names = {name for name, _ in attrs}
        if tag == "script" and "src" not in names or tag == "style":
            self.found.append(f"<{tag}> without a file")
        self.found += [f"{name}= on <{tag}>" for name in names if name == "style" or name.startswith("on")]


def test_the_page_has_nothing_inline_that_the_policy_would_block():
    root = find_web_root()
    finder = InlineFinder()
    finder.feed((root / "index.html").read_text(encoding="utf-8"))
    assert finder.found == []
    for script in root.glob("*.js"):  # nor does a module write style attributes or evaluate strings
        text = script.read_text(encoding="utf-8")
        assert not re.search(r"setAttribute\(\s*['\"]style|\beval\(|new Function\(|innerHTML", text), script.name
