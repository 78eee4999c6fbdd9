"""Packets and the test topology of the ``srv6_switch.p4`` PTF suite (no tests here).

Every packet is built with scapy from ``docs/mrc-protocol.md`` section 3 and the RFCs
(8200 for IPv6, 8754 for the SRH, 9800 for uSID carriers), never from what a target
printed. The expected form of a packet is derived from the packet sent by the rule the
test states (shift, End, hop-limit decrement, trim ...), with every new value written
out in the test.

The switch under test is a T0 of plane 0 whose own uSID is 0x0200 in the block
``fcbb:bb00::/32``; ports 1 and 2 are uplinks to the T1s 0x1000 and 0x1001, ports 3 and
4 downlinks toward the NICs 0x0201 and 0x0202 (the index is a PTF port index, see
``P4RuntimeTest.swports``).
"""

from __future__ import annotations

from typing import Any

from scapy.layers.inet import UDP
from scapy.layers.inet6 import IPv6
from scapy.layers.l2 import Ether
from scapy.packet import Packet, Raw

from protocol.constants import (
    DSCP_CONTROL,
    DSCP_TRIMMABLE,
    ECN_ECT0,
    MRC_UDP_PORT,
    OPCODE_NACK,
    OPCODE_PROBE,
    OPCODE_SACK,
    OPCODE_WRITE_ONLY,
)
from protocol.headers import (
    BTH,
    METH,
    RETH,
    SRH,
    ImmDt,
    MrcNack,
    MrcProbe,
    MrcSack,
    MrcSackCongestion,
    dscp_ecn_tc,
    usid_carrier,
)

# ---- topology ----------------------------------------------------------------------------
BLOCK = "fcbb:bb00::/32"
MY_USID = 0x0200            # uN, end of carrier -> CPU
MY_USID_NO_CPU = 0x02FF     # uN, end of carrier -> drop
T1_A, T1_B = 0x1000, 0x1001  # next uSIDs routed to ports 1 and 2
DOWN_A, DOWN_B = 0x0201, 0x0202  # downlinks toward the NICs, ports 3 and 4

SWITCH_MAC = "00:00:00:00:02:00"   # the switch's own MAC: senders address frames to it
SENDER_MAC = "00:00:00:00:0a:01"
# Next-hop MACs by port index (1, 2: T1s; 3, 4: NICs).
NEXT_HOP_MAC = {1: "00:00:00:00:0b:01", 2: "00:00:00:00:0b:02",
                3: "00:00:00:00:0c:03", 4: "00:00:00:00:0c:04"}

NIC_A = "2001:db8:a::1"   # the sending NIC
NIC_B = "2001:db8:b::1"   # the receiving NIC (inner destination)
EV = 0x1234BEEF           # entropy value: UDP source port EV[31:16], flow label EV[15:0]

# Header sizes in bytes, from docs/mrc-protocol.md section 3 and RFC 8200 / 8754 / 768.
IPV6_BYTES, SRH_FIXED_BYTES, SEGMENT_BYTES, UDP_BYTES = 40, 8, 16, 8
TRANSPORT_BYTES: dict[type[Packet], int] = {
    BTH: 12, METH: 4, RETH: 16, ImmDt: 4, MrcSack: 28, MrcSackCongestion: 8,
    MrcNack: 20, MrcProbe: 16,
}


def carrier(*usids: int) -> str:
    """A uSID carrier of BLOCK (F3216)."""
    return usid_carrier(BLOCK, list(usids))


def payload_bytes(n: int) -> bytes:
    return bytes(i & 0xFF for i in range(n))


# ---- transport headers ---------------------------------------------------------------
def write_headers(opcode: int = OPCODE_WRITE_ONLY, payload: int = 64, psn: int = 0x107,
                  imm: int | None = None) -> Packet:
    """BTH | METH | RETH [| ImmDt] | payload of an RDMA write (RETH in every packet)."""
    hdrs = (BTH(opcode=opcode, dest_qp=0x42, psn=psn) / METH(req_msg_seq=3, msg_seq=3)
            / RETH(virtual_addr=0x7F00000010000000, rkey=0xABCD, dma_len=payload))
    if imm is not None:
        hdrs = hdrs / ImmDt(imm_data=imm)
    if payload:
        hdrs = hdrs / Raw(payload_bytes(payload))
    return hdrs


def sack_headers() -> Packet:
    return (BTH(opcode=OPCODE_SACK, dest_qp=0x42)
            / MrcSack(mark=2, echoed_ev=EV, src_conn_id=0, dst_conn_id=0x64,
                      cumulative_psn=0x107, mpr=4, sack_bitmap=0xFF)
            / MrcSackCongestion(received_bytes=0x1000))


def nack_headers() -> Packet:
    return (BTH(opcode=OPCODE_NACK, dest_qp=0x42)
            / MrcNack(reason=0x01, echoed_ev=EV, dst_conn_id=0x64, nack_psn=0x107))


def probe_headers() -> Packet:
    return BTH(opcode=OPCODE_PROBE, dest_qp=0x42) / MrcProbe(probe_id=9, src_conn_id=1,
                                                             dst_conn_id=2, tx_timestamp=77)


# ---- whole frames ------------------------------------------------------------------------
def mrc_packet(outer_dst: str, transport: Packet | None = None, *,
               dscp: int = DSCP_TRIMMABLE, ecn: int = ECN_ECT0, hlim: int = 64,
               srh: Packet | None = None, src: str = NIC_A, inner_dst: str = NIC_B,
               eth_dst: str = SWITCH_MAC, eth_src: str = SENDER_MAC) -> Packet:
    """An MRC packet as a NIC sends it (section 3): Ether | outer IPv6 (DA = carrier)
    [| SRH] | inner IPv6 | UDP 4791 | transport headers (default: a 64-byte write).

    The Traffic Class of both IPv6 headers carries ``dscp``/``ecn``; the flow labels
    carry EV[15:0] and the UDP source port EV[31:16]. Lengths and the UDP checksum are
    left to scapy (computed from the content)."""
    if transport is None:
        transport = write_headers()
    tc = dscp_ecn_tc(dscp, ecn)
    outer = IPv6(src=src, dst=outer_dst, tc=tc, fl=EV & 0xFFFF, hlim=hlim)
    inner = (IPv6(src=src, dst=inner_dst, tc=tc, fl=EV & 0xFFFF, hlim=64)
             / UDP(sport=EV >> 16, dport=MRC_UDP_PORT) / transport)
    pkt = Ether(dst=eth_dst, src=eth_src) / outer
    if srh is not None:
        pkt = pkt / srh
    return pkt / inner


def srh(segments: list[str], segleft: int, **fields: Any) -> Packet:
    """An SRH followed by an inner IPv6 header (Next Header 41). ``segments`` is the
    Segment List in wire order: ``segments[0]`` is the *last* segment (RFC 8754 2)."""
    return SRH(nh=41, addresses=segments, segleft=segleft, **fields)


def forwarded(pkt: Packet, port_index: int, *, dst: str | None = None,
              hlim: int | None = None, segleft: int | None = None,
              tc: int | None = None) -> Packet:
    """``pkt`` as the switch sends it toward ``port_index``'s next hop: destination MAC
    = that next hop, source MAC = the switch's own (the frame's old destination), and
    the given new outer DA / hop limit / Segments Left / outer Traffic Class. Nothing
    else changes (the inner packet in particular)."""
    out = pkt.copy()
    out[Ether].src = pkt[Ether].dst
    out[Ether].dst = NEXT_HOP_MAC[port_index]
    outer = out[IPv6]  # the first IPv6 header is the outer one
    if dst is not None:
        outer.dst = dst
    if hlim is not None:
        outer.hlim = hlim
    if tc is not None:
        outer.tc = tc
    if segleft is not None:
        out[SRH].segleft = segleft
    return out


def transport_only(pkt: Packet) -> tuple[Packet, int]:
    """The MRC transport headers of ``pkt`` without the payload, and their size in bytes
    (summed from the header sizes of section 3, not measured)."""
    hdrs = pkt[BTH].copy()
    size = 0
    layer: Packet | None = hdrs
    while layer is not None and type(layer) in TRANSPORT_BYTES:
        size += TRANSPORT_BYTES[type(layer)]
        nxt = layer.payload
        if not isinstance(nxt, Packet) or type(nxt) not in TRANSPORT_BYTES:
            layer.remove_payload()
            break
        layer = nxt
    assert len(bytes(hdrs)) == size, (len(bytes(hdrs)), size)
    return hdrs, size


def trimmed(pkt: Packet, port_index: int, dscp: int, *, dst: str) -> Packet:
    """``pkt`` after a trim toward ``port_index`` (sections 3 and 6): the payload after
    the MRC transport headers is cut; outer DSCP = ``dscp`` (ECN kept), outer hop limit
    - 1, outer DA = ``dst``; UDP length, inner and outer payload lengths cover what is
    left and are written out here; UDP checksum 0 (RoCEv2 practice). The inner IPv6
    header, the SRH and every transport header are kept as they were."""
    outer_in = pkt[IPv6]
    inner_in = outer_in[IPv6:2]
    hdrs, transport_len = transport_only(pkt)
    udp_len = UDP_BYTES + transport_len
    srh_len = 0
    out = Ether(dst=NEXT_HOP_MAC[port_index], src=pkt[Ether].dst)
    outer = IPv6(version=6, tc=dscp_ecn_tc(dscp, outer_in.tc & 3), fl=outer_in.fl,
                 nh=outer_in.nh, hlim=outer_in.hlim - 1, src=outer_in.src, dst=dst)
    if SRH in pkt:
        s = pkt[SRH]
        srh_len = SRH_FIXED_BYTES + SEGMENT_BYTES * len(s.addresses)
        srh_copy = SRH(nh=s.nh, len=s.len, type=s.type, segleft=s.segleft,
                       lastentry=s.lastentry, tag=s.tag, addresses=list(s.addresses))
    outer.plen = srh_len + IPV6_BYTES + udp_len
    inner = IPv6(version=6, tc=inner_in.tc, fl=inner_in.fl, plen=udp_len, nh=inner_in.nh,
                 hlim=inner_in.hlim, src=inner_in.src, dst=inner_in.dst)
    udp = UDP(sport=pkt[UDP].sport, dport=pkt[UDP].dport, len=udp_len, chksum=0)
    out = out / outer
    if srh_len:
        out = out / srh_copy
    return out / inner / udp / hdrs


def control_packet(outer_dst: str, transport: Packet, *, ecn: int = ECN_ECT0) -> Packet:
    """A control packet (SACK/NACK) of DSCP 46, from the receiving NIC back to the
    sender."""
    return mrc_packet(outer_dst, transport, dscp=DSCP_CONTROL, ecn=ecn, src=NIC_B,
                      inner_dst=NIC_A)
