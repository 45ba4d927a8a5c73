"""Who a request comes from, for limits that hold per person rather than per spelling: the
account of a valid token, else the client's address. Behind a reverse proxy every request
comes from the proxy; only proxies the operator names (``--trusted-proxy CIDR``) are
believed about the address they forward (``X-Forwarded-For``)."""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable

from starlette.types import Scope

Network = ipaddress.IPv4Network | ipaddress.IPv6Network
Address = ipaddress.IPv4Address | ipaddress.IPv6Address


def parse_networks(cidrs: Iterable[str]) -> tuple[Network, ...]:
    """``10.0.0.0/8``, ``::1``...; ValueError naming the one that is not a network."""
    networks = []
    for cidr in cidrs:
        try:
            networks.append(ipaddress.ip_network(cidr.strip(), strict=False))
        except ValueError:
            raise ValueError(f"{cidr!r} is not an address or a network (CIDR)") from None
    return tuple(networks)


def _address(text: str) -> Address | None:
    try:
        address = ipaddress.ip_address(text.strip())
    except ValueError:
        return None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped
    return address


class ClientAddresses:
    def __init__(self, trusted_proxies: Iterable[str] = ()) -> None:
        self.trusted = parse_networks(trusted_proxies)

    def _trusted(self, address: Address) -> bool:
        return any(address in network for network in self.trusted)

    def address(self, scope: Scope) -> str:
        """The client's address: the peer's, or, when the peer is a trusted proxy, the
        nearest address in X-Forwarded-For that is not a trusted proxy (each proxy appends
        the address it got the request from, so only the right-hand end can be believed)."""
        client = scope.get("client")
        peer_text = str(client[0]) if client else ""
        peer = _address(peer_text)
        if peer is None or not self.trusted or not self._trusted(peer):
            return str(peer) if peer is not None else peer_text
        forwarded = [
            part
            for name, value in scope.get("headers", [])
            if name == b"x-forwarded-for"
            for part in value.decode("latin-1").split(",")
        ]
        nearest = peer
        for text in reversed(forwarded):
            hop = _address(text)
            if hop is None:
                break  # a malformed hop: nothing left of it can be believed
            nearest = hop
            if not self._trusted(hop):
                break
        return str(nearest)


def address_key(address: str) -> str:
    """The unit a per-address limit counts: an IPv4 address, or an IPv6 /64 (one
    subscriber's network hands out a /64 or more, so its addresses are one person)."""
    parsed = _address(address)
    if isinstance(parsed, ipaddress.IPv6Address):
        return str(ipaddress.IPv6Network((parsed, 64), strict=False))
    return str(parsed) if parsed is not None else address
