"""The plan: pure functions from a fabric to what every device must hold, by P4Info name."""

from .entities import DigestConfig, Entity, Exact, Lpm, MulticastGroup, Replica, TableEntry
from .evs import EvPath, PlanePath, QpEndPlan, backup_ev_id
from .fabric_plan import FabricPlan, TopUps, make_plan
from .nic import qp_ev_entry
from .summary import PlanSummary, summarize
from .usids import UsidPlan

__all__ = [
    "DigestConfig", "Entity", "EvPath", "Exact", "FabricPlan", "Lpm", "MulticastGroup",
    "PlanSummary", "PlanePath", "QpEndPlan", "Replica", "TableEntry", "TopUps", "UsidPlan",
    "backup_ev_id", "make_plan", "qp_ev_entry", "summarize",
]
