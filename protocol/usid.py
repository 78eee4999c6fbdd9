"""uSID carriers (RFC 9800, F3216): the IPv6 destination address that holds a 32-bit
locator block and up to six 16-bit uSIDs. Plain address arithmetic, without scapy, so
that the controller's path planning does not pay for loading scapy's layers;
``protocol.headers`` re-exports both functions beside its layers."""

from __future__ import annotations

import ipaddress
from collections.abc import Sequence

from . import constants as c

__all__ = ["carrier_usids", "usid_carrier"]


def usid_carrier(block: int | str, usids: Sequence[int]) -> str:
    """The IPv6 address of a uSID carrier (F3216): a 32-bit block, then 16-bit uSIDs.

    ``block`` is an int (``0xfcbbbb00``) or an address/prefix whose top 32 bits are the
    block (``"fcbb:bb00::"`` or ``"fcbb:bb00::/32"``). Unused uSID slots are zero.

    >>> usid_carrier(0xFCBBBB00, [0x100, 0x200, 0x300])
    'fcbb:bb00:100:200:300::'
    """
    if isinstance(block, str):
        block = int(ipaddress.IPv6Network(block, strict=False).network_address) >> 96
    if not 0 <= block < 1 << c.USID_BLOCK_BITS:
        raise ValueError(f"block {block:#x} does not fit in {c.USID_BLOCK_BITS} bits")
    if len(usids) > c.USID_MAX_PER_CARRIER:
        raise ValueError(f"{len(usids)} uSIDs do not fit in one carrier "
                         f"(at most {c.USID_MAX_PER_CARRIER})")
    value = block
    for usid in usids:
        if not 0 < usid < 1 << c.USID_BITS:
            raise ValueError(f"uSID {usid:#x} must be a non-zero {c.USID_BITS}-bit value")
        value = value << c.USID_BITS | usid
    value <<= c.USID_BITS * (c.USID_MAX_PER_CARRIER - len(usids))
    return str(ipaddress.IPv6Address(value))


def carrier_usids(address: str) -> tuple[int, list[int]]:
    """Split a uSID carrier into (block, uSIDs), stopping at the first zero slot."""
    value = int(ipaddress.IPv6Address(address))
    block = value >> (128 - c.USID_BLOCK_BITS)
    usids: list[int] = []
    for slot in range(c.USID_MAX_PER_CARRIER):
        shift = 128 - c.USID_BLOCK_BITS - c.USID_BITS * (slot + 1)
        usid = value >> shift & ((1 << c.USID_BITS) - 1)
        if usid == 0:
            break
        usids.append(usid)
    return block, usids
