"""The paths (EVs) of one end of a QP: its sprayed set split equally over the planes, its
backups, and the peer's destination on every plane.

Slot ``s`` holds EV id ``s`` on plane ``s % planes`` (consecutive slots alternate
planes). The backups of plane ``p`` are EV ids ``NIC_EV_BACKUP_BASE + p *
backup_ids_per_plane + i``, always on plane ``p``, so a retired EV is replaced within
its plane and each plane keeps its share [paper]. The first ``backups_per_plane`` of
them are configured at first; the controller tops the others up one at a time, in id
order, as retirements use them (docs/mrc-nic.md 5), so backup ``i`` of a plane always
has the same path whether it was planned or topped up. Within a plane, the QP end's EVs take the
T1s cabled to both T0s in turn from an offset drawn from the QP and NIC names (stable
from run to run), so different QPs load different T1s; backups continue the turn, onto
T1s the slots do not use while there are any.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from zlib import crc32

from controller.topology import Fabric, QpDecl, QpEnd
from protocol import constants as c
from protocol.usid import usid_carrier

from .usids import UsidPlan


@dataclass(frozen=True, slots=True)
class EvPath:
    ev_id: int
    slot: int | None  # the slot it starts in; None for a backup
    plane: int
    t1: str
    t1_usid: int
    ev: int
    carrier: str  # the outer destination address of its packets


@dataclass(frozen=True, slots=True)
class PlanePath:
    """One plane as this end sees it: its own T0, and the peer's T0 and downlink."""

    plane: int
    port: int
    src_t0: str
    src_t0_usid: int
    dst_t0: str
    dst_t0_usid: int
    down_usid: int


@dataclass(frozen=True, slots=True)
class QpEndPlan:
    qp: QpDecl
    local: QpEnd
    remote: QpEnd
    planes: tuple[PlanePath, ...]
    evs: tuple[EvPath, ...]  # the slots' EVs by slot, then the backups by id

    @property
    def ev_slots(self) -> int:
        return self.qp.evs_per_plane * len(self.planes)

    @property
    def ev_mask(self) -> int:
        """Rotation length - 1: the smallest power of two that covers every slot, - 1."""
        return (1 << (self.ev_slots - 1).bit_length()) - 1


def backup_ev_id(qp: QpDecl, plane: int, index: int) -> int:
    """EV id of backup ``index`` of ``plane``."""
    return c.NIC_EV_BACKUP_BASE + plane * qp.backup_ids_per_plane + index


def plan_qp_end(fabric: Fabric, usids: UsidPlan, qp: QpDecl, side: int,
                topped_up: Mapping[int, int] | None = None) -> QpEndPlan:
    """The EVs and paths of end ``side`` (0 or 1) of ``qp``, sending to the other end;
    ``topped_up[plane]``: backups the controller added on that plane since."""
    local, remote = qp.ends[side], qp.ends[1 - side]
    planes = []
    t1s = []
    for plane in range(fabric.planes):
        src = fabric.nic_link(local.nic, plane)
        dst = fabric.nic_link(remote.nic, plane)
        planes.append(PlanePath(
            plane=plane, port=src.port, src_t0=src.peer, src_t0_usid=usids.node(src.peer),
            dst_t0=dst.peer, dst_t0_usid=usids.node(dst.peer),
            down_usid=usids.down(plane, dst.peer_port)))
        t1s.append(fabric.common_t1s(plane, src.peer, dst.peer))
    offset = crc32(f"{qp.name}/{local.nic}".encode())

    def path(ev_id: int, slot: int | None, plane: int, turn: int) -> EvPath:
        candidates = t1s[plane]
        t1 = candidates[(offset + turn) % len(candidates)]
        t1_usid = usids.node(t1.name)
        via = planes[plane]
        carrier = usid_carrier(usids.block, [via.src_t0_usid, t1_usid, via.dst_t0_usid,
                                             via.down_usid])
        return EvPath(ev_id=ev_id, slot=slot, plane=plane, t1=t1.name, t1_usid=t1_usid,
                      ev=c.ev_value(t1_usid, ev_id), carrier=carrier)

    count = len(planes)
    evs = [path(slot, slot, slot % count, slot // count)
           for slot in range(qp.evs_per_plane * count)]
    for plane in range(count):
        extra = topped_up.get(plane, 0) if topped_up else 0
        backups = min(qp.backups_per_plane + extra, qp.backup_ids_per_plane)
        for i in range(backups):
            evs.append(path(backup_ev_id(qp, plane, i), None, plane, qp.evs_per_plane + i))
    return QpEndPlan(qp=qp, local=local, remote=remote, planes=tuple(planes), evs=tuple(evs))
