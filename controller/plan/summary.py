"""The size of a plan: entries per device and per table, by role, and totals.

Entities are built for one device of each ``DeviceGroup`` (devices a group says are
alike have equal counts), so the 131,072-NIC shape is sized from a handful of devices;
``scripts/bench_controller.py`` also builds every device once to check the totals.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

from controller.topology import Role

from .entities import entity_kind
from .fabric_plan import FabricPlan
from .usids import UsidPlan


@dataclass(frozen=True, slots=True)
class TableSize:
    kind: str  # a table's P4Info name, "pre.multicast_group" or "digest"
    min_per_device: int
    max_per_device: int
    total: int


@dataclass(frozen=True, slots=True)
class RoleSize:
    role: Role
    devices: int
    min_per_device: int
    max_per_device: int
    total: int
    tables: tuple[TableSize, ...]


@dataclass(frozen=True, slots=True)
class PlanSummary:
    name: str
    source: str
    planes: int
    usid_block: str
    qps: int
    roles: tuple[RoleSize, ...]

    @property
    def devices(self) -> int:
        return sum(r.devices for r in self.roles)

    @property
    def total(self) -> int:
        return sum(r.total for r in self.roles)

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name, "topology": self.source, "planes": self.planes,
            "usid_block": self.usid_block, "qps": self.qps, "devices": self.devices,
            "entries": self.total,
            "roles": [{
                "role": str(r.role), "devices": r.devices, "entries": r.total,
                "per_device": {"min": r.min_per_device, "max": r.max_per_device},
                "tables": [{"table": t.kind, "entries": t.total,
                            "per_device": {"min": t.min_per_device, "max": t.max_per_device}}
                           for t in r.tables],
            } for r in self.roles],
        }


def format_block(usids: UsidPlan) -> str:
    block = usids.block
    return f"{block >> 16:x}:{block & 0xFFFF:x}::/32"


def summarize(plan: FabricPlan) -> PlanSummary:
    """Count every device's entities, one device per group."""
    by_role: dict[Role, list[tuple[Counter[str], int]]] = {}
    for group in plan.fabric.device_groups():
        counts = Counter(entity_kind(e) for e in plan.device_entities(group.representative))
        by_role.setdefault(group.role, []).append((counts, group.members))
    roles = []
    for role in (Role.T1, Role.T0, Role.NIC):
        groups = by_role.get(role)
        if not groups:
            continue
        kinds = list(dict.fromkeys(kind for counts, _ in groups for kind in counts))
        tables = tuple(TableSize(
            kind=kind,
            min_per_device=min(counts[kind] for counts, _ in groups),
            max_per_device=max(counts[kind] for counts, _ in groups),
            total=sum(counts[kind] * members for counts, members in groups),
        ) for kind in kinds)
        per_device = [counts.total() for counts, _ in groups]
        roles.append(RoleSize(
            role=role, devices=sum(members for _, members in groups),
            min_per_device=min(per_device), max_per_device=max(per_device),
            total=sum(t.total for t in tables), tables=tables))
    fabric = plan.fabric
    return PlanSummary(name=fabric.name, source=fabric.source, planes=fabric.planes,
                       usid_block=format_block(plan.usids), qps=len(fabric.qps),
                       roles=tuple(roles))
