"""A scenario's whole experiment: the MRC run, the baseline run and the solo runs its
checks compare against, then the outcome and the figures.

Every run starts from a fresh network and the same seed, so an experiment is
deterministic: the same scenario file and seed give the same report.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .checks import validate_checks
from .figures import goodput_series, run_figures
from .outcomes import outcome
from .runner import RunResult, load_plan, run_scenario
from .scenario import Scenario

# (run label, fraction of its bytes delivered) while an experiment runs.
ProgressFn = Callable[[str, float], None]


@dataclass
class Experiment:
    scenario: Scenario
    runs: dict[str, RunResult]
    report: dict[str, Any]


def run_labels(scenario: Scenario) -> list[str]:
    """The runs of a scenario, in the order they are made."""
    labels = ["mrc"]
    if scenario.baseline != "none":
        labels.append("baseline")
    labels.extend(f"solo:{qp}" for qp in scenario.solo_qps())
    return labels


def run_experiment(scenario: Scenario, progress: ProgressFn | None = None,
                   procs: int = 1) -> Experiment:
    """Every run of ``scenario`` (``run_labels``), each on ``procs`` processes at most."""
    validate_checks(scenario)
    runs: dict[str, RunResult] = {}
    for label in run_labels(scenario):
        mode, _, only = label.partition(":")
        tick = (lambda f, label=label: progress(label, f)) if progress else None
        runs[label] = run_scenario(scenario, "mrc" if mode == "solo" else mode,
                                   (only,) if only else (), tick, procs)
        if progress is not None:
            progress(label, 1.0)
    plan = load_plan(scenario)
    result = outcome(scenario, runs, plan)
    report = {
        "scenario": scenario.name,
        "point": scenario.point,
        "description": scenario.description.strip(),
        "file": scenario.path,
        "topology": str(scenario.topology_path()),
        "seed": scenario.seed,
        "passed": result["passed"],
        "checks": result["checks"],
        "figures": result["figures"],
        "runs": {label: {**run_figures(run, plan), "goodput_series_gbps": _series(run)}
                 for label, run in runs.items()},
    }
    return Experiment(scenario, runs, report)


def _series(run: RunResult) -> dict[str, Any]:
    times, values = goodput_series(run)
    return {"bin_us": run.metrics.bin_us, "gbps": [round(v, 3) for v in values],
            "start_us": times[0] if times else 0}
