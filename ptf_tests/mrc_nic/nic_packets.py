"""Packets and the test topology of the ``mrc_nic.p4`` PTF suite (no tests here).

Every expected packet is built with the scapy layers of ``protocol/`` from
``docs/mrc-nic.md`` (section numbers below) and ``docs/mrc-protocol.md`` section 3, from
the packet the test sent and the values the spec fixes -- never from what a target
printed.

Topology: the NIC under test ("this NIC", address NIC_ADDR) talks to one peer NIC
(PEER_ADDR). Port NIC_HOST_PORT (0) is the host, plane 0 is on port 1 and plane 1 on
port 2 (``plane_port``), the controller on CPU port 255. uSIDs carry their plane in
their top 3 bits (USID_PLANE_SHIFT): plane 0 uses 0x0000-0x1FFF, plane 1 0x2000-0x3FFF.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from scapy.layers.inet import UDP
from scapy.layers.inet6 import IPv6
from scapy.layers.l2 import Ether
from scapy.packet import Packet, Raw

from protocol.constants import (
    DSCP_CONTROL,
    DSCP_TRIMMABLE,
    ECN_ECT0,
    ECN_NOT_ECT,
    IP_PROTO_IPV6,
    IP_PROTO_UDP,
    MRC_UDP_PORT,
    NACK_HOST_LOSS_REPORT,
    NIC_EV_BACKUP_BASE,
    NIC_HOP_LIMIT,
    NIC_HOST_PORT,
    NIC_RX_MPR,
    OPCODE_NACK,
    OPCODE_PROBE,
    OPCODE_SACK,
    OPCODE_WRITE_ONLY,
    SACK_MARK_NONE,
    USID_PLANE_SHIFT,
    ev_plane,
    ev_value,
)
from protocol.headers import (
    BTH,
    METH,
    RETH,
    ImmDt,
    MrcNack,
    MrcProbe,
    MrcSack,
    MrcSackCongestion,
    dscp_ecn_tc,
    usid_carrier,
)


def _parse_mrc_with_our_layers() -> None:
    """PTF loads scapy's RoCEv2 contrib, which binds UDP port 4791 to *its* BTH ahead of
    protocol.headers' BTH (the first binding wins when scapy parses bytes). This suite
    parses MRC frames with the project's layers, so the contrib binding is dropped."""
    UDP.payload_guess = [(fields, cls) for fields, cls in UDP.payload_guess
                         if cls is BTH or fields.get("dport") != MRC_UDP_PORT]


_parse_mrc_with_our_layers()

# ---- topology ----------------------------------------------------------------------------
HOST_PORT = NIC_HOST_PORT
PLANES = (0, 1)
PLANE_PORT = {0: 1, 1: 2}
CPU_PORT = 255

NIC_ADDR = "2001:db8:a::1"    # this NIC (nic_address)
PEER_ADDR = "2001:db8:b::1"   # the peer NIC
OTHER_ADDR = "2001:db8:c::1"  # an address that is not this NIC's

HOST_MAC = "00:00:00:00:00:a0"        # the host's frames (the NIC does not check them)
HOST_SIDE_MAC = "00:00:00:00:00:a1"
NIC_MAC = {0: "00:00:00:0a:00:01", 1: "00:00:00:0a:00:02"}        # plane_port.nic_mac
NEXT_HOP_MAC = {0: "00:00:00:0b:00:01", 1: "00:00:00:0b:00:02"}   # its T0 neighbour

BLOCK = 0xFCBBBB00                      # plane_port.usid_block
SRC_T0 = {0: 0x0100, 1: 0x2100}         # this NIC's T0 uSID per plane
DST_T0 = {0: 0x0200, 1: 0x2200}         # the peer's T0 uSID per plane (qp_plane)
DOWN = {0: 0x0201, 1: 0x2201}           # the peer's downlink uSID per plane (qp_plane)
MY_DOWN = {0: 0x0101, 1: 0x2101}        # our own downlink: what is left of a carrier here
T1_BASE = {0: 0x1000, 1: 0x3000}        # T1 uSIDs of the slots' own EVs, per plane
BACKUP_T1_BASE = {0: 0x1800, 1: 0x3800}  # T1 uSIDs of backup EVs, per plane

for _p in PLANES:  # the plan above is only valid if every uSID names its plane
    assert all(u >> USID_PLANE_SHIFT == _p for u in (SRC_T0[_p], DST_T0[_p], DOWN[_p],
                                                      MY_DOWN[_p], T1_BASE[_p],
                                                      BACKUP_T1_BASE[_p]))

# EVs of the peer's packets toward us (the peer's own EV ids; any 9-bit id): planes 0,
# 1, 0, 1.
PEER_EVS = (ev_value(0x1005, 5), ev_value(0x3006, 6), ev_value(0x1104, 0x104),
            ev_value(0x3105, 0x1FF))

PAYLOAD = 64
# Inner IPv6 payload of a write with a PAYLOAD-byte payload: UDP 8 + BTH 12 + METH 4 +
# RETH 16 + payload (docs/mrc-protocol.md 3); what received_bytes adds up (4.3).
WRITE_INNER_PLEN = 8 + 12 + 4 + 16 + PAYLOAD
# SACK/NACK lengths after the payload cut (4.3): UDP + BTH + SACK 28 + congestion 8, or
# UDP + BTH + NACK 20.
SACK_UDP_LEN = 8 + 12 + 28 + 8
NACK_UDP_LEN = 8 + 12 + 20
IPV6_BYTES = 40


# ---- queue pairs -------------------------------------------------------------------------
@dataclass
class Qp:
    """One local QP as the controller configures it (docs/mrc-nic.md section 2).

    Slot s holds EV id s, whose path is on plane ``s % 2`` through T1 uSID
    ``T1_BASE[plane] + s``; backup i of plane p is id ``NIC_EV_BACKUP_BASE + p *
    backups_per_plane + i`` through ``BACKUP_T1_BASE[p] + i`` (only the first
    ``configured_backups`` of each plane get a ``qp_ev`` entry)."""

    qp_index: int
    local_qpn: int
    remote_qpn: int
    ev_slots: int = 8
    ev_mask: int = 7
    min_active: int = 1
    backups_per_plane: int = 0
    configured_backups: int = 0
    sack_every: int = 1
    probe_threshold: int = 2
    t1: dict[int, int] = field(default_factory=dict)  # EV id -> T1 uSID (qp_ev)

    def __post_init__(self) -> None:
        for slot in range(self.ev_slots):
            self.t1[slot] = T1_BASE[slot % 2] + slot
        for plane in PLANES:
            for i in range(self.configured_backups):
                self.t1[self.backup_id(plane, i)] = BACKUP_T1_BASE[plane] + i

    def backup_id(self, plane: int, i: int) -> int:
        return NIC_EV_BACKUP_BASE + plane * self.backups_per_plane + i

    def ev(self, ev_id: int) -> int:
        """The EV of an id: ``t1_usid << 16 | ev_id`` (section 2, EV and carrier)."""
        return ev_value(self.t1[ev_id], ev_id)

    def slot_evs(self) -> list[int]:
        """The EVs of the slots as configured (slot s holds id s)."""
        return [self.ev(s) for s in range(self.ev_slots)]

    @property
    def local_conn_id(self) -> int:
        return self.local_qpn & 0xFFFF

    @property
    def remote_conn_id(self) -> int:
        return self.remote_qpn & 0xFFFF


def plane_of(ev: int) -> int:
    return ev_plane(ev)


def carrier(ev: int) -> str:
    """The carrier of a packet on EV ``ev`` to the peer (section 2): block :
    src_t0(p) : EV[31:16] : dst_t0(qp, p) : down(qp, p) : 0 : 0, p = EV[31:29]."""
    p = plane_of(ev)
    return usid_carrier(BLOCK, [SRC_T0[p], ev >> 16, DST_T0[p], DOWN[p]])


def ev_of(frame: Packet) -> int:
    """The EV of an encapsulated MRC frame: UDP sport << 16 | outer flow label[15:0]
    (section 4)."""
    return frame[UDP].sport << 16 | (frame[IPv6].fl & 0xFFFF)


def payload_bytes(n: int, seed: int = 0) -> bytes:
    return bytes((seed + i) & 0xFF for i in range(n))


# ---- what the host posts (section 3) -----------------------------------------------------
def host_frame(qp: Qp, transport: Packet, *, sport: int = 0xC000, fl: int = 0,
               dst: str = PEER_ADDR, src: str = NIC_ADDR,
               dport: int = MRC_UDP_PORT) -> Packet:
    """Ethernet / IPv6 (SA = this NIC, DA = the peer, NH 17) / UDP / ``transport``, as
    the host posts it. Traffic class 0 and flow label ``fl``: the NIC writes them."""
    return (Ether(dst=HOST_SIDE_MAC, src=HOST_MAC)
            / IPv6(src=src, dst=dst, nh=IP_PROTO_UDP, tc=0, fl=fl, hlim=64)
            / UDP(sport=sport, dport=dport) / transport)


def write_transport(qp: Qp, *, psn: int = 0, opcode: int = OPCODE_WRITE_ONLY,
                    payload: int = PAYLOAD, retransmit: int = 0, ack_req: int = 0,
                    msg_seq: int = 1, seed: int = 0, dest_qp: int | None = None,
                    imm: int | None = None) -> Packet:
    """BTH (DestQP = the *local* QPN, as the host posts it) / METH / RETH [/ ImmDt] /
    payload."""
    hdrs = (BTH(opcode=opcode, dest_qp=qp.local_qpn if dest_qp is None else dest_qp,
                psn=psn, retransmit=retransmit, ack_req=ack_req)
            / METH(req_msg_seq=msg_seq, msg_seq=msg_seq)
            / RETH(virtual_addr=0x7F0000000000 + seed * payload, rkey=0x1234,
                   dma_len=payload))
    if imm is not None:
        hdrs = hdrs / ImmDt(imm_data=imm)
    return hdrs / Raw(payload_bytes(payload, seed))


def host_write(qp: Qp, **kw: int | None) -> Packet:
    """A write as the host posts it (section 3); the UDP checksum is computed by scapy
    (non-zero), so the NIC's checksum 0 is visible."""
    return host_frame(qp, write_transport(qp, **kw))


def host_probe(qp: Qp, ev: int, *, psn: int = 0x00ABCD, probe_id: int = 7) -> Packet:
    """A PROBE the host posts on EV ``ev``: UDP sport = EV[31:16], flow label =
    EV[15:0] (section 3, Probe)."""
    transport = (BTH(opcode=OPCODE_PROBE, dest_qp=qp.local_qpn, psn=psn)
                 / MrcProbe(probe_id=probe_id, src_conn_id=qp.local_conn_id,
                            dst_conn_id=qp.remote_conn_id, tx_timestamp=0x77))
    return host_frame(qp, transport, sport=ev >> 16, fl=ev & 0xFFFF)


def host_loss_report(qp: Qp, lost_psn: int) -> Packet:
    """The host's loss report: NACK reason NACK_HOST_LOSS_REPORT, nack_psn = the lost PSN
    (section 3)."""
    transport = (BTH(opcode=OPCODE_NACK, dest_qp=qp.local_qpn, psn=lost_psn)
                 / MrcNack(reason=NACK_HOST_LOSS_REPORT, src_conn_id=qp.local_conn_id,
                           dst_conn_id=qp.remote_conn_id, nack_psn=lost_psn))
    return host_frame(qp, transport)


# ---- what the NIC sends on a plane (sections 3 and 4.3) ------------------------------------
def sent(posted: Packet, qp: Qp, ev: int, *, psn: int | None = None,
         dscp: int = DSCP_TRIMMABLE) -> Packet:
    """``posted`` as the NIC sends it on EV ``ev`` (section 3, step 4): outer IPv6 (SA =
    inner SA, DA = carrier, NH 41, hop limit 64, ``dscp``, ECT(0), flow label EV[15:0]);
    inner IPv6 with the same DSCP/ECN and flow label, otherwise as posted; UDP sport
    EV[31:16], checksum 0; BTH DestQP = remote QPN and PSN ``psn`` (None: as posted);
    Ethernet nic_mac -> next_hop_mac of the plane."""
    p = plane_of(ev)
    inner = IPv6(bytes(posted[IPv6]))  # every length field concrete, as posted
    tc = dscp_ecn_tc(dscp, ECN_ECT0)
    inner.tc = tc
    inner.fl = ev & 0xFFFF
    inner[UDP].sport = ev >> 16
    inner[UDP].chksum = 0
    inner[BTH].dest_qp = qp.remote_qpn
    if psn is not None:
        inner[BTH].psn = psn
    outer = IPv6(src=inner.src, dst=carrier(ev), nh=IP_PROTO_IPV6, hlim=NIC_HOP_LIMIT,
                 tc=tc, fl=ev & 0xFFFF, plen=len(bytes(inner)))
    return Ether(src=NIC_MAC[p], dst=NEXT_HOP_MAC[p]) / outer / inner


# ---- what arrives from the fabric ----------------------------------------------------------
def fabric_frame(ev: int, transport: Packet, *, dscp: int = DSCP_TRIMMABLE,
                 ecn: int = ECN_ECT0, inner_dst: str = NIC_ADDR,
                 inner_tc: int | None = None) -> Packet:
    """An encapsulated MRC packet from the peer on EV ``ev``, as it reaches this NIC
    (docs/mrc-protocol.md 3): outer DA = what the switches left of the carrier (our
    downlink), outer DSCP/ECN ``dscp``/``ecn``, flow labels EV[15:0], UDP sport
    EV[31:16] with checksum 0. The inner traffic class is DSCP ``dscp`` with ECT(0)
    unless ``inner_tc`` says otherwise (switches mark and trim the outer header only)."""
    p = plane_of(ev)
    tc_in = dscp_ecn_tc(dscp, ECN_ECT0) if inner_tc is None else inner_tc
    inner = (IPv6(src=PEER_ADDR, dst=inner_dst, nh=IP_PROTO_UDP, tc=tc_in,
                  fl=ev & 0xFFFF, hlim=64)
             / UDP(sport=ev >> 16, dport=MRC_UDP_PORT, chksum=0) / transport)
    inner = IPv6(bytes(inner))
    outer = IPv6(src=PEER_ADDR, dst=usid_carrier(BLOCK, [MY_DOWN[p]]), nh=IP_PROTO_IPV6,
                 hlim=61, tc=dscp_ecn_tc(dscp, ecn), fl=ev & 0xFFFF)
    return Ether(src=NEXT_HOP_MAC[p], dst=NIC_MAC[p]) / outer / inner


def fabric_data(qp: Qp, ev: int, psn: int, *, ecn: int = ECN_ECT0,
                dscp: int = DSCP_TRIMMABLE, retransmit: int = 0, ack_req: int = 0,
                payload: int = PAYLOAD) -> Packet:
    """A data packet from the peer (BTH DestQP = our local QPN)."""
    transport = write_transport(qp, psn=psn, retransmit=retransmit, ack_req=ack_req,
                                payload=payload, seed=psn & 0xFF)
    return fabric_frame(ev, transport, dscp=dscp, ecn=ecn)


def fabric_trimmed(qp: Qp, ev: int, psn: int, dscp: int) -> Packet:
    """A data packet trimmed by a switch (docs/mrc-protocol.md 6): headers through RETH,
    outer DSCP ``dscp`` (12 or 16), lengths covering what is left."""
    transport = write_transport(qp, psn=psn, payload=0, seed=psn & 0xFF)
    transport[RETH].dma_len = PAYLOAD  # the RETH still describes the cut payload
    return fabric_frame(ev, transport, dscp=dscp, inner_tc=dscp_ecn_tc(DSCP_TRIMMABLE,
                                                                        ECN_ECT0))


def fabric_probe(qp: Qp, ev: int, *, psn: int = 0x000777) -> Packet:
    transport = (BTH(opcode=OPCODE_PROBE, dest_qp=qp.local_qpn, psn=psn)
                 / MrcProbe(probe_id=3, src_conn_id=qp.remote_conn_id,
                            dst_conn_id=qp.local_conn_id, tx_timestamp=0x55))
    return fabric_frame(ev, transport)


def fabric_sack(qp: Qp, echoed_ev: int, *, mark: int = SACK_MARK_NONE, pr: int = 0,
                psn: int = 0, cumulative_psn: int = 0) -> Packet:
    """A SACK from the peer echoing ``echoed_ev``; it comes back through the same path
    (same plane and T1), so its own EV is the echoed one."""
    transport = (BTH(opcode=OPCODE_SACK, dest_qp=qp.local_qpn, psn=psn)
                 / MrcSack(mark=mark, pr=pr, echoed_ev=echoed_ev,
                           src_conn_id=qp.remote_conn_id, dst_conn_id=qp.local_conn_id,
                           cumulative_psn=cumulative_psn, sack_offset=1)
                 / MrcSackCongestion(received_bytes=0x100))
    return fabric_frame(echoed_ev, transport, dscp=DSCP_CONTROL, ecn=ECN_NOT_ECT)


def fabric_nack(qp: Qp, echoed_ev: int, reason: int, psn: int) -> Packet:
    transport = (BTH(opcode=OPCODE_NACK, dest_qp=qp.local_qpn, psn=psn)
                 / MrcNack(reason=reason, echoed_ev=echoed_ev,
                           src_conn_id=qp.remote_conn_id, dst_conn_id=qp.local_conn_id,
                           nack_psn=psn))
    return fabric_frame(echoed_ev, transport, dscp=DSCP_CONTROL, ecn=ECN_NOT_ECT)


def delivered(arrived: Packet) -> Packet:
    """An arrived packet as delivered to the host (section 4.1): decapsulated --
    Ethernet / the inner IPv6 header as the peer sent it / UDP / BTH / ...; nothing of
    the inner packet changes. (Which MACs the frame carries is not specified: the
    caller masks them.)"""
    return Ether(src=arrived[Ether].src, dst=arrived[Ether].dst) / IPv6(
        bytes(arrived[IPv6].payload))


# ---- the SACK and NACK this NIC answers with (section 4.3) --------------------------------
def _reply(data: Packet, qp: Qp, transport: Packet, udp_len: int) -> Packet:
    """Outer IPv6: SA = this NIC (the data's inner DA), DA = the reply carrier (the
    data's plane and T1, the QP's peer T0 and downlink), DSCP 46, Not-ECT, flow label
    EV[15:0], hop limit 64. Inner IPv6: SA/DA swapped, DSCP 46, flow label and hop limit
    as the data's inner header. UDP sport EV[31:16], checksum 0. Ethernet: nic_mac ->
    next_hop_mac of the plane (assumed: section 4.3 does not name the MACs; these are
    the ones section 3 gives every frame leaving a plane port)."""
    ev = ev_of(data)
    p = plane_of(ev)
    data_inner = data[IPv6:2]
    inner = (IPv6(src=data_inner.dst, dst=data_inner.src, nh=IP_PROTO_UDP,
                  tc=dscp_ecn_tc(DSCP_CONTROL, ECN_NOT_ECT), fl=data_inner.fl,
                  hlim=data_inner.hlim, plen=udp_len)
             / UDP(sport=ev >> 16, dport=MRC_UDP_PORT, len=udp_len, chksum=0) / transport)
    outer = IPv6(src=data_inner.dst, dst=carrier(ev), nh=IP_PROTO_IPV6, hlim=NIC_HOP_LIMIT,
                 tc=dscp_ecn_tc(DSCP_CONTROL, ECN_NOT_ECT), fl=ev & 0xFFFF,
                 plen=IPV6_BYTES + udp_len)
    return Ether(src=NIC_MAC[p], dst=NEXT_HOP_MAC[p]) / outer / inner


def _reply_bth(data: Packet, qp: Qp, opcode: int) -> Packet:
    """BTH of a reply: opcode SACK/NACK, DestQP = remote QPN, PSN = the data's PSN; the
    other fields as in the data's BTH."""
    bth = BTH(bytes(data[BTH])[:12])
    bth.opcode = opcode
    bth.dest_qp = qp.remote_qpn
    return bth


def sack_reply(data: Packet, qp: Qp, *, cumulative_psn: int, offset: int, bitmap: int,
               received_bytes: int, mark: int = SACK_MARK_NONE, pr: int = 0) -> Packet:
    """The SACK answering ``data`` (section 4.3): ack_psn_offset = PSN - cumulative PSN
    (0 for probes), echoed EV, connection ids = low 16 bits of the local / remote QPN,
    mpr NIC_RX_MPR (8), one 64-PSN window word ``bitmap`` whose bit 0 is PSN
    cumulative + ``offset`` (sack_offset), then received_bytes in the congestion block
    (other fields 0)."""
    psn = data[BTH].psn
    ack_offset = 0 if pr else (psn - cumulative_psn) & 0xFFFF
    if ack_offset >= 0x8000:
        ack_offset -= 0x10000
    transport = (_reply_bth(data, qp, OPCODE_SACK)
                 / MrcSack(mark=mark, pr=pr, ack_psn_offset=ack_offset, echoed_ev=ev_of(data),
                           src_conn_id=qp.local_conn_id, dst_conn_id=qp.remote_conn_id,
                           cumulative_psn=cumulative_psn & 0xFFFFFF, mpr=NIC_RX_MPR,
                           sack_offset=offset, sack_bitmap=bitmap)
                 / MrcSackCongestion(received_bytes=received_bytes & 0xFFFFFF))
    return _reply(data, qp, transport, SACK_UDP_LEN)


def nack_reply(data: Packet, qp: Qp, reason: int) -> Packet:
    """The NACK answering ``data`` (section 4.3): reason, echoed EV, connection ids,
    nack_psn = the data's PSN (other fields 0)."""
    psn = data[BTH].psn
    transport = (_reply_bth(data, qp, OPCODE_NACK)
                 / MrcNack(reason=reason, echoed_ev=ev_of(data),
                           src_conn_id=qp.local_conn_id, dst_conn_id=qp.remote_conn_id,
                           nack_psn=psn))
    return _reply(data, qp, transport, NACK_UDP_LEN)


# Byte offsets in a reply or delivered frame, for masks of what the spec leaves open.
ETH_BYTES = 14
REPLY_INNER_IPV6_OFFSET = ETH_BYTES + IPV6_BYTES
REPLY_BTH_OFFSET = ETH_BYTES + 2 * IPV6_BYTES + 8
