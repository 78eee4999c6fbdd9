"""The frames of the NIC's host port, packed and parsed with ``struct``.

What the host posts (docs/mrc-nic.md section 3) and what the NIC delivers (section 4) is
``Ethernet / IPv6 / UDP(dport 4791) / BTH / ...`` with, after the BTH, METH + RETH
[+ ImmDt] + payload (writes), MrcSack + MrcSackCongestion, MrcNack or MrcProbe. The
layouts are those of ``protocol/headers.py`` (checked byte for byte against those scapy
layers in ``tests/host/test_host_codec.py``); scapy is far too slow per packet for a
fabric simulator, hence this module. Fields the host never sets (P_Key, reserved bits,
PDS type, congestion-control type) are written as the scapy layers' defaults and ignored
when parsing.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

from protocol.constants import (
    ETHERTYPE_IPV6,
    IMM_OPCODES,
    IP_PROTO_UDP,
    MRC_UDP_PORT,
    NIC_HOP_LIMIT,
    OPCODE_NACK,
    OPCODE_PROBE,
    OPCODE_SACK,
    WRITE_OPCODES,
)

__all__ = [
    "NIC_ENCAP_BYTES",
    "FrameError",
    "Route",
    "MrcFrame",
    "WritePacket",
    "SackPacket",
    "NackPacket",
    "ProbePacket",
    "decode_frame",
    "encode_write",
    "encode_sack",
    "encode_nack",
    "encode_probe",
    "with_retransmit",
]

# Ethernet (14) + IPv6 (40) + UDP (8) + BTH (12). The BTH's reserved byte and DestQP
# share one 32-bit word, as do its flags byte and the PSN.
_PREFIX = struct.Struct("!6s6sHIHBB16s16sHHHHBBHII")
_METH_RETH = struct.Struct("!HHQII")
_IMMDT = struct.Struct("!I")
_SACK = struct.Struct("!HhIHHIBBhQ")
_SACK_CC = struct.Struct("!HHI")
_NACK = struct.Struct("!HBBIHHIBBH")
_PROBE = struct.Struct("!IHHHHHH")

_ETH_BYTES = 14
_IPV6_BYTES = 40
_UDP_BYTES = 8
_BTH_BYTES = 12
PREFIX_BYTES = _PREFIX.size
# The outer IPv6 header the NIC adds to every frame a host posts (mrc-nic.md 3): what a
# frame weighs on the wire beyond its own bytes.
NIC_ENCAP_BYTES = _IPV6_BYTES
# Offset of the BTH flags byte (AckReq, reserved, Retransmit, TSETH present, reserved 4).
_BTH_FLAGS_OFFSET = _ETH_BYTES + _IPV6_BYTES + _UDP_BYTES + 8
_ACK_REQ = 0x80
_RETRANSMIT = 0x20
_PKEY_DEFAULT = 0xFFFF  # scapy BTH default; the NIC ignores P_Key
_IPV6_VERSION = 6 << 28
_U24 = 0xFFFFFF
_FLOW_LABEL_MASK = 0xFFFFF


class FrameError(ValueError):
    """A frame that is not a well-formed MRC frame of the host port."""


@dataclass(frozen=True, slots=True)
class Route:
    """The Ethernet / IPv6 / UDP fields of a frame the host posts, fixed per QP (and per
    EV for probes). Addresses are raw bytes: 6 for MACs, 16 for IPv6."""

    eth_dst: bytes
    eth_src: bytes
    src: bytes
    dst: bytes
    traffic_class: int = 0
    flow_label: int = 0
    hop_limit: int = NIC_HOP_LIMIT
    sport: int = 0


@dataclass(slots=True)
class MrcFrame:
    """The fields every parsed frame has, up to and including the BTH."""

    eth_dst: bytes
    eth_src: bytes
    src: bytes
    dst: bytes
    traffic_class: int
    flow_label: int
    hop_limit: int
    sport: int
    opcode: int
    dest_qp: int
    psn: int
    ack_req: bool
    retransmit: bool


@dataclass(slots=True)
class WritePacket(MrcFrame):
    """A write packet: METH + RETH [+ ImmDt] + payload (``imm`` is None without ImmDt)."""

    req_msg_seq: int
    msg_seq: int
    virtual_addr: int
    rkey: int
    dma_len: int
    imm: int | None
    payload: bytes


@dataclass(slots=True)
class SackPacket(MrcFrame):
    """A SACK and its congestion block (docs/mrc-nic.md 4.3)."""

    mark: int
    pr: int
    ack_psn_offset: int
    echoed_ev: int
    src_conn_id: int
    dst_conn_id: int
    cumulative_psn: int
    mpr: int
    sack_offset: int
    sack_bitmap: int
    echoed_tx_timestamp: int
    ooo_count: int
    rc: int
    rcv_window_penalty: int
    received_bytes: int


@dataclass(slots=True)
class NackPacket(MrcFrame):
    """A NACK: from the NIC (trims, window) or, posted by the host, a loss report."""

    reason: int
    vendor: int
    echoed_ev: int
    src_conn_id: int
    dst_conn_id: int
    nack_psn: int
    tx_timestamp: int


@dataclass(slots=True)
class ProbePacket(MrcFrame):
    """An EV probe (its EV is in ``sport`` and the low 16 bits of ``flow_label``)."""

    vendor: int
    probe_id: int
    src_conn_id: int
    dst_conn_id: int
    tx_timestamp: int
    flags: int


def _prefix(route: Route, body_len: int, opcode: int, dest_qp: int, psn: int,
            ack_req: bool, retransmit: bool) -> bytes:
    udp_len = _UDP_BYTES + body_len
    flags = (_ACK_REQ if ack_req else 0) | (_RETRANSMIT if retransmit else 0)
    return _PREFIX.pack(
        route.eth_dst, route.eth_src, ETHERTYPE_IPV6,
        _IPV6_VERSION | route.traffic_class << 20 | route.flow_label & _FLOW_LABEL_MASK,
        udp_len, IP_PROTO_UDP, route.hop_limit, route.src, route.dst,
        route.sport, MRC_UDP_PORT, udp_len, 0,
        opcode, 0, _PKEY_DEFAULT, dest_qp & _U24, flags << 24 | psn & _U24)


def encode_write(route: Route, *, opcode: int, dest_qp: int, psn: int, msg_seq: int,
                 virtual_addr: int, rkey: int, payload: bytes, imm: int | None = None,
                 ack_req: bool = False, retransmit: bool = False,
                 req_msg_seq: int = 0) -> bytes:
    """A write packet; RETH ``dma_len`` is the payload's length (docs/mrc-nic.md 7)."""
    meth_reth = _METH_RETH.pack(req_msg_seq, msg_seq, virtual_addr, rkey, len(payload))
    tail = _IMMDT.pack(imm) if opcode in IMM_OPCODES else b""
    body_len = _BTH_BYTES + len(meth_reth) + len(tail) + len(payload)
    return b"".join((_prefix(route, body_len, opcode, dest_qp, psn, ack_req, retransmit),
                     meth_reth, tail, payload))


def encode_sack(route: Route, *, dest_qp: int, psn: int, cumulative_psn: int,
                sack_bitmap: int = 0, sack_offset: int = 1, mark: int = 0, pr: int = 0,
                ack_psn_offset: int = 0, echoed_ev: int = 0, src_conn_id: int = 0,
                dst_conn_id: int = 0, mpr: int = 0, received_bytes: int = 0,
                echoed_tx_timestamp: int = 0, ooo_count: int = 0, rc: int = 0,
                rcv_window_penalty: int = 0) -> bytes:
    """A SACK frame as the NIC delivers it (docs/mrc-nic.md 4.3); for fake NICs and
    simulators, the host itself never sends one."""
    sack = _SACK.pack(mark << 5 | pr, ack_psn_offset, echoed_ev, src_conn_id, dst_conn_id,
                      cumulative_psn & _U24, 0, mpr, sack_offset, sack_bitmap)
    cc = _SACK_CC.pack(echoed_tx_timestamp, ooo_count,
                       rc << 31 | rcv_window_penalty << 24 | received_bytes & _U24)
    body_len = _BTH_BYTES + len(sack) + len(cc)
    return b"".join((_prefix(route, body_len, OPCODE_SACK, dest_qp, psn, False, False),
                     sack, cc))


def encode_nack(route: Route, *, dest_qp: int, psn: int, reason: int, nack_psn: int,
                echoed_ev: int = 0, src_conn_id: int = 0, dst_conn_id: int = 0,
                vendor: int = 0, tx_timestamp: int = 0) -> bytes:
    """A NACK frame: the host's loss report (reason NACK_HOST_LOSS_REPORT,
    docs/mrc-nic.md 3), or a NIC's NACK in a fake NIC."""
    nack = _NACK.pack(0, reason, vendor, echoed_ev, src_conn_id, dst_conn_id,
                      nack_psn & _U24, 0, 0, tx_timestamp)
    body_len = _BTH_BYTES + len(nack)
    return _prefix(route, body_len, OPCODE_NACK, dest_qp, psn, False, False) + nack


def encode_probe(route: Route, *, dest_qp: int, psn: int, probe_id: int,
                 src_conn_id: int = 0, dst_conn_id: int = 0, vendor: int = 0,
                 tx_timestamp: int = 0, flags: int = 0) -> bytes:
    """A probe; the EV travels in ``route.sport`` and ``route.flow_label``."""
    probe = _PROBE.pack(vendor, probe_id, 0, src_conn_id, dst_conn_id, tx_timestamp, flags)
    body_len = _BTH_BYTES + len(probe)
    return _prefix(route, body_len, OPCODE_PROBE, dest_qp, psn, False, False) + probe


def with_retransmit(frame: bytes) -> bytes:
    """``frame`` (one this module encoded) with BTH Retransmit set: the NIC then keeps
    the host's PSN instead of assigning the next one (docs/mrc-nic.md 3, step 1)."""
    copy = bytearray(frame)
    copy[_BTH_FLAGS_OFFSET] |= _RETRANSMIT
    return bytes(copy)


def decode_frame(frame: bytes) -> WritePacket | SackPacket | NackPacket | ProbePacket:
    """Parse a frame of the host port; FrameError if it is not a well-formed MRC frame."""
    if len(frame) < PREFIX_BYTES:
        raise FrameError(f"{len(frame)} bytes: shorter than Ethernet/IPv6/UDP/BTH")
    (eth_dst, eth_src, ethertype, v6_word, plen, next_hdr, hop_limit, src, dst,
     sport, dport, _udp_len, _udp_sum, opcode, _bth1, _pkey, qp_word,
     flags_psn) = _PREFIX.unpack_from(frame)
    if ethertype != ETHERTYPE_IPV6 or v6_word >> 28 != 6:
        raise FrameError("not IPv6")
    if next_hdr != IP_PROTO_UDP or dport != MRC_UDP_PORT:
        raise FrameError("not MRC (UDP port 4791)")
    end = _ETH_BYTES + _IPV6_BYTES + plen
    if end > len(frame) or end < PREFIX_BYTES:
        raise FrameError(f"IPv6 payload length {plen} does not match the frame")
    flags = flags_psn >> 24
    common = (eth_dst, eth_src, src, dst, v6_word >> 20 & 0xFF, v6_word & _FLOW_LABEL_MASK,
              hop_limit, sport, opcode, qp_word & _U24, flags_psn & _U24,
              bool(flags & _ACK_REQ), bool(flags & _RETRANSMIT))
    at = PREFIX_BYTES
    if opcode in WRITE_OPCODES:
        return _decode_write(frame, at, end, common)
    if opcode == OPCODE_SACK:
        if end - at < _SACK.size + _SACK_CC.size:
            raise FrameError("truncated SACK")
        (first, ack_off, ev, src_conn, dst_conn, cum, _cc, mpr, sack_off,
         bitmap) = _SACK.unpack_from(frame, at)
        echo_ts, ooo, cc_word = _SACK_CC.unpack_from(frame, at + _SACK.size)
        return SackPacket(*common, first >> 5 & 0x3, first & 1, ack_off, ev, src_conn,
                          dst_conn, cum & _U24, mpr, sack_off, bitmap, echo_ts,
                          ooo & 0x7FFF, cc_word >> 31, cc_word >> 24 & 0x7F,
                          cc_word & _U24)
    if opcode == OPCODE_NACK:
        if end - at < _NACK.size:
            raise FrameError("truncated NACK")
        (_first, reason, vendor, ev, src_conn, dst_conn, nack_psn, _cc, _res,
         tx_ts) = _NACK.unpack_from(frame, at)
        return NackPacket(*common, reason, vendor, ev, src_conn, dst_conn,
                          nack_psn & _U24, tx_ts)
    if opcode == OPCODE_PROBE:
        if end - at < _PROBE.size:
            raise FrameError("truncated PROBE")
        (first, probe_id, _res, src_conn, dst_conn, tx_ts,
         probe_flags) = _PROBE.unpack_from(frame, at)
        return ProbePacket(*common, first & 0xFF, probe_id, src_conn, dst_conn, tx_ts,
                           probe_flags)
    raise FrameError(f"opcode {opcode:#x} is not one the host port carries")


def _decode_write(frame: bytes, at: int, end: int, common: tuple) -> WritePacket:
    if end - at < _METH_RETH.size:
        raise FrameError("truncated METH/RETH")
    req_msg_seq, msg_seq, addr, rkey, dma_len = _METH_RETH.unpack_from(frame, at)
    at += _METH_RETH.size
    imm = None
    if common[8] in IMM_OPCODES:
        if end - at < _IMMDT.size:
            raise FrameError("truncated ImmDt")
        (imm,) = _IMMDT.unpack_from(frame, at)
        at += _IMMDT.size
    if end - at != dma_len:
        raise FrameError(f"payload of {end - at} bytes but RETH DMA length {dma_len}")
    return WritePacket(*common, req_msg_seq, msg_seq, addr, rkey, dma_len, imm,
                       bytes(frame[at:end]))
