"""Running the paper experiments: every sweep point of every scenario file of each
experiment (MRC and its baseline, solo runs where a claim needs one), then the claims
("paper vs ours"), a JSON report and a figure per experiment."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..checks import validate_checks
from ..experiment import Experiment, run_experiment, run_labels
from ..report import write_json
from ..scenario import Scenario, load_scenarios
from .claims import judge
from .experiments import PaperExperiment

__all__ = ["PaperResult", "plan_suite", "run_paper_experiment", "SCENARIOS"]

SCENARIOS = Path(__file__).resolve().parent / "scenarios"

# (experiment, scenario point name, run label, fraction done)
Tick = Callable[[str, str, str, float], None]


@dataclass
class PaperResult:
    experiment: PaperExperiment
    points: list[list[Experiment]]  # per scenario file, per sweep point
    claims: list[dict[str, Any]]
    report: dict[str, Any]


def scenarios_of(experiment: PaperExperiment, quick: bool,
                 seed: int | None = None) -> list[list[Scenario]]:
    """Every sweep point of each of the experiment's files (``--quick``: each file's
    ``quick_scale`` of the bytes; ``seed`` instead of the files' seeds)."""
    out = []
    for name in experiment.scenarios:
        points = load_scenarios((SCENARIOS / name).resolve())
        for point in points:
            validate_checks(point)
        if seed is not None:
            points = [p.model_copy(update={"seed": seed}) for p in points]
        out.append([p.scaled(p.quick_scale) if quick else p for p in points])
    return out


def plan_suite(experiments: list[PaperExperiment], quick: bool,
               seed: int | None = None) -> list[tuple[PaperExperiment, list[list[Scenario]]]]:
    """The scenarios each experiment runs (loaded first, so a bad file stops the
    suite before anything runs)."""
    return [(e, scenarios_of(e, quick, seed)) for e in experiments]


def run_labels_of(points: list[list[Scenario]]) -> list[tuple[str, str]]:
    """(point name, run label) of every run, in order: for the progress bar."""
    return [(p.name, label) for file in points for p in file for label in run_labels(p)]


def run_paper_experiment(experiment: PaperExperiment, points: list[list[Scenario]],
                         out: Path, tick: Tick | None = None, procs: int = 1) -> PaperResult:
    done: list[list[Experiment]] = []
    seen: dict[str, Experiment] = {}
    for file in points:
        done.append([])
        for scenario in file:
            progress = (lambda label, f, s=scenario.name: tick(experiment.name, s, label, f)
                        ) if tick else None
            key = _runs_key(scenario)
            if key in seen:
                done[-1].append(_same_runs(seen[key], scenario, progress))
            else:
                seen[key] = run_experiment(scenario, progress, procs)
                done[-1].append(seen[key])
    claims = [judge(claim, done) for claim in experiment.claims]
    report = {
        "experiment": experiment.name, "figure": experiment.figure,
        "title": experiment.title,
        "passed": all(c["ok"] or c["result"] == "expected failure" for c in claims),
        "claims": claims,
        "scenarios": [e.report for file in done for e in file],
    }
    write_json(report, out / f"{experiment.name}.json")
    return PaperResult(experiment, done, claims, report)


# What does not change a run: a point of two files can be the same scenario (fig16-17's
# ring at 512 KiB with 1 QP per peer is in the size sweep and in the QPs sweep).
_NOT_RUN = {"name", "description", "path", "point", "sweep", "quick_scale"}


def _runs_key(scenario: Scenario) -> str:
    return scenario.model_dump_json(exclude=_NOT_RUN)


def _same_runs(ran: Experiment, scenario: Scenario,
               progress: Callable[[str, float], None] | None) -> Experiment:
    """The runs of an identical scenario already run, reported under this one's name."""
    if progress is not None:
        for label in ran.runs:
            progress(label, 1.0)
    report = {**ran.report, "scenario": scenario.name, "point": scenario.point,
              "description": scenario.description.strip(), "file": scenario.path}
    return Experiment(scenario, ran.runs, report)
