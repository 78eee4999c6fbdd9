"""Each scenario's experiment runs once per test session, at its ``--quick`` size."""

from __future__ import annotations

from functools import cache
from pathlib import Path

from fabric.experiment import Experiment, run_experiment
from fabric.scenario import Scenario, load_scenario

SCENARIOS = Path(__file__).resolve().parents[2] / "fabric" / "scenarios"


def quick(name: str) -> Scenario:
    scenario = load_scenario(SCENARIOS / f"{name}.yaml")
    return scenario.scaled(scenario.quick_scale)


@cache
def experiment(name: str) -> Experiment:
    return run_experiment(quick(name))
