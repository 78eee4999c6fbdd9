"""mrc_nic.p4 PTF tests: bad input is dropped and counted (docs/mrc-nic.md sections 3,
4 and 6): drop_counter[NIC_DROP_*] read before and after, nothing leaves."""

from __future__ import annotations

from nic_base import ANY_PSN, MrcNicTest
from nic_packets import (
    HOST_PORT,
    NIC_ADDR,
    OTHER_ADDR,
    PEER_ADDR,
    PEER_EVS,
    PLANE_PORT,
    Qp,
    fabric_data,
    fabric_frame,
    fabric_sack,
    host_frame,
    host_write,
    write_transport,
)
from scapy.layers.inet import UDP
from scapy.layers.inet6 import IPv6
from scapy.layers.l2 import Ether
from scapy.packet import Packet, Raw

from protocol.constants import (
    DROP_PORT,
    IP_PROTO_UDP,
    NACK_TRIMMED,
    NIC_DROP_BAD_OPCODE,
    NIC_DROP_BAD_PACKET_OUT,
    NIC_DROP_NO_EV,
    NIC_DROP_NO_PATH,
    NIC_DROP_NOT_ENCAPSULATED,
    NIC_DROP_NOT_LOCAL,
    NIC_DROP_NOT_MRC,
    NIC_DROP_TRUNCATED,
    NIC_DROP_UNKNOWN_QP,
    OPCODE_ACK,
    OPCODE_NACK,
    OPCODE_SACK,
)
from protocol.headers import BTH, MrcNack, MrcSack, MrcSackCongestion

UNKNOWN_QPN = 0xDEAD01
EV0, EV1 = PEER_EVS[0], PEER_EVS[1]
SEND_ONLY = 0x04  # an InfiniBand RC opcode MRC does not use


def _cut(transport: Packet, keep: int) -> Raw:
    """The first ``keep`` bytes of a transport header stack: a header cut short."""
    return Raw(bytes(transport)[:keep])


class UnknownQpDropTest(MrcNicTest):
    """A write whose BTH DestQP has no qp_context entry, from the host and from the
    fabric: NIC_DROP_UNKNOWN_QP. The same write on a configured QP still leaves."""

    def runTest(self) -> None:
        qp = self.new_qp(ev_slots=4, ev_mask=3)
        self.expect_dropped(NIC_DROP_UNKNOWN_QP, [
            (HOST_PORT, host_frame(qp, write_transport(qp, dest_qp=UNKNOWN_QPN))),
            (PLANE_PORT[0], fabric_frame(EV0, write_transport(qp, dest_qp=UNKNOWN_QPN))),
        ])
        posted = host_write(qp, seed=5)
        self.post(posted)
        self.expect_sent(posted, qp, psn=0)


class TruncatedDropTest(MrcNicTest):
    """A transport header cut short: a BTH of 8 of its 12 bytes from the host and from
    the fabric, and a SACK of 10 of its 28 bytes from the fabric (IPv6 and UDP lengths
    match what is there): NIC_DROP_TRUNCATED."""

    def runTest(self) -> None:
        qp = self.new_qp(ev_slots=4, ev_mask=3)
        sack = fabric_sack(qp, EV1)
        self.expect_dropped(NIC_DROP_TRUNCATED, [
            (HOST_PORT, host_frame(qp, _cut(write_transport(qp), 8))),
            (PLANE_PORT[0], fabric_frame(EV0, _cut(write_transport(qp), 8))),
            (PLANE_PORT[1], fabric_frame(EV1, _cut(sack[BTH], 12 + 10))),
        ])


class BadOpcodeDropTest(MrcNicTest):
    """Opcodes the NIC does not handle, on a configured QP: from the host (section 3,
    "anything else"), ACK (0xD1), SEND_ONLY (0x04), a SACK (the NIC makes SACKs, the
    host does not post them) and a NACK whose reason is not NACK_HOST_LOSS_REPORT (only
    that NACK is a loss report); from the fabric, ACK and SEND_ONLY:
    NIC_DROP_BAD_OPCODE."""

    def runTest(self) -> None:
        qp = self.new_qp(ev_slots=4, ev_mask=3)
        ack = BTH(opcode=OPCODE_ACK, dest_qp=qp.local_qpn, psn=3) / Raw(bytes(16))
        send = BTH(opcode=SEND_ONLY, dest_qp=qp.local_qpn, psn=4) / Raw(bytes(32))
        host_sack = (BTH(opcode=OPCODE_SACK, dest_qp=qp.local_qpn, psn=5)
                     / MrcSack(echoed_ev=qp.ev(0)) / MrcSackCongestion())
        host_nack = (BTH(opcode=OPCODE_NACK, dest_qp=qp.local_qpn, psn=6)
                     / MrcNack(reason=NACK_TRIMMED, nack_psn=6))
        self.expect_dropped(NIC_DROP_BAD_OPCODE, [
            (HOST_PORT, host_frame(qp, ack.copy())),
            (HOST_PORT, host_frame(qp, send.copy())),
            (HOST_PORT, host_frame(qp, host_sack)),
            (HOST_PORT, host_frame(qp, host_nack)),
            (PLANE_PORT[0], fabric_frame(EV0, ack.copy())),
            (PLANE_PORT[1], fabric_frame(EV1, send.copy())),
        ])


class NotLocalDropTest(MrcNicTest):
    """A fabric packet whose inner DA is not in nic_address (section 4: only packets
    for this NIC are accepted), for a configured QP: NIC_DROP_NOT_LOCAL."""

    def runTest(self) -> None:
        qp = self.new_qp(ev_slots=4, ev_mask=3)
        self.expect_dropped(NIC_DROP_NOT_LOCAL, [
            (PLANE_PORT[0], fabric_frame(EV0, write_transport(qp), inner_dst=OTHER_ADDR)),
            (PLANE_PORT[1], fabric_frame(EV1, write_transport(qp, psn=1),
                                         inner_dst=PEER_ADDR)),
        ])
        # The same packet to our address is accepted (delivered and SACKed).
        self.skip_on_pna("no multicast in pna.p4: the accepted packet is delivered "
                         "without its SACK")
        self.inject(fabric_data(qp, EV0, 0))
        self.assertEqual(sorted(self.receive()[0] for _ in range(2)),
                         [HOST_PORT, PLANE_PORT[0]])


class NotMrcDropTest(MrcNicTest):
    """Not MRC: UDP to a port other than 4791 from the host and (encapsulated) from the
    fabric: NIC_DROP_NOT_MRC. From the fabric without an inner IPv6 header (outer NH
    17, UDP 4791, BTH): NIC_DROP_NOT_ENCAPSULATED."""

    def runTest(self) -> None:
        qp = self.new_qp(ev_slots=4, ev_mask=3)
        self.expect_dropped(NIC_DROP_NOT_MRC, [
            (HOST_PORT, host_frame(qp, Raw(b"not mrc" * 8), dport=9999)),
            (PLANE_PORT[0], self._fabric_udp(qp, EV0, 9999)),
        ])
        bare = fabric_data(qp, EV0, 0)
        inner = bare[IPv6:2]
        flat = (Ether(src=bare[Ether].src, dst=bare[Ether].dst)
                / IPv6(src=PEER_ADDR, dst=NIC_ADDR, nh=IP_PROTO_UDP, tc=bare[IPv6].tc,
                       fl=bare[IPv6].fl) / UDP(bytes(inner[UDP])))
        self.expect_dropped(NIC_DROP_NOT_ENCAPSULATED, [(PLANE_PORT[0], flat)])

    @staticmethod
    def _fabric_udp(qp: Qp, ev: int, dport: int) -> Packet:
        frame = fabric_frame(ev, Raw(b"not mrc" * 8))
        frame[UDP].dport = dport
        return Ether(bytes(frame))


class BadPacketOutTest(MrcNicTest):
    """A PacketOut to the drop port (511): not a port and not PACKET_OUT_TRANSMIT
    (section 1), so it is dropped and counted in drop_counter[NIC_DROP_BAD_PACKET_OUT]
    (assumed: section 1 names the two valid kinds of egress_port only; 511 is
    DROP_PORT, as on the switch)."""

    def runTest(self) -> None:
        qp = self.new_qp(ev_slots=4, ev_mask=3)
        before = self.counter("drop_counter", NIC_DROP_BAD_PACKET_OUT)
        self.send_packet_out(fabric_data(qp, EV0, 1), egress_port=DROP_PORT)
        self.wait_counter("drop_counter", NIC_DROP_BAD_PACKET_OUT, before, 1)
        self.expect_nothing()


class TwoSlotDropBase(MrcNicTest):
    """Two slots of which one cannot be sent on: each rotation of 2 writes sends one on
    slot 0's EV and drops the other. (Whether a dropped write used up its PSN is not
    specified: the PSNs are not checked.)"""

    def expect_two_of_four_dropped(self, qp: Qp, reason: int) -> None:
        before = self.counter("drop_counter", reason)
        posted = host_write(qp, seed=0x66)
        for _ in range(4):
            self.post(posted)
        for _ in range(2):
            self.expect_sent(posted, qp, psn=ANY_PSN, evs=[qp.ev(0)])
        self.wait_counter("drop_counter", reason, before, 2)
        self.expect_nothing()


class NoEvDropTest(TwoSlotDropBase):
    """2 slots, qp_ev only for EV id 0: of 4 writes (2 rotations) two leave on slot 0's
    EV and two are dropped with NIC_DROP_NO_EV (the chosen slot's EV is not
    configured)."""

    def runTest(self) -> None:
        qp = self.new_qp(ev_slots=2, ev_mask=1, without_ev=[1])
        self.expect_two_of_four_dropped(qp, NIC_DROP_NO_EV)


class NoPathDropTest(TwoSlotDropBase):
    """No qp_plane entry for plane 1, 2 slots (slot 1 on plane 1): of 4 writes two leave
    on slot 0's EV (plane 0) and two are dropped with NIC_DROP_NO_PATH."""

    def runTest(self) -> None:
        qp = self.new_qp(ev_slots=2, ev_mask=1, without_planes=[1])
        self.expect_two_of_four_dropped(qp, NIC_DROP_NO_PATH)
