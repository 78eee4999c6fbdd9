"""mrc_nic.p4 PTF tests: packet-out from the controller (docs/mrc-nic.md section 1)."""

from __future__ import annotations

from nic_base import MrcNicTest
from nic_packets import HOST_PORT, PLANE_PORT, fabric_data, host_probe, host_write

from protocol.constants import PACKET_OUT_TRANSMIT


class PacketOutTransmitTest(MrcNicTest):
    """packet_out.egress_port = PACKET_OUT_TRANSMIT (0xFFFF): the frame enters the
    transmit path exactly as if the host had posted it. A controller probe on slot 1's
    EV leaves encapsulated on that EV (PSN as posted); a write sent that way takes the
    QP's next PSN (0), and the host's next write PSN 1: one PSN sequence."""

    def runTest(self) -> None:
        qp = self.new_qp(ev_slots=4, ev_mask=3)
        probe = host_probe(qp, qp.ev(1), psn=0x31)
        self.send_packet_out(probe, egress_port=PACKET_OUT_TRANSMIT)
        self.expect_sent(probe, qp, psn=None, evs=[qp.ev(1)])
        write = host_write(qp, seed=1)
        self.send_packet_out(write, egress_port=PACKET_OUT_TRANSMIT)
        self.expect_sent(write, qp, psn=0)
        write = host_write(qp, seed=2)
        self.post(write)
        self.expect_sent(write, qp, psn=1)
        self.expect_nothing()


class PacketOutPortTest(MrcNicTest):
    """packet_out.egress_port naming a port: the frame leaves there unchanged (section
    1) -- a fabric-formed frame out of each plane port, a host-formed one out of the
    host port -- with no lookup and no PSN (the QP's first write afterwards is PSN 0)."""

    def runTest(self) -> None:
        qp = self.new_qp(ev_slots=4, ev_mask=3)
        frames = [(fabric_data(qp, qp.ev(0), 9), PLANE_PORT[0]),
                  (fabric_data(qp, qp.ev(1), 10), PLANE_PORT[1]),
                  (host_write(qp, seed=3), HOST_PORT)]
        for frame, port in frames:
            self.send_packet_out(frame, egress_port=port)
            self.expect_packets([(frame, port)])
        write = host_write(qp, seed=4)
        self.post(write)
        self.expect_sent(write, qp, psn=0)
