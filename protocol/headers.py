"""Scapy layers for MRC: the Python twin of ``p4src/include/headers.p4``.

Field names equal the P4 field names; ``tests/test_protocol_headers.py`` checks the two
files field by field (names, widths, signedness) and checks the layer lengths against the
``*_BYTES`` constants of ``headers.p4``. Ethernet, IPv6, UDP and the SRH are scapy's own
layers (``Ether``, ``IPv6``, ``UDP``, ``IPv6ExtHdrSegmentRouting``).

Importing this module binds the layers: UDP destination port 4791 -> ``BTH``, then by
opcode ``METH``/``RETH``(/``ImmDt``), ``MrcSack``/``MrcSackCongestion``, ``MrcNack`` or
``MrcProbe``; ``CpuPacketOut``/``CpuPacketIn`` are followed by ``Ether``.

A data packet as it leaves a NIC::

    Ether() / IPv6(src=nic, dst=usid_carrier(block, [t0, t1, t0d, down]), tc=dscp << 2)
            / IPv6(src=nic, dst=peer) / UDP(sport=ev >> 16)
            / BTH(opcode=OPCODE_WRITE_ONLY, psn=7) / METH() / RETH(dma_len=n) / payload
"""

from __future__ import annotations

from scapy.fields import (
    BitField,
    ByteField,
    IntField,
    ShortField,
    SignedShortField,
    ThreeBytesField,
    XByteField,
    XIntField,
    XLongField,
    XShortField,
)
from scapy.layers.inet import UDP
from scapy.layers.inet6 import IPv6ExtHdrSegmentRouting
from scapy.layers.l2 import Ether
from scapy.packet import Packet, Raw, bind_layers

from . import constants as c
from .usid import carrier_usids, usid_carrier

__all__ = [
    "BTH", "METH", "RETH", "ImmDt", "MrcSack", "MrcSackCongestion", "MrcNack", "MrcProbe",
    "CpuPacketOut", "CpuPacketIn", "SRH", "usid_carrier", "carrier_usids", "dscp_ecn_tc",
]

# scapy's SRH layer, under the name headers.p4 uses.
SRH = IPv6ExtHdrSegmentRouting


class CpuPacketOut(Packet):
    """``packet_out_t``: prepended by the controller to frames sent to the CPU port."""

    name = "CPU packet-out"
    fields_desc = [ShortField("egress_port", 0)]


class CpuPacketIn(Packet):
    """``packet_in_t``: prepended by the switch to frames it sends to the CPU port."""

    name = "CPU packet-in"
    fields_desc = [ShortField("ingress_port", 0), ByteField("reason", 0)]


class BTH(Packet):
    """InfiniBand base transport header as MRC uses it (12 bytes)."""

    name = "MRC BTH"
    fields_desc = [
        XByteField("opcode", c.OPCODE_WRITE_ONLY),
        BitField("solicited_event", 0, 1),
        BitField("mig_req", 0, 1),
        BitField("pad_count", 0, 2),
        BitField("tver", 0, 4),
        XShortField("pkey", 0xFFFF),
        ByteField("reserved0", 0),
        ThreeBytesField("dest_qp", 0),
        BitField("ack_req", 0, 1),
        BitField("reserved1", 0, 1),
        BitField("retransmit", 0, 1),
        BitField("tseth_present", 0, 1),
        BitField("reserved2", 0, 4),
        ThreeBytesField("psn", 0),
    ]


class METH(Packet):
    """Message extension header of every write packet (4 bytes)."""

    name = "MRC METH"
    fields_desc = [ShortField("req_msg_seq", 0), ShortField("msg_seq", 0)]


class RETH(Packet):
    """RDMA extended transport header, in every data packet (16 bytes)."""

    name = "MRC RETH"
    fields_desc = [
        XLongField("virtual_addr", 0),
        XIntField("rkey", 0),
        IntField("dma_len", 0),
    ]

    def guess_payload_class(self, payload: bytes) -> type[Packet]:
        # ImmDt follows only on the *_IMM opcodes, which the BTH below us carries.
        bth = self.underlayer
        while bth is not None and not isinstance(bth, BTH):
            bth = bth.underlayer
        if bth is not None and bth.opcode in c.IMM_OPCODES:
            return ImmDt
        return Raw


class ImmDt(Packet):
    """Immediate data of WRITE_LAST_IMM / WRITE_ONLY_IMM (4 bytes)."""

    name = "MRC ImmDt"
    fields_desc = [XIntField("imm_data", 0)]


class MrcSack(Packet):
    """Selective ACK after the BTH (28 bytes); ``MrcSackCongestion`` follows it."""

    name = "MRC SACK"
    fields_desc = [
        BitField("pds_type", 0, 4),
        BitField("next_hdr", 0, 5),
        BitField("mark", c.SACK_MARK_NONE, 2),
        BitField("reserved0", 0, 4),
        BitField("pr", 0, 1),
        SignedShortField("ack_psn_offset", 0),
        XIntField("echoed_ev", 0),
        ShortField("src_conn_id", 0),
        ShortField("dst_conn_id", 0),
        ByteField("reserved1", 0),
        ThreeBytesField("cumulative_psn", 0),
        BitField("cc_type", 0, 4),
        BitField("cc_flags", 0, 4),
        ByteField("mpr", 0),
        SignedShortField("sack_offset", 0),
        XLongField("sack_bitmap", 0),
    ]


class MrcSackCongestion(Packet):
    """Congestion state that follows every SACK (8 bytes)."""

    name = "MRC SACK congestion state"
    fields_desc = [
        ShortField("echoed_tx_timestamp", 0),
        BitField("reserved0", 0, 1),
        BitField("ooo_count", 0, 15),
        BitField("rc", 0, 1),
        BitField("rcv_window_penalty", 0, 7),
        ThreeBytesField("received_bytes", 0),
    ]


class MrcNack(Packet):
    """Negative ACK after the BTH (20 bytes)."""

    name = "MRC NACK"
    fields_desc = [
        BitField("pds_type", 0, 4),
        BitField("next_hdr", 0, 5),
        BitField("reserved0", 0, 7),
        XByteField("reason", c.NACK_TRIMMED),
        ByteField("vendor", 0),
        XIntField("echoed_ev", 0),
        ShortField("src_conn_id", 0),
        ShortField("dst_conn_id", 0),
        ByteField("reserved1", 0),
        ThreeBytesField("nack_psn", 0),
        BitField("cc_type", 0, 4),
        BitField("cc_flags", 0, 4),
        ByteField("reserved2", 0),
        ShortField("tx_timestamp", 0),
    ]


class MrcProbe(Packet):
    """EV probe after the BTH (16 bytes); widths partly [ours], see headers.p4."""

    name = "MRC PROBE"
    fields_desc = [
        BitField("pds_type", 0, 4),
        BitField("next_hdr", 0, 5),
        BitField("reserved0", 0, 15),
        ByteField("vendor", 0),
        ShortField("probe_id", 0),
        ShortField("reserved1", 0),
        ShortField("src_conn_id", 0),
        ShortField("dst_conn_id", 0),
        ShortField("tx_timestamp", 0),
        XShortField("flags", 0),
    ]


bind_layers(UDP, BTH, dport=c.MRC_UDP_PORT)
for _opcode in sorted(c.WRITE_OPCODES):
    bind_layers(BTH, METH, opcode=_opcode)
bind_layers(METH, RETH)
bind_layers(BTH, MrcSack, opcode=c.OPCODE_SACK)
bind_layers(MrcSack, MrcSackCongestion)
bind_layers(BTH, MrcNack, opcode=c.OPCODE_NACK)
bind_layers(BTH, MrcProbe, opcode=c.OPCODE_PROBE)
bind_layers(CpuPacketOut, Ether)
bind_layers(CpuPacketIn, Ether)


def dscp_ecn_tc(dscp: int, ecn: int = c.ECN_NOT_ECT) -> int:
    """The IPv6 Traffic Class byte (scapy's ``tc``) for a DSCP and an ECN codepoint."""
    if not 0 <= dscp < 64 or not 0 <= ecn < 4:
        raise ValueError(f"DSCP {dscp} / ECN {ecn} out of range")
    return dscp << 2 | ecn


