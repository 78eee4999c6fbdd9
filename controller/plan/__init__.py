"""The plan: pure functions from a fabric to what every device must hold, by P4Info name."""

from .entities import DigestConfig, Entity, Exact, Lpm, MulticastGroup, Replica, TableEntry
from .evs import EvPath, PlanePath, QpEndPlan, backup_ev_id
from .fabric_plan import FabricPlan, TopUps, make_plan
from .failover import CONTROLLER_MAC, nic_planes_entry, planes_mask, port_status_frames
from .nic import qp_ev_entry
from .summary import PlanSummary, summarize
from .usids import UsidPlan

__all__ = [
    "CONTROLLER_MAC", "DigestConfig", "Entity", "EvPath", "Exact", "FabricPlan", "Lpm",
    "MulticastGroup", "PlanSummary", "PlanePath", "QpEndPlan", "Replica", "TableEntry",
    "TopUps", "UsidPlan",
    "backup_ev_id", "make_plan", "nic_planes_entry", "planes_mask", "port_status_frames",
    "qp_ev_entry", "summarize",
]
