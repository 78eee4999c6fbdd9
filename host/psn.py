"""PSN arithmetic: 24-bit wire PSNs and the unbounded PSNs the host keeps internally.

The NIC numbers each QP's packets 0, 1, 2, ... modulo 2^24 (BTH PSN, docs/mrc-nic.md 3).
The sender keeps PSNs as plain integers that never wrap, so ordering is ordinary integer
comparison; a wire PSN is mapped back to the integer nearest a reference point (within
half the PSN space, as the NIC's window test `d >= 2^23 means behind` does).
"""

from __future__ import annotations

PSN_BITS = 24
PSN_MASK = (1 << PSN_BITS) - 1
_HALF = 1 << (PSN_BITS - 1)


def wire_psn(psn: int) -> int:
    """The 24-bit BTH PSN of an unbounded PSN (``-1`` gives 0xFFFFFF, as SACKs say)."""
    return psn & PSN_MASK


def unwrap_psn(wire: int, reference: int) -> int:
    """The unbounded PSN whose wire value is ``wire`` and which lies within 2^23 of
    ``reference`` (an unbounded PSN)."""
    delta = (wire - reference) & PSN_MASK
    if delta >= _HALF:
        delta -= 1 << PSN_BITS
    return reference + delta


def psn_distance(psn: int, base: int) -> int:
    """``psn - base`` modulo 2^24, for two wire PSNs (0 .. 2^24 - 1)."""
    return (psn - base) & PSN_MASK


def is_behind(psn: int, base: int) -> bool:
    """True when wire PSN ``psn`` lies before wire PSN ``base`` (within 2^23)."""
    return psn_distance(psn, base) >= _HALF
