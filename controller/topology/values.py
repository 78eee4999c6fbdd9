"""Textual values of a topology file (uSID block, MACs, IPv6 addresses) as integers.

Each parser raises ``ValueError`` with a message fit for a ``Problem``.
"""

from __future__ import annotations

import ipaddress

from protocol import constants as c


def parse_usid_block(text: str) -> int:
    """``fcbb:bb00::/32`` (or the address alone) -> the 32-bit locator block."""
    try:
        network = ipaddress.IPv6Network(text, strict=True)
    except ValueError as err:
        raise ValueError(f"{text!r} is not an IPv6 prefix ({err})") from None
    if "/" in text and network.prefixlen != c.USID_BLOCK_BITS:
        raise ValueError(f"{text!r}: a uSID block is a /{c.USID_BLOCK_BITS} (F3216)")
    value = int(network.network_address)
    if value & ((1 << (128 - c.USID_BLOCK_BITS)) - 1):
        raise ValueError(f"{text!r}: bits after the first {c.USID_BLOCK_BITS} must be zero")
    return value >> (128 - c.USID_BLOCK_BITS)


def parse_mac(text: str) -> int:
    parts = text.split(":")
    if len(parts) != 6 or not all(len(p) == 2 for p in parts):
        raise ValueError(f"{text!r} is not a MAC address (six hex bytes, colon-separated)")
    try:
        return int("".join(parts), 16)
    except ValueError:
        raise ValueError(f"{text!r} is not a MAC address") from None


def parse_ipv6(text: str) -> int:
    try:
        return int(ipaddress.IPv6Address(text))
    except ValueError as err:
        raise ValueError(f"{text!r} is not an IPv6 address ({err})") from None


def parse_ipv6_prefix(text: str) -> ipaddress.IPv6Network:
    try:
        return ipaddress.IPv6Network(text, strict=True)
    except ValueError as err:
        raise ValueError(f"{text!r} is not an IPv6 prefix ({err})") from None


def format_mac(value: int) -> str:
    return ":".join(f"{value >> shift & 0xFF:02x}" for shift in range(40, -1, -8))


def nic_address(prefix: ipaddress.IPv6Network, index: int) -> int:
    """The address of NIC ``index`` when the file gives none: the prefix's ``index + 1``-th
    address (the prefix's own address is left out: it is the subnet-router anycast)."""
    return int(prefix.network_address) + index + 1
