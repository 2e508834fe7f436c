"""What an SDP offer must carry before anything is opened for it.  Pure, no I/O.

aiortc answers an offer that can never carry media: one without a DTLS fingerprint (no keys can be
agreed), without ICE credentials (no connectivity check can pass), or whose every audio and video
section only receives or is switched off.  The session such an answer opens waits for media that
cannot come, holding a session slot for the first-media timeout.  So those are refused up front, for
WHIP (400) and ``/ws`` offers (``bad_sdp``) alike.  Credentials count wherever the offer puts them (at
the session level, or in a section that a BUNDLE shares with the others).
"""

from __future__ import annotations

from dataclasses import dataclass, field

DIRECTIONS = ("sendrecv", "sendonly", "recvonly", "inactive")
SENDING = ("sendrecv", "sendonly")


@dataclass
class _Section:
    kind: str = ""  # audio, video, application...; "" for the session level
    port: str = ""
    attributes: list[str] = field(default_factory=list)  # a= lines, without the "a="

    def has(self, name: str) -> bool:
        return any(attribute == name or attribute.startswith(name + ":") for attribute in self.attributes)

    def direction(self, default: str) -> str:
        return next((attribute for attribute in self.attributes if attribute in DIRECTIONS), default)


def _sections(sdp: str) -> list[_Section]:
    """The session level, then each media section."""
    sections = [_Section()]
    for line in sdp.replace("\r\n", "\n").split("\n"):
        if line.startswith("m="):
            parts = line[2:].split(" ")
            sections.append(_Section(parts[0], parts[1] if len(parts) > 1 else ""))
        elif line.startswith("a="):
            sections[-1].attributes.append(line[2:].strip())
    return sections


def offer_problem(sdp: str) -> str | None:
    """Why an offer can never bring media to a session (one line for the publisher), or None."""
    if not sdp.lstrip().startswith("v=0"):
        return "the offer is not an SDP session description (it must start with v=0)"
    session, *media = _sections(sdp)
    av = [section for section in media if section.kind in ("audio", "video")]
    if not av:
        return "the offer has no audio or video section"
    default = session.direction("sendrecv")
    sending = [s for s in av if s.direction(default) in SENDING and (s.port != "0" or s.has("bundle-only"))]
    if not sending:
        return "the offer sends no media; every audio and video section is recvonly, inactive or turned off"
    everywhere = [session, *media]
    if not any(section.has("fingerprint") for section in everywhere):
        return "the offer has no DTLS fingerprint (a=fingerprint), so no secure media connection can be made"
    if not all(any(section.has(name) for section in everywhere) for name in ("ice-ufrag", "ice-pwd")):
        return "the offer has no ICE credentials (a=ice-ufrag and a=ice-pwd), so no connection can be made"
    return None
