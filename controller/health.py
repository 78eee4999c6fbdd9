"""Fabric health from counters: per link (every cabled switch port), per plane and per
QP end, plus each device's drops and NIC events by reason.

Counters are cumulative since the device's pipeline was pushed. NIC slot counters are
folded into planes: slot ``s`` always sprays on plane ``s % planes`` (a retired EV is
replaced from its own plane's backups), so per-slot transmissions, ECN echoes, trims and
retirements are per-plane figures too.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from p4.v1 import p4runtime_pb2

from controller.device import DeviceLink
from controller.plan import FabricPlan
from controller.plan import p4names as n
from controller.topology import Role
from p4rt_client import P4RuntimeSessionError, P4RuntimeWriteError
from protocol import constants as c


def _names(prefix: str) -> dict[int, str]:
    """``{value: "reason-name"}`` of the constants ``PREFIX*`` (the count excluded)."""
    return {value: name[len(prefix):].lower().replace("_", "-")
            for name, value in vars(c).items()
            if name.startswith(prefix) and not name.endswith("_COUNT") and isinstance(value, int)}


SWITCH_DROPS = _names("DROP_REASON_")
NIC_DROPS = _names("NIC_DROP_")
NIC_EVENTS = _names("NIC_EVENT_")


@dataclass
class LinkHealth:
    device: str
    port: int
    peer: str
    plane: int
    rx_packets: int = 0
    tx_packets: int = 0
    trims: int = 0
    ecn_marks: int = 0


@dataclass
class PlaneHealth:
    plane: int
    switch_tx_packets: int = 0
    switch_drops: int = 0
    trims: int = 0
    ecn_marks: int = 0
    nic_tx_packets: int = 0  # data and probes the NICs sprayed on this plane
    ecn_echoes: int = 0
    nic_trims: int = 0
    retirements: int = 0


@dataclass
class QpHealth:
    qp: str
    nic: str
    qp_index: int
    tx_packets: int = 0
    rx_packets: int = 0
    ecn_echoes: int = 0
    trims: int = 0
    retirements: int = 0


@dataclass
class DeviceHealth:
    device: str
    role: Role
    reachable: bool = True
    error: str = ""
    drops: dict[str, int] = field(default_factory=dict)
    events: dict[str, int] = field(default_factory=dict)


@dataclass
class FabricHealth:
    devices: list[DeviceHealth] = field(default_factory=list)
    links: list[LinkHealth] = field(default_factory=list)
    planes: list[PlaneHealth] = field(default_factory=list)
    qps: list[QpHealth] = field(default_factory=list)


def _packets(entities: Iterable[p4runtime_pb2.Entity]) -> dict[tuple[int, int], int]:
    """``{(counter id, index): packets}``."""
    return {(e.counter_entry.counter_id, e.counter_entry.index.index):
            e.counter_entry.data.packet_count for e in entities}


def read_switch(link: DeviceLink, plan: FabricPlan, health: FabricHealth) -> None:
    switch = plan.fabric.switch(link.name)
    assert switch is not None
    helper = link.helper
    ports = list(plan.fabric.switch_links(link.name))
    per_port = (n.SWITCH_RX_PORT_COUNTER, n.SWITCH_TX_PORT_COUNTER, n.SWITCH_TRIM_COUNTER,
                n.SWITCH_ECN_MARK_COUNTER)
    reads = [helper.counter_entry(name, p.port) for name in per_port for p in ports]
    reads.append(helper.counter_entry(n.SWITCH_DROP_COUNTER))
    got = _packets(link.read(reads))
    rx, tx, trim, ecn = (helper.get_id("counters", name) for name in per_port)
    drop_id = helper.get_id("counters", n.SWITCH_DROP_COUNTER)
    plane = health.planes[switch.plane]
    for p in ports:
        entry = LinkHealth(link.name, p.port, f"{p.peer}:{p.peer_port}", switch.plane,
                           got.get((rx, p.port), 0), got.get((tx, p.port), 0),
                           got.get((trim, p.port), 0), got.get((ecn, p.port), 0))
        health.links.append(entry)
        plane.switch_tx_packets += entry.tx_packets
        plane.trims += entry.trims
        plane.ecn_marks += entry.ecn_marks
    drops = {SWITCH_DROPS.get(i, str(i)): v for (cid, i), v in got.items()
             if cid == drop_id and v}
    plane.switch_drops += sum(drops.values())
    health.devices.append(DeviceHealth(link.name, switch.role, drops=drops))


def read_nic(link: DeviceLink, plan: FabricPlan, health: FabricHealth) -> None:
    helper = link.helper
    planes = plan.fabric.planes
    ends = [(qp, side, qp.ends[side].qp_index) for qp, side in plan.qp_sides.get(link.name, ())]
    reads = [helper.counter_entry(name, index) for name in n.NIC_QP_COUNTERS
             for _, _, index in ends]
    slots = [(index, s) for qp, _, index in ends for s in range(qp.evs_per_plane * planes)]
    reads += [helper.counter_entry(name, index * c.NIC_EV_SLOTS + s)
              for name in n.NIC_SLOT_COUNTERS for index, s in slots]
    reads += [helper.counter_entry(n.NIC_DROP_COUNTER), helper.counter_entry(n.NIC_EVENT_COUNTER)]
    got = _packets(link.read(reads))
    qp_ids = [helper.get_id("counters", name) for name in n.NIC_QP_COUNTERS]
    for qp, _, index in ends:
        tx, rx, ecn, trim, retire = (got.get((cid, index), 0) for cid in qp_ids)
        health.qps.append(QpHealth(qp.name, link.name, index, tx, rx, ecn, trim, retire))
    slot_ids = [helper.get_id("counters", name) for name in n.NIC_SLOT_COUNTERS]
    for index, s in slots:
        tx, ecn, trim, retire = (got.get((cid, index * c.NIC_EV_SLOTS + s), 0)
                                 for cid in slot_ids)
        plane = health.planes[s % planes]
        plane.nic_tx_packets += tx
        plane.ecn_echoes += ecn
        plane.nic_trims += trim
        plane.retirements += retire
    drop_id = helper.get_id("counters", n.NIC_DROP_COUNTER)
    event_id = helper.get_id("counters", n.NIC_EVENT_COUNTER)
    health.devices.append(DeviceHealth(
        link.name, Role.NIC,
        drops={NIC_DROPS.get(i, str(i)): v for (cid, i), v in got.items()
               if cid == drop_id and v},
        events={NIC_EVENTS.get(i, str(i)): v for (cid, i), v in got.items()
                if cid == event_id and v}))


def read_health(plan: FabricPlan, links: Iterable[DeviceLink]) -> FabricHealth:
    """One reading of every device's counters; a device that does not answer is
    marked unreachable."""
    health = FabricHealth(planes=[PlaneHealth(p) for p in range(plan.fabric.planes)])
    for link in links:
        try:
            if link.target.role is Role.NIC:
                read_nic(link, plan, health)
            else:
                read_switch(link, plan, health)
        # ValueError: gRPC's answer on a channel closed meanwhile (the device was lost).
        except (P4RuntimeWriteError, P4RuntimeSessionError, ConnectionError,
                ValueError) as error:
            text = error.summary() if isinstance(error, P4RuntimeWriteError) else str(error)
            health.devices.append(DeviceHealth(link.name, link.target.role,
                                               reachable=False, error=text))
    return health
