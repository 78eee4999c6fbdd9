"""Each scenario's experiment, and each paper experiment, runs once per test session,
at its ``--quick`` size."""

from __future__ import annotations

import tempfile
from functools import cache
from pathlib import Path

import pytest

from fabric.experiment import Experiment, run_experiment
from fabric.paper.experiments import EXPERIMENTS
from fabric.paper.plots import write_figure
from fabric.paper.suite import PaperResult, plan_suite, run_paper_experiment
from fabric.scenario import Scenario, load_scenario

SCENARIOS = Path(__file__).resolve().parents[2] / "fabric" / "scenarios"


def quick(name: str) -> Scenario:
    scenario = load_scenario(SCENARIOS / f"{name}.yaml")
    return scenario.scaled(scenario.quick_scale)


@cache
def experiment(name: str) -> Experiment:
    return run_experiment(quick(name))


@cache
def paper(name: str) -> PaperResult:
    """A paper experiment (fabric/paper) at its ``--quick`` size, once per session;
    its figure and JSON go to a temporary folder."""
    (experiment,) = [e for e in EXPERIMENTS if e.name == name]
    ((_, points),) = plan_suite([experiment], quick=True)
    out = Path(tempfile.mkdtemp(prefix=f"paper-{name}-"))
    result = run_paper_experiment(experiment, points, out)
    result.report["figure_file"] = str(write_figure(result, out))
    return result


def assert_claim(name: str, index: int) -> None:
    """The experiment's claim holds; a claim with a stated reason why it does not hold
    yet is an expected failure (xfail, with the reason and what we measured)."""
    result = paper(name)
    claim = result.claims[index]
    if not claim["ok"] and claim["why"]:
        pytest.xfail(f"{claim['claim']}: ours {claim['ours']} ({claim['why']})")
    assert claim["ok"], claim
