"""The NICs' view of their own fabric ports: link-down (and link-up) detection.

A real NIC learns that a port's link went down from its PHY: the PCS stops finding
block lock, or the link partner signals a fault (IEEE 802.3 clause 46/81 link fault
signalling: Local/Remote Fault ordered sets), within microseconds of the cable failing;
its driver or the controller's port-state subscription then reports the port-status
change. Here a cable at a NIC's fabric port that changes state is reported to
``report(nic, planes_down)`` ``detect_us`` after the change, with every plane of that
NIC whose cable is down at that moment. A cable that comes back within ``detect_us``
(a glitch shorter than the detection) is never reported, as a PHY's debounce does.
A T0 switch cut off or rebooted takes its NICs' cables down too: the NIC sees its
ports go dark and reports them the same way.

``fabric.failures`` connects ``report`` to the controller's
``Reactor.set_planes_down`` (docs/mrc-nic.md 3.1: plane failover).
"""

from __future__ import annotations

from collections.abc import Callable

from .events import call_later
from .link import Cable
from .network import Network

__all__ = ["LINK_DETECT_US", "PortReport", "PortStatusMonitor"]

# From a cable's change of state to the NIC's control plane knowing it [ours: link
# fault signalling takes a few microseconds; the same delay for down and for up].
LINK_DETECT_US = 5.0

# (NIC, the planes whose port is down now: empty when every port is up again)
PortReport = Callable[[str, frozenset[int]], None]


class PortStatusMonitor:
    """Watches the cables at every NIC's fabric ports of ``network``."""

    def __init__(self, network: Network, report: PortReport,
                 detect_us: float = LINK_DETECT_US) -> None:
        if detect_us < 0:
            raise ValueError(f"detect_us {detect_us}: a detection delay is >= 0")
        self.env = network.env
        self.report = report
        self.detect_us = detect_us
        # NIC -> its cable per plane; NIC -> the planes down as last reported
        self.cables: dict[str, list[Cable]] = {}
        self.reported: dict[str, frozenset[int]] = {}
        fabric = network.plan.fabric
        for nic in fabric.nics():
            cables = [network.cable(f"{nic.name}:{nic.ports[plane]}")
                      for plane in range(fabric.planes)]
            self.cables[nic.name] = cables
            for cable in cables:
                cable.watchers.append(lambda _cable, name=nic.name: self._changed(name))

    def planes_down(self, nic: str) -> frozenset[int]:
        """The planes of ``nic`` whose cable is down now."""
        return frozenset(p for p, cable in enumerate(self.cables[nic]) if not cable.up)

    def _changed(self, nic: str) -> None:
        call_later(self.env, self.detect_us, self._detected, nic)

    def _detected(self, nic: str) -> None:
        down = self.planes_down(nic)
        if down != self.reported.get(nic, frozenset()):
            self.reported[nic] = down
            self.report(nic, down)
