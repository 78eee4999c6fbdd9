"""mrc_nic.p4 PTF tests: the EV of every transmission and plane failover
(docs/mrc-nic.md sections 3 and 3.1).

- A retransmission never takes the EV of the transmission it replaces, and a loss
  report blames the EV of the latest transmission of the PSN (``psn_ev`` covers the
  1,024-PSN window and is rewritten by every transmission).
- ``nic_planes`` (this NIC's ports that are down) and a peer's port-status update
  (NACK reason NACK_PORT_STATUS, vendor byte = its planes-down mask) make the rotation
  pass the slots of those planes; nothing is retired.

Slots of a test QP alternate planes (slot s on plane s % 2), so a rotation over 4 slots
has 2 EVs per plane.
"""

from __future__ import annotations

from nic_base import MrcNicTest
from nic_packets import (
    NIC_ADDR,
    PEER_EVS,
    Qp,
    ev_of,
    fabric_frame,
    host_frame,
    host_loss_report,
    host_write,
    plane_of,
)
from scapy.packet import Packet

from protocol.constants import (
    DSCP_CONTROL,
    DSCP_TRIMMABLE_RETX,
    ECN_NOT_ECT,
    EV_EVENT_HOST_LOSS,
    NACK_PORT_STATUS,
    NIC_DROP_PLANE_DOWN,
    NIC_EVENT_PORT_STATUS,
    NIC_EVENT_STALE_REPORT,
    OPCODE_NACK,
)
from protocol.headers import BTH, MrcNack

NIC_PLANES = "NicIngress.lookup.nic_planes"


def port_status(qp: Qp, ev: int, down_mask: int, *, from_host: bool) -> Packet:
    """A port-status update on EV ``ev`` (section 3.1): as the controller posts it on
    this NIC (DestQP = the local QPN), or as the peer's update arrives from the fabric
    (DestQP = our QPN too: the peer addresses our QP)."""
    transport = (BTH(opcode=OPCODE_NACK, dest_qp=qp.local_qpn, psn=0)
                 / MrcNack(reason=NACK_PORT_STATUS, vendor=down_mask, echoed_ev=ev,
                           src_conn_id=qp.local_conn_id if from_host else qp.remote_conn_id,
                           dst_conn_id=qp.remote_conn_id if from_host else qp.local_conn_id,
                           nack_psn=0))
    if from_host:
        return host_frame(qp, transport, sport=ev >> 16, fl=ev & 0xFFFF)
    return fabric_frame(ev, transport, dscp=DSCP_CONTROL, ecn=ECN_NOT_ECT)


class FailoverTest(MrcNicTest):
    """Helpers shared by the tests below (no test of its own)."""

    def retransmit(self, qp: Qp, psn: int) -> int:
        """Post the retransmission of ``psn`` (BTH Retransmit, the PSN kept, DSCP 8);
        returns the EV it left on."""
        posted = host_write(qp, psn=psn, retransmit=1, seed=psn & 0xFF)
        self.post(posted)
        return self.expect_sent(posted, qp, psn=psn, dscp=DSCP_TRIMMABLE_RETX,
                                evs=qp.slot_evs())

    def set_planes_down(self, mask: int) -> None:
        """Write this NIC's nic_planes entry; every test removes it before it ends (the
        target outlives the test)."""
        self.planes_entry = self.insert_table_entry(NIC_PLANES, {"src_addr": NIC_ADDR},
                                                    "set_planes_down", {"down_mask": mask})

    def tearDown(self) -> None:
        entry = getattr(self, "planes_entry", None)
        if entry is not None:
            self.delete(entry)
        super().tearDown()


class RetransmitOtherEvTest(FailoverTest):
    """A retransmission goes on another EV than the transmission it replaces (section 3
    step 2): PSN 1 retransmitted three times in a row, each copy on an EV other than the
    previous copy's."""

    def runTest(self) -> None:
        qp = self.new_qp(ev_slots=4, ev_mask=3)
        previous = self.send_writes(qp, 4, first_psn=0)[1]
        for n in range(3):
            ev = self.retransmit(qp, 1)
            self.assertNotEqual(ev, previous, f"retransmission {n} of PSN 1 took the EV "
                                              f"{ev:#x} of the copy it replaces")
            previous = ev


class LossReportBlamesLatestTransmissionTest(FailoverTest):
    """A loss report for PSN 2 after PSN 2 was retransmitted blames the EV of the
    retransmission (psn_ev is rewritten by every transmission, section 3 step 3): the
    digest's old_ev is that EV, not the first copy's."""

    def runTest(self) -> None:
        qp = self.new_qp(ev_slots=4, ev_mask=3, backups_per_plane=2, configured_backups=2)
        first = self.send_writes(qp, 4, first_psn=0)
        again = self.retransmit(qp, 2)
        self.assertNotEqual(again, first[2])
        self.post(host_loss_report(qp, 2))
        (entry,) = self.verify_digest("ev_event_t")
        self.assertEqual((entry[3], entry[5]), (again, EV_EVENT_HOST_LOSS),
                         f"the report blamed {entry[3]:#x}, the retransmission went on "
                         f"{again:#x} (the first copy on {first[2]:#x})")


class PsnEvWholeWindowTest(FailoverTest):
    """psn_ev covers NIC_PSN_TRACK (1,024) PSNs: after PSNs 0..255, PSN 256 is sent on
    the other plane (PSN 0's plane down in nic_planes for that one write, so the two
    EVs differ); a loss report for PSN 0 then blames PSN 0's EV, not PSN 256's (which a
    256-entry record would have kept)."""

    def runTest(self) -> None:
        qp = self.new_qp(ev_slots=4, ev_mask=3, backups_per_plane=1, configured_backups=1)
        used = self.send_writes(qp, 256, first_psn=0)
        self.set_planes_down(1 << plane_of(used[0]))
        other = [ev for ev in qp.slot_evs() if plane_of(ev) != plane_of(used[0])]
        self.send_writes(qp, 1, first_psn=256, evs=other)
        self.delete(self.planes_entry)
        self.planes_entry = None
        self.post(host_loss_report(qp, 0))
        (entry,) = self.verify_digest("ev_event_t")
        self.assertEqual(entry[3], used[0])


class LocalPlaneDownTest(FailoverTest):
    """nic_planes with plane 0 down (section 3.1): once every slot has been used (its
    plane learnt), the rotation passes plane 0's slots, so two rotations' worth of
    writes go on plane 1's two EVs, twice each; nothing is retired. The entry removed,
    the next 8 writes use all four slots again (the rotation may resume mid-way)."""

    def runTest(self) -> None:
        qp = self.new_qp(ev_slots=4, ev_mask=3)
        self.assert_rotation(self.send_writes(qp, 4, first_psn=0), qp.slot_evs(), "before")
        retired = self.counter("qp_retire_counter", qp.qp_index)
        self.set_planes_down(0b01)
        plane1 = [ev for ev in qp.slot_evs() if plane_of(ev) == 1]
        used = self.send_writes(qp, 4, first_psn=4)
        self.assertEqual(sorted(used), sorted(plane1 * 2))
        self.delete(self.planes_entry)
        self.planes_entry = None
        self.assertEqual(set(self.send_writes(qp, 8, first_psn=8)), set(qp.slot_evs()))
        self.assertEqual(self.counter("qp_retire_counter", qp.qp_index), retired)


class PlaneDownFirstUseTest(FailoverTest):
    """A slot never sent on has no known plane (section 3 step 2): with plane 0 down
    from the start, each of plane 0's two slots takes one write, which is dropped
    (drop_counter[NIC_DROP_PLANE_DOWN] +2) and blames no EV (its loss report is stale);
    the first rotation's other two writes and all later ones go on plane 1."""

    def runTest(self) -> None:
        qp = self.new_qp(ev_slots=4, ev_mask=3, backups_per_plane=1, configured_backups=1)
        self.set_planes_down(0b01)
        plane1 = {ev for ev in qp.slot_evs() if plane_of(ev) == 1}
        drops = self.counter("drop_counter", NIC_DROP_PLANE_DOWN)
        for n in range(4):
            self.post(self.host_write_seeded(qp, n))
        self.wait_counter("drop_counter", NIC_DROP_PLANE_DOWN, drops, 2)
        self.expect_packets_on(plane1, 2)
        self.assertEqual(sorted(self.send_writes(qp, 4, first_psn=4, evs=plane1)),
                         sorted(list(plane1) * 2))
        stale = self.counter("event_counter", NIC_EVENT_STALE_REPORT)
        for psn in range(4):
            self.post(host_loss_report(qp, psn))
        # Two reports blame the EVs that carried PSNs; the dropped two are stale.
        self.assertEqual(len(self.verify_digest("ev_event_t")), 1)
        self.assertEqual(len(self.verify_digest("ev_event_t")), 1)
        self.wait_counter("event_counter", NIC_EVENT_STALE_REPORT, stale, 2)

    def expect_packets_on(self, evs: set[int], count: int) -> None:
        """``count`` writes leave on ``evs``, then nothing."""
        for _ in range(count):
            port, frame = self.receive()
            self.assertIn(ev_of(frame), evs, f"a write left on port {port}: {frame!r}")
        self.expect_nothing()


class PortStatusSendTest(FailoverTest):
    """A port-status update posted by the controller (or the host) leaves like a probe
    (section 3): on the EV written in the frame, encapsulated toward the peer, DSCP 4,
    its PSN as posted."""

    def runTest(self) -> None:
        qp = self.new_qp(ev_slots=4, ev_mask=3)
        ev = qp.slot_evs()[1]
        posted = port_status(qp, ev, 0b01, from_host=True)
        self.post(posted)
        self.assertEqual(self.expect_sent(posted, qp, psn=None, evs=[ev]), ev)
        self.expect_nothing()


class PortStatusReceiveTest(FailoverTest):
    """The peer's port-status update (section 4.4) is consumed (nothing leaves, the host
    does not see it; event_counter[PORT_STATUS] +1): with its plane 0 down, writes go
    on plane 1 only; the next update (mask 0) brings plane 0 back (8 writes use all
    four slots)."""

    def runTest(self) -> None:
        qp = self.new_qp(ev_slots=4, ev_mask=3)
        self.assert_rotation(self.send_writes(qp, 4, first_psn=0), qp.slot_evs(), "before")
        updates = self.counter("event_counter", NIC_EVENT_PORT_STATUS)
        self.inject(port_status(qp, PEER_EVS[1], 0b01, from_host=False))
        self.wait_counter("event_counter", NIC_EVENT_PORT_STATUS, updates, 1)
        self.expect_nothing()
        plane1 = [ev for ev in qp.slot_evs() if plane_of(ev) == 1]
        self.assertEqual(sorted(self.send_writes(qp, 4, first_psn=4)), sorted(plane1 * 2))
        self.inject(port_status(qp, PEER_EVS[1], 0, from_host=False))
        self.wait_counter("event_counter", NIC_EVENT_PORT_STATUS, updates, 2)
        self.assertEqual(set(self.send_writes(qp, 8, first_psn=8)), set(qp.slot_evs()))
