"""The plan: pure functions from a fabric to what every device must hold, by P4Info name."""

from .entities import DigestConfig, Entity, Exact, Lpm, MulticastGroup, Replica, TableEntry
from .evs import EvPath, PlanePath, QpEndPlan
from .fabric_plan import FabricPlan, make_plan
from .summary import PlanSummary, summarize
from .usids import UsidPlan

__all__ = [
    "DigestConfig", "Entity", "EvPath", "Exact", "FabricPlan", "Lpm", "MulticastGroup",
    "PlanSummary", "PlanePath", "QpEndPlan", "Replica", "TableEntry", "UsidPlan",
    "make_plan", "summarize",
]
