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

# Per QP index of one NIC, per plane: backups added beyond the planned ones.
TopUps = Mapping[int, Mapping[int, int]]


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

    def qp_end(self, qp: QpDecl, side: int,
               topped_up: Mapping[int, int] | None = None) -> QpEndPlan:
        """End ``side`` of ``qp``; ``topped_up[plane]``: backups added since the plan."""
        return plan_qp_end(self.fabric, self.usids, qp, side, topped_up)

    def qp_at(self, nic: str, qp_index: int) -> tuple[QpDecl, int] | None:
        """(QP, side) of the QP end that NIC ``nic`` holds at ``qp_index``."""
        return next(((qp, side) for qp, side in self.qp_sides.get(nic, ())
                     if qp.ends[side].qp_index == qp_index), None)

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

    def device_entities(self, name: str, topped_up: TopUps | None = None) -> list[Entity]:
        """Every entity of device ``name``; ``KeyError`` if there is no such device.
        ``topped_up[qp_index][plane]``: backups the controller added to a NIC's QP end
        since the plan (they are part of what the NIC must hold)."""
        if self.fabric.switch(name) is not None:
            return list(switch_entries(self.fabric, self.usids, name))
        ends = [self.qp_end(qp, side, (topped_up or {}).get(qp.ends[side].qp_index))
                for qp, side in self.qp_sides.get(name, ())]
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
