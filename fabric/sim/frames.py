"""Fields the simulator reads from frames without parsing them: fixed byte offsets of
the MRC encapsulation (docs/mrc-protocol.md section 3). Only for measuring: the
devices themselves run the real parsers.

Two layouts: *on the fabric* (Ethernet / outer IPv6 / inner IPv6 / UDP / BTH) and
*at the host port* (Ethernet / IPv6 / UDP / BTH, decapsulated by the NIC)."""

from __future__ import annotations

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


def outer_dscp(frame: bytes) -> int:
    """The DSCP of the first IPv6 header (the outer one on the fabric)."""
    return ((frame[ETH] & 0x0F) << 2) | (frame[ETH + 1] >> 6)


def fabric_write(frame: bytes) -> tuple[bytes, int, int, int] | None:
    """``(sender address, DestQP, PSN, EV)`` of a data packet on the fabric, None for
    anything else (SACK, NACK, probe, short frames)."""
    if len(frame) < FABRIC_BTH + 12 or frame[FABRIC_BTH] not in _WRITES:
        return None
    qp = int.from_bytes(frame[FABRIC_BTH + 5:FABRIC_BTH + 8], "big")
    psn = int.from_bytes(frame[FABRIC_BTH + 9:FABRIC_BTH + 12], "big")
    ev = (int.from_bytes(frame[_UDP_SPORT:_UDP_SPORT + 2], "big") << 16
          | int.from_bytes(frame[_OUTER_FLOW_LABEL:_OUTER_FLOW_LABEL + 2], "big"))
    return frame[_INNER_SA:_INNER_SA + 16], qp, psn, ev


def host_write(frame: bytes) -> tuple[bytes, int, int, int] | None:
    """``(sender address, DestQP, PSN, payload bytes)`` of a data packet the NIC
    delivers to its host, None for anything else."""
    if len(frame) < HOST_BTH + 12 or frame[HOST_BTH] not in _WRITES:
        return None
    qp = int.from_bytes(frame[HOST_BTH + 5:HOST_BTH + 8], "big")
    psn = int.from_bytes(frame[HOST_BTH + 9:HOST_BTH + 12], "big")
    imm = 4 if frame[HOST_BTH] in c.IMM_OPCODES else 0
    return frame[_HOST_SA:_HOST_SA + 16], qp, psn, len(frame) - WRITE_HEADERS - imm
