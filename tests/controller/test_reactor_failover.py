"""The reactor's plane failover without devices (its links replaced by recorders):
``set_planes_down`` writes the NIC's ``nic_planes`` entry and tells the peers on the
surviving planes (docs/mrc-nic.md 3.1); EVs retired on a plane that is down at either
end of their QP get no top-up and no probe until the plane is back, then both."""

from __future__ import annotations

from p4.v1 import p4runtime_pb2
from test_controller_react import Recorder, ev_event

from controller.events import EventLog
from controller.plan import FabricPlan
from controller.plan import p4names as n
from controller.react import Reactor
from host.codec import NackPacket, ProbePacket, decode_frame
from protocol import constants as c

PLANE0_EV = 0x0001_0002  # T1 uSID 0x0001: plane 0
PLANE1_EV = 0x2001_0001  # T1 uSID 0x2001: plane 1


def reactor_of(plan: FabricPlan) -> tuple[Reactor, dict[str, Recorder]]:
    reactor = Reactor(plan, EventLog(out=None))  # not started: no connections
    recorders = {name: Recorder(reactor.links[name]) for name in ("nic0", "nic2")}
    for recorder in recorders.values():
        recorder.install()
    return reactor, recorders


def test_a_port_down_writes_nic_planes_and_tells_the_peer_on_the_other_plane(
        small: FabricPlan) -> None:
    reactor, recorders = reactor_of(small)
    nic0 = recorders["nic0"]
    sent = reactor.set_planes_down("nic0", [0])
    (write,) = nic0.writes
    assert write.type == p4runtime_pb2.Update.INSERT
    assert write.entity.table_entry.table_id == reactor.links["nic0"].helper.get_id(
        "tables", n.NIC_PLANES)
    updates = [decode_frame(payload) for payload, port in nic0.packets
               if port == c.PACKET_OUT_TRANSMIT]
    assert sent == len(updates) > 0
    for update in updates:
        assert isinstance(update, NackPacket)
        assert update.reason == c.NACK_PORT_STATUS and update.vendor == 0b01
        assert c.ev_plane(update.echoed_ev) == 1  # never on the dead plane
    nic0.writes.clear()
    nic0.packets.clear()
    # back: the peers are told again, now on both planes
    assert reactor.set_planes_down("nic0", []) == 2 * sent
    (write,) = nic0.writes
    assert write.type == p4runtime_pb2.Update.DELETE
    assert reactor.planes_down["nic0"] == 0


def test_retirements_on_a_down_plane_are_held_until_it_is_back(small: FabricPlan) -> None:
    reactor, recorders = reactor_of(small)
    qp = small.qp("qp-a")
    assert qp is not None
    near, far = qp.ends  # nic0, nic2
    reactor.set_planes_down("nic0", [0])
    for recorder in recorders.values():
        recorder.writes.clear()
        recorder.packets.clear()
    # A loss on plane 0 at either end (packets sent before the NICs knew): held.
    reactor.handle_digest("nic0", ev_event(near.qpn, near.qp_index, 2, PLANE0_EV, 0,
                                           c.EV_EVENT_HOST_LOSS))
    reactor.handle_digest("nic2", ev_event(far.qpn, far.qp_index, 0, PLANE0_EV, 0,
                                           c.EV_EVENT_HOST_LOSS))
    assert reactor.log.count("retired-on-down-plane") == 2
    assert reactor.log.count("top-up") == 0
    reactor.send_due_probes()
    assert all(r.writes == [] and r.packets == [] for r in recorders.values())
    # Plane 1 is up at both ends: as always.
    reactor.handle_digest("nic2", ev_event(far.qpn, far.qp_index, 1, PLANE1_EV, 0,
                                           c.EV_EVENT_HOST_LOSS))
    assert reactor.log.count("top-up", device="nic2", plane=1) == 1
    # The port is back: the held ones get their top-ups and probes at once.
    reactor.set_planes_down("nic0", [])
    assert reactor.log.count("top-up", device="nic0", plane=0) == 1
    assert reactor.log.count("top-up", device="nic2", plane=0) == 1
    assert reactor.held == [] and reactor.held_probes == []
    probed = reactor.send_due_probes()
    assert {(t.key.nic, t.key.ev) for t in probed} == {
        ("nic0", PLANE0_EV), ("nic2", PLANE0_EV), ("nic2", PLANE1_EV)}


def test_probes_of_a_plane_that_goes_down_wait_for_it(small: FabricPlan) -> None:
    reactor, recorders = reactor_of(small)
    qp = small.qp("qp-a")
    assert qp is not None
    near = qp.ends[0]
    reactor.handle_digest("nic0", ev_event(near.qpn, near.qp_index, 2, PLANE0_EV, 0,
                                           c.EV_EVENT_ALWAYS_SKIP))
    assert [t.key.ev for t in reactor.send_due_probes()] == [PLANE0_EV]
    reactor.set_planes_down("nic2", [0])  # the peer's port: plane 0 is down for the QP
    assert reactor.probes.tasks == {} and len(reactor.held_probes) == 1
    reactor.set_planes_down("nic2", [])
    assert [t.key.ev for t in reactor.send_due_probes()] == [PLANE0_EV]
    probe = decode_frame(recorders["nic0"].packets[-1][0])
    assert isinstance(probe, ProbePacket) and probe.sport == PLANE0_EV >> 16
