"""Fields the simulator reads from frames without parsing them: fixed byte offsets of
the MRC encapsulation (docs/mrc-protocol.md section 3). Only for measuring: the
devices themselves run the real parsers.

Two layouts: *on the fabric* (Ethernet / outer IPv6 / inner IPv6 / UDP / BTH) and
*at the host port* (Ethernet / IPv6 / UDP / BTH, decapsulated by the NIC)."""

from __future__ import annotations

from struct import Struct

from protocol import constants as c

ETH = 14
IPV6 = 40
UDP = 8
# BTH: opcode at +0, DestQP at +5..+8, PSN at +9..+12.
FABRIC_BTH = ETH + IPV6 + IPV6 + UDP
HOST_BTH = ETH + IPV6 + UDP
# Host frames of a write: BTH 12, METH 4, RETH 16 before the payload.
WRITE_HEADERS = HOST_BTH + 12 + 4 + 16
_INNER_SA = ETH + IPV6 + 8
_HOST_SA = ETH + 8
_OUTER_FLOW_LABEL = ETH + 2
_UDP_SPORT = ETH + IPV6 + IPV6
_WRITES = c.WRITE_OPCODES
TRIMMED_DSCPS = frozenset((c.DSCP_TRIMMED, c.DSCP_TRIMMED_LASTHOP))
_U24 = 0xFFFFFF


def _fields(start: int, *fields: tuple[int, str]) -> Struct:
    """One big-endian read, at ``start``, of ``(offset, format)`` fields in order (the
    bytes between them skipped): each frame is read with one call, not a slice and
    a conversion per field."""
    layout, at = ">", start
    for offset, fmt in fields:
        layout += f"{offset - at}x{fmt}" if offset > at else fmt
        at = offset + Struct(">" + fmt).size
    return Struct(layout)


# flow label's low 16 bits, inner source address, UDP source port, BTH opcode, the
# words holding DestQP and PSN (each below a byte of flags)
_FABRIC = _fields(_OUTER_FLOW_LABEL, (_OUTER_FLOW_LABEL, "H"), (_INNER_SA, "16s"),
                  (_UDP_SPORT, "H"), (FABRIC_BTH, "B"), (FABRIC_BTH + 4, "I"),
                  (FABRIC_BTH + 8, "I"))
# source address, BTH opcode, the words holding DestQP and PSN
_HOST = _fields(_HOST_SA, (_HOST_SA, "16s"), (HOST_BTH, "B"), (HOST_BTH + 4, "I"),
                (HOST_BTH + 8, "I"))


def outer_dscp(frame: bytes) -> int:
    """The DSCP of the first IPv6 header (the outer one on the fabric)."""
    return ((frame[ETH] & 0x0F) << 2) | (frame[ETH + 1] >> 6)


def fabric_write(frame: bytes) -> tuple[bytes, int, int, int] | None:
    """``(sender address, DestQP, PSN, EV)`` of a data packet on the fabric, None for
    anything else (SACK, NACK, probe, short frames)."""
    if len(frame) < FABRIC_BTH + 12:
        return None
    flow, sender, sport, opcode, qp, psn = _FABRIC.unpack_from(frame, _OUTER_FLOW_LABEL)
    if opcode not in _WRITES:
        return None
    return sender, qp & _U24, psn & _U24, sport << 16 | flow


def host_write(frame: bytes) -> tuple[bytes, int, int, int] | None:
    """``(sender address, DestQP, PSN, payload bytes)`` of a data packet the NIC
    delivers to its host, None for anything else."""
    if len(frame) < HOST_BTH + 12:
        return None
    sender, opcode, qp, psn = _HOST.unpack_from(frame, _HOST_SA)
    if opcode not in _WRITES:
        return None
    imm = 4 if opcode in c.IMM_OPCODES else 0
    return sender, qp & _U24, psn & _U24, len(frame) - WRITE_HEADERS - imm
