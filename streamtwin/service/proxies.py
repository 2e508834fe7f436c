"""Which address a request comes from when a reverse proxy stands in front: pure, no I/O.

Behind a proxy every connection comes from the proxy's address, so the per-address caps and the
wrong-token lockout would count all clients as one.  Only for a peer in ``--trusted-proxy`` are the
``Forwarded`` (RFC 7239) and ``X-Forwarded-For`` headers read, and in them the right-most hop that
is not itself a trusted proxy: every hop to its right was written by a proxy we trust, anything to
its left may have been written by the client.  A client may send either header itself and a proxy
appends to one of them; when both are present and name different clients, one was the client's
own invention, so neither is believed (the peer's address stands).  An unparsable hop ends the
search the same way.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable, Sequence

Network = ipaddress.IPv4Network | ipaddress.IPv6Network
Address = ipaddress.IPv4Address | ipaddress.IPv6Address


class BadProxy(ValueError):
    """A ``--trusted-proxy`` value that is not an address or a CIDR block."""


def parse_networks(values: Iterable[str]) -> tuple[Network, ...]:
    """``--trusted-proxy`` values (addresses or CIDR blocks); raises :class:`BadProxy`."""
    networks = []
    for value in values:
        try:
            networks.append(ipaddress.ip_network(value.strip(), strict=False))
        except ValueError:
            raise BadProxy(f"--trusted-proxy {value!r} is not an IP address or a CIDR block (e.g. 10.0.0.0/8)")
    return tuple(networks)


def parse_address(text: str) -> Address | None:
    """An address as a peer, ``X-Forwarded-For`` or a ``Forwarded`` ``for=`` gives it (brackets, quotes and
    a port allowed); None for anything else ("unknown", an obfuscated name, garbage)."""
    text = text.strip().strip('"')
    if text.startswith("["):  # [2001:db8::1]:4711
        text = text[1:].partition("]")[0]
    elif text.count(":") == 1:  # 192.0.2.1:4711
        text = text.partition(":")[0]
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        return None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped  # a dual-stack socket's ::ffff:192.0.2.1 is 192.0.2.1
    return address


def forwarded_hops(values: Sequence[str]) -> list[str]:
    """The ``for=`` of each element of ``Forwarded`` headers, in order ("" for an element without one)."""
    hops = []
    for value in values:
        for element in value.split(","):
            pairs = (pair.partition("=") for pair in element.split(";"))
            hops.append(next((v.strip() for k, _, v in pairs if k.strip().lower() == "for"), ""))
    return hops


def forwarded_for_hops(values: Sequence[str]) -> list[str]:
    """The hops of ``X-Forwarded-For`` headers, in order (several headers are one list)."""
    return [hop for value in values for hop in value.split(",")]


class TrustedProxies:
    """The client address of a connection, given its peer and the forwarding headers it carried."""

    def __init__(self, networks: Iterable[str] = ()):
        """``networks``: the ``--trusted-proxy`` values; raises :class:`BadProxy`."""
        self.networks = parse_networks(networks)

    def trusted(self, address: Address | None) -> bool:
        return address is not None and any(address in network for network in self.networks)

    def client(self, peer: str, forwarded: Sequence[str] = (), forwarded_for: Sequence[str] = ()) -> str:
        """The address to count, lock out and log for a connection from ``peer``."""
        peer_address = parse_address(peer)
        shown = str(peer_address) if peer_address is not None else peer
        if not self.trusted(peer_address) or not (forwarded or forwarded_for):
            return shown
        found = {self._nearest_client(hops) for hops in (forwarded_hops(forwarded), forwarded_for_hops(forwarded_for))
                 if hops}
        if len(found) != 1 or None in found:
            return shown
        return str(found.pop())

    def _nearest_client(self, hops: list[str]) -> Address | None:
        """The right-most hop that is not a trusted proxy (the left-most one when all are); None when a hop
        on the way is unparsable."""
        address = None
        for hop in reversed(hops):
            address = parse_address(hop)
            if not self.trusted(address):
                return address
        return address
