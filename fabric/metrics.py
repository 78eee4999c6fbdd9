"""What a run measures, collected from hooks on the NICs (the switches are left alone,
so measuring costs nothing on most hops):

* per EV of every QP, the data packets its sender put on the fabric (retransmits
  included): the per-path load;
* per QP, the payload bytes delivered to the receiving host, in time bins (goodput
  over time), and each packet's latency from its first transmission by the sending NIC
  to its delivery to the receiving host (a retransmitted packet counts from its first
  try, so losses show in the tail);
* trimmed packets (outer DSCP 12 or 16) and ECN-CE marks arriving at NICs;
* the NICs' EV events (digests), with the virtual time they happened.
"""

from __future__ import annotations

import ipaddress
from collections import defaultdict
from dataclasses import dataclass, field

from behavioral_model.runtime.digests import DigestMessage
from controller.plan import FabricPlan
from protocol import constants as c

from .sim.device import SimDevice
from .sim.frames import ETH, fabric_write, host_write, outer_dscp


@dataclass(frozen=True)
class EvEvent:
    time_us: float
    nic: str
    qp: str
    slot: int
    old_ev: int
    new_ev: int
    reason: int


@dataclass
class QpMetrics:
    ev_packets: dict[int, int] = field(default_factory=lambda: defaultdict(int))
    delivered_bins: dict[int, int] = field(default_factory=lambda: defaultdict(int))
    delivered_bytes: int = 0
    latencies_us: list[float] = field(default_factory=list)
    first_sent: dict[int, float] = field(default_factory=dict)


class Metrics:
    def __init__(self, plan: FabricPlan, bin_us: float) -> None:
        self.bin_us = bin_us
        self.qps: dict[str, QpMetrics] = {}
        # (sender NIC address, DestQP on the wire) -> QP name; the receiver's local
        # QPN is the number the sender's NIC writes into DestQP.
        self._qp_of: dict[tuple[bytes, int], str] = {}
        self._qp_by_nic_qpn: dict[tuple[str, int], str] = {}
        self.trimmed = {c.DSCP_TRIMMED: 0, c.DSCP_TRIMMED_LASTHOP: 0}
        self.ce_marks = 0
        self.ev_events: list[EvEvent] = []
        fabric = plan.fabric
        for qp in fabric.qps:
            self.qps[qp.name] = QpMetrics()
            for side in (0, 1):
                local, remote = qp.ends[side], qp.ends[1 - side]
                nic = fabric.nic(local.nic)
                assert nic is not None
                address = ipaddress.IPv6Address(nic.ipv6).packed
                self._qp_of[(address, remote.qpn)] = qp.name
                self._qp_by_nic_qpn[(local.nic, local.qpn)] = qp.name

    def watch(self, nic: SimDevice) -> None:
        nic.on_transmit = self._transmit
        nic.on_receive = self._receive

    def _transmit(self, nic: SimDevice, port: int, frame: bytes) -> None:
        now = nic.env.now
        if port == c.NIC_HOST_PORT:
            delivered = host_write(frame)
            if delivered is None:
                return
            sender, qpn, psn, payload = delivered
            name = self._qp_of.get((sender, qpn))
            if name is None:
                return
            m = self.qps[name]
            m.delivered_bytes += payload
            m.delivered_bins[int(now // self.bin_us)] += payload
            sent = m.first_sent.get(psn)
            if sent is not None:
                m.latencies_us.append(now - sent)
            return
        data = fabric_write(frame)
        if data is None:
            return
        sender, qpn, psn, ev = data
        name = self._qp_of.get((sender, qpn))
        if name is None:
            return
        m = self.qps[name]
        m.ev_packets[ev] += 1
        m.first_sent.setdefault(psn, now)

    def _receive(self, nic: SimDevice, port: int, frame: bytes) -> None:
        if port == c.NIC_HOST_PORT or len(frame) < ETH + 2:
            return
        dscp = outer_dscp(frame)
        if dscp in self.trimmed:
            self.trimmed[dscp] += 1
        if frame[ETH + 1] & 0x30 == 0x30:  # ECN bits of the traffic class: CE
            self.ce_marks += 1

    def on_digests(self, now_us: float, nic: str, messages: list[DigestMessage]) -> None:
        for message in messages:
            if message.name != "ev_event_t":
                continue
            qpn, _, slot, old_ev, new_ev, reason = message.values
            qp = self._qp_by_nic_qpn.get((nic, qpn), f"{nic}/{qpn:#x}")
            self.ev_events.append(EvEvent(now_us, nic, qp, slot, old_ev, new_ev, reason))
