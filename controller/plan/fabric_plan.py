"""The plan of a fabric: uSIDs allocated once, every device's entities on demand."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from controller.topology import Fabric, QpDecl, Role

from .entities import Entity
from .evs import QpEndPlan, plan_qp_end
from .nic import nic_entities
from .switch import switch_entries
from .usids import UsidPlan, allocate_usids


@dataclass(frozen=True)
class FabricPlan:
    """What every device of ``fabric`` must hold. Only the uSIDs and the QP index are
    computed up front; a device's entities are built when asked for, so a caller that
    walks all devices holds one device's entities at a time."""

    fabric: Fabric
    usids: UsidPlan
    # NIC name -> (QP, side) of every QP end it holds, in QP index order.
    qp_sides: Mapping[str, tuple[tuple[QpDecl, int], ...]]

    def qp(self, name: str) -> QpDecl | None:
        return next((qp for qp in self.fabric.qps if qp.name == name), None)

    def qp_end(self, qp: QpDecl, side: int) -> QpEndPlan:
        return plan_qp_end(self.fabric, self.usids, qp, side)

    def role_of(self, name: str) -> Role | None:
        switch = self.fabric.switch(name)
        if switch is not None:
            return switch.role
        return Role.NIC if self.fabric.nic(name) is not None else None

    def device_names(self) -> Iterator[str]:
        """Every device: the switches plane by plane, then the NICs."""
        for switch in self.fabric.switches():
            yield switch.name
        for nic in self.fabric.nics():
            yield nic.name

    def device_entities(self, name: str) -> list[Entity]:
        """Every entity of device ``name``; ``KeyError`` if there is no such device."""
        if self.fabric.switch(name) is not None:
            return list(switch_entries(self.fabric, self.usids, name))
        ends = [self.qp_end(qp, side) for qp, side in self.qp_sides.get(name, ())]
        return nic_entities(self.fabric, self.usids, name, ends)


def make_plan(fabric: Fabric) -> FabricPlan:
    """Allocate the fabric's uSIDs (``TopologyError`` if fixed ones clash) and index its
    QPs by NIC."""
    usids = allocate_usids(fabric)
    sides: dict[str, list[tuple[QpDecl, int]]] = {}
    for qp in fabric.qps:
        for side, end in enumerate(qp.ends):
            sides.setdefault(end.nic, []).append((qp, side))
    for ends in sides.values():
        ends.sort(key=lambda qp_side: qp_side[0].ends[qp_side[1]].qp_index)
    return FabricPlan(fabric=fabric, usids=usids,
                      qp_sides={nic: tuple(ends) for nic, ends in sides.items()})
