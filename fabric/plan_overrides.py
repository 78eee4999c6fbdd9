"""What a scenario changes in the controller's plan: a QP reduced to a single fixed
path (the baseline: one EV per QP, like ECMP-hashed RoCE) and slots pinned to chosen
T1s (two QPs forced onto one path). ``OverriddenPlan`` is a ``FabricPlan`` whose NIC
entries are rewritten so; the controller applies it (and reconciles against it) like
any plan, over P4Runtime, so no device is configured behind its back.

* ``single_path``: ``qp_context`` gets ``ev_slots`` 1, ``ev_mask`` 0, ``min_active`` 1
  and no backups, and only EV id 0 (slot 0, on plane 0) keeps its ``qp_ev`` entry. A
  loss report then meets the floor and changes nothing: the QP stays on its path, as a
  hashed flow does until routing moves it.
* ``pin``: slot ``s`` (plane ``s % planes``, ``s // planes``-th of its plane) takes the
  T1 of the given index among the T1s cabled to both ends' T0s on that plane.
* ``no_trimming``: the switches get no ``trim_config`` entry, so no packet is trim
  eligible and a full queue drops its tail (the RoCE baseline: RoCE has no trimming).
* ``ecn_to_nics``: the switches' NIC-facing ports mark ECN as their fabric-facing ones
  do (the RoCE baseline: DCQCN's switches mark every port of the lossless class, the
  last hop of an incast too; MRC's leave it to trimming).
* ``ecmp_pins``: every QP's slot 0 on the T1 a hash of its name and QPNs picks, as ECMP
  hashes a flow's 5-tuple (the QPN is in it through the UDP source port RoCE NICs
  derive from it): several QPs hash to the same T1 as often as chance has it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from hashlib import blake2s

from controller.plan import Entity, FabricPlan, TableEntry
from controller.plan import p4names as n
from controller.plan.fabric_plan import TopUps
from controller.topology import QpDecl

__all__ = ["OverriddenPlan", "override"]


@dataclass(frozen=True)
class OverriddenPlan(FabricPlan):
    single_path: frozenset[str] = frozenset()
    # (QP, T1 index of each slot), a tuple so that the plan stays hashable
    pins: tuple[tuple[str, tuple[int, ...]], ...] = ()
    no_trimming: bool = False
    ecn_to_nics: bool = False

    def device_entities(self, name: str, topped_up: TopUps | None = None) -> list[Entity]:
        """The device's planned entities with the overrides applied."""
        entities = super().device_entities(name, topped_up)
        if self.no_trimming:
            entities = [e for e in entities
                        if not (isinstance(e, TableEntry) and e.table == n.TRIM_CONFIG)]
        if self.ecn_to_nics:
            entities = [self._marking(e) for e in entities]
        sides = self.qp_sides.get(name, ())
        for qp, side in sides:
            index = qp.ends[side].qp_index
            pin = dict(self.pins).get(qp.name)
            if pin is not None:
                entities = [self._pinned(e, qp, side, index, pin) for e in entities]
            if qp.name in self.single_path:
                entities = [s for e in entities
                            if (s := _single_path(e, index)) is not None]
        return entities

    def _marking(self, entity: Entity) -> Entity:
        if not (isinstance(entity, TableEntry) and entity.action == n.DISABLE_ECN_MARKING):
            return entity
        return entity._replace(action=n.SET_ECN_THRESHOLDS,
                               params=(("low", self.fabric.ecn_low),
                                       ("high", self.fabric.ecn_high)))

    def _pinned(self, entity: Entity, qp: QpDecl, side: int, index: int,
                pin: Sequence[int]) -> Entity:
        if not (isinstance(entity, TableEntry) and entity.table == n.QP_EV
                and _key(entity, "qp_index") == index):
            return entity
        slot = _key(entity, "ev_id")
        if slot >= len(pin):
            return entity
        fabric = self.fabric
        planes = fabric.planes
        local, remote = qp.ends[side], qp.ends[1 - side]
        plane = slot % planes
        t1s = fabric.common_t1s(plane, fabric.nic_link(local.nic, plane).peer,
                                fabric.nic_link(remote.nic, plane).peer)
        t1 = t1s[pin[slot] % len(t1s)]
        return entity._replace(params=(("t1_usid", self.usids.node(t1.name)),))


def override(plan: FabricPlan, single_path: Sequence[str] = (),
             pins: Mapping[str, Sequence[int]] | None = None,
             no_trimming: bool = False, ecn_to_nics: bool = False) -> OverriddenPlan:
    return OverriddenPlan(fabric=plan.fabric, usids=plan.usids, qp_sides=plan.qp_sides,
                          single_path=frozenset(single_path),
                          pins=tuple((qp, tuple(t1s)) for qp, t1s in (pins or {}).items()),
                          no_trimming=no_trimming, ecn_to_nics=ecn_to_nics)


def ecmp_pins(plan: FabricPlan, seed: int) -> dict[str, list[int]]:
    """Slot 0 of every QP on a T1 picked by a hash of the QP (``seed`` varies the hash
    as switches' hash seeds do); ``_pinned`` takes it modulo the T1s in reach."""
    pins = {}
    for qp in plan.fabric.qps:
        key = f"{seed}:{qp.name}:{qp.ends[0].qpn}:{qp.ends[1].qpn}".encode()
        pins[qp.name] = [int.from_bytes(blake2s(key, digest_size=4).digest(), "big")]
    return pins


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
