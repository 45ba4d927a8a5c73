"""Whom a request counts against: the client address, believed from trusted proxies only."""

from __future__ import annotations

import re
from typing import Any

import pytest

from judge.server.clients import ClientAddresses, address_key, parse_networks


def scope(peer: str, *forwarded: str) -> dict[str, Any]:
    headers = [(b"x-forwarded-for", value.encode()) for value in forwarded]
    return {"type": "http", "client": (peer, 4000), "headers": headers}


def test_without_trusted_proxies_the_peer_is_the_client() -> None:
    clients = ClientAddresses()
    assert clients.address(scope("192.0.2.1", "203.0.113.9")) == "192.0.2.1"
    assert clients.address(scope("::ffff:192.0.2.1")) == "192.0.2.1"


def test_a_trusted_proxy_is_believed_for_its_own_hop_only() -> None:
    clients = ClientAddresses(["10.0.0.0/8", "fd00::/8"])
    assert clients.address(scope("10.0.0.2", "203.0.113.9")) == "203.0.113.9"
    # What the client wrote itself sits to the left of what the proxy appended.
    assert clients.address(scope("10.0.0.2", "1.1.1.1, 203.0.113.9")) == "203.0.113.9"
    # Chained proxies: every trusted hop is skipped; several headers read as one list.
    assert clients.address(scope("10.0.0.2", "1.1.1.1, 203.0.113.9", "10.0.0.7")) == "203.0.113.9"
    assert clients.address(scope("fd00::1", "2001:db8::5")) == "2001:db8::5"
    # A malformed hop ends what can be believed: the last good trusted hop is the client.
    assert clients.address(scope("10.0.0.2", "203.0.113.9, junk")) == "10.0.0.2"
    assert clients.address(scope("10.0.0.2")) == "10.0.0.2"
    # An untrusted peer's header is ignored.
    assert clients.address(scope("192.0.2.1", "203.0.113.9")) == "192.0.2.1"


def test_an_ipv6_client_is_its_64() -> None:
    assert address_key("2001:db8:1:2:aaaa::1") == address_key("2001:db8:1:2:bbbb::2")
    assert address_key("2001:db8:1:2::1") != address_key("2001:db8:1:3::1")
    assert address_key("192.0.2.1") == "192.0.2.1"
    assert address_key("testclient") == "testclient"


def test_bad_networks_are_named() -> None:
    with pytest.raises(ValueError, match=re.escape("'10.0.0.0/33'")):
        parse_networks(["10.0.0.0/8", "10.0.0.0/33"])


def test_serve_names_a_bad_trusted_proxy() -> None:
    from click.testing import CliRunner

    from judge.cli import main

    out = CliRunner().invoke(main, ["serve", "--trusted-proxy", "10.0.0.0/33", "--port", "0"])
    assert out.exit_code == 2 and "'10.0.0.0/33' is not an address or a network" in out.output
