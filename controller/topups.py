"""Backups the controller has topped up since the plan, and where that knowledge lives.

The plan configures the first ``backups_per_plane`` backup ids of each plane's range;
after each retirement the controller adds the next id of that plane (docs/mrc-nic.md
5). Backup ``i`` of a plane has one path whether planned or topped up (``plan.evs``),
so the desired state of a NIC is the plan plus, per QP end and plane, *how many*
backups were added. That count lives in two places:

- in the controller's memory (``TopUpBook``) while it runs: after a NIC restarts and
  loses its tables, the whole desired state, top-ups included, is written back;
- on the NICs themselves: ``apply`` (a new controller process) *adopts* the top-ups it
  finds, i.e. the backup ids past the planned ones that hold exactly their planned
  path, contiguous from the first unplanned id. So ``apply`` after ``watch`` topped
  backups up deletes nothing and writes nothing, and no state file is needed.
"""

from __future__ import annotations

import threading

from controller.plan import EvPath, FabricPlan, TopUps, backup_ev_id, qp_ev_entry
from p4rt_client import P4InfoHelper

from .device.encoding import State, desired_state


class TopUpBook:
    """Per NIC, per QP index, per plane: backups added beyond the plan. Thread-safe."""

    def __init__(self) -> None:
        self._extra: dict[str, dict[int, dict[int, int]]] = {}
        self._lock = threading.Lock()

    def of(self, nic: str) -> dict[int, dict[int, int]]:
        with self._lock:
            return {q: dict(planes) for q, planes in self._extra.get(nic, {}).items()}

    def merge(self, nic: str, found: TopUps) -> None:
        """Keep the larger count of each (QP, plane): what a NIC holds is never less
        than what this controller added."""
        with self._lock:
            book = self._extra.setdefault(nic, {})
            for qp_index, planes in found.items():
                mine = book.setdefault(qp_index, {})
                for plane, extra in planes.items():
                    mine[plane] = max(mine.get(plane, 0), extra)

    def take_next(self, plan: FabricPlan, nic: str, qp_index: int, plane: int
                  ) -> EvPath | None:
        """Count one more backup for (QP, plane) and return its path; None when the
        QP is unknown or the plane's backup-id range is full."""
        found = plan.qp_at(nic, qp_index)
        if found is None:
            return None
        qp, side = found
        with self._lock:
            planes = self._extra.setdefault(nic, {}).setdefault(qp_index, {})
            extra = planes.get(plane, 0)
            index = qp.backups_per_plane + extra
            if index >= qp.backup_ids_per_plane or plane >= plan.fabric.planes:
                return None
            planes[plane] = extra + 1
        end = plan.qp_end(qp, side, {plane: extra + 1})
        ev_id = backup_ev_id(qp, plane, index)
        return next(ev for ev in end.evs if ev.ev_id == ev_id)


def found_top_ups(plan: FabricPlan, nic: str, helper: P4InfoHelper, current: State) -> TopUps:
    """The top-ups NIC ``nic`` holds (see the module's docstring)."""
    found: dict[int, dict[int, int]] = {}
    for qp, side in plan.qp_sides.get(nic, ()):
        index = qp.ends[side].qp_index
        full = plan.qp_end(qp, side, dict.fromkeys(range(plan.fabric.planes),
                                                   qp.backup_ids_per_plane))
        paths = {ev.ev_id: ev for ev in full.evs}
        for plane in range(plan.fabric.planes):
            extra = 0
            for i in range(qp.backups_per_plane, qp.backup_ids_per_plane):
                wanted = desired_state(helper, [qp_ev_entry(index, paths[
                    backup_ev_id(qp, plane, i)])])
                (key, (value, _)), = wanted.items()
                if key not in current or current[key][0] != value:
                    break
                extra += 1
            if extra:
                found.setdefault(index, {})[plane] = extra
    return found
