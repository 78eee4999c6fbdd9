"""A scenario's outcome from its runs: its checks (``fabric.checks``), each with its
value and bound, the figures they measured, and MRC against the baseline."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from controller.plan import FabricPlan

from .checks import evaluate, workload_figures
from .figures import run_figures
from .scenario import Scenario

if TYPE_CHECKING:
    from .runner import RunResult

__all__ = ["outcome"]


def outcome(scenario: Scenario, runs: dict[str, RunResult],
            plan: FabricPlan) -> dict[str, Any]:
    """The scenario's checks and figures from its runs (``mrc``, ``baseline``,
    ``solo:QP``); passed when every check holds."""
    checks, figures = evaluate(scenario, runs, plan)
    mrc = runs["mrc"]
    if any(g["type"] != "stream" for g in mrc.groups.values()):
        figures["workloads"] = {label: workload_figures(run) for label, run in runs.items()}
    if "baseline" in runs:
        base = run_figures(runs["baseline"], plan)
        ours = run_figures(mrc, plan)
        figures["vs_baseline"] = {key: {"mrc": ours[key], "baseline": base[key]}
                                  for key in ("completion_us", "goodput_gbps",
                                              "latency_p99_us")}
    return {"figures": figures, "checks": checks,
            "passed": all(c_["ok"] for c_ in checks)}
