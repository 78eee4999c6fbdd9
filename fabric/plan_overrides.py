"""What a scenario changes in the controller's plan before it is applied: a QP reduced
to a single fixed path (the baseline: one EV per QP, like ECMP-hashed RoCE) and slots
pinned to chosen T1s (two QPs forced onto one path). Both only rewrite planned NIC
entries, which the controller then writes over P4Runtime like any other; no device is
configured behind its back.

* ``single_path``: ``qp_context`` gets ``ev_slots`` 1, ``ev_mask`` 0, ``min_active`` 1
  and no backups, and only EV id 0 (slot 0, on plane 0) keeps its ``qp_ev`` entry. A
  loss report then meets the floor and changes nothing: the QP stays on its path, as a
  hashed flow does until routing moves it.
* ``pin``: slot ``s`` (plane ``s % planes``, ``s // planes``-th of its plane) takes the
  T1 of the given index among the T1s cabled to both ends' T0s on that plane.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from controller.plan import Entity, FabricPlan, TableEntry
from controller.plan import p4names as n
from controller.topology import QpDecl

__all__ = ["PlanOverrides"]


class PlanOverrides:
    def __init__(self, plan: FabricPlan, single_path: Sequence[str] = (),
                 pins: Mapping[str, Sequence[int]] | None = None) -> None:
        self.plan = plan
        self.single_path = frozenset(single_path)
        self.pins = dict(pins or {})

    def entities(self, device: str) -> list[Entity]:
        """The device's planned entities with the overrides applied."""
        entities = self.plan.device_entities(device)
        sides = self.plan.qp_sides.get(device, ())
        for qp, side in sides:
            index = qp.ends[side].qp_index
            pin = self.pins.get(qp.name)
            if pin is not None:
                entities = [self._pinned(e, qp, side, index, pin) for e in entities]
            if qp.name in self.single_path:
                entities = [s for e in entities
                            if (s := _single_path(e, index)) is not None]
        return entities

    def _pinned(self, entity: Entity, qp: QpDecl, side: int, index: int,
                pin: Sequence[int]) -> Entity:
        if not (isinstance(entity, TableEntry) and entity.table == n.QP_EV
                and _key(entity, "qp_index") == index):
            return entity
        slot = _key(entity, "ev_id")
        if slot >= len(pin):
            return entity
        fabric = self.plan.fabric
        planes = fabric.planes
        local, remote = qp.ends[side], qp.ends[1 - side]
        plane = slot % planes
        t1s = fabric.common_t1s(plane, fabric.nic_link(local.nic, plane).peer,
                                fabric.nic_link(remote.nic, plane).peer)
        t1 = t1s[pin[slot] % len(t1s)]
        return entity._replace(params=(("t1_usid", self.plan.usids.node(t1.name)),))


def _key(entry: TableEntry, field: str) -> int:
    return next(m.value for name, m in entry.match if name == field)


def _single_path(entity: Entity, index: int) -> Entity | None:
    """The entity for QP ``index`` on one path; None for an entry it no longer has."""
    if not isinstance(entity, TableEntry):
        return entity
    if entity.table == n.QP_CONTEXT:
        return _single_context(entity, index)
    if (entity.table == n.QP_EV and _key(entity, "qp_index") == index
            and _key(entity, "ev_id") != 0):
        return None
    return entity


def _single_context(entry: TableEntry, index: int) -> TableEntry:
    params = dict(entry.params)
    if params["qp_index"] != index:
        return entry
    params.update(ev_slots=1, ev_mask=0, min_active=1, backups_per_plane=0)
    return entry._replace(params=tuple(params.items()))
