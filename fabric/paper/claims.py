"""A paper experiment's claims: what the paper shows, its number, and ours measured by
a check (a metric with the bound that is our tolerance), in one sweep point's runs, or
as the ratio of two measurements (``versus``). A metric of ``fairshare.PAPER_METRICS``
measures the whole experiment (hashed paths, solo run) instead of one run."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..checks import METRICS, fmt, measure
from ..experiment import Experiment
from ..runner import load_plan
from ..scenario import Check
from .fairshare import PAPER_METRICS, paper_value

__all__ = ["Claim", "Measure", "judge"]


@dataclass(frozen=True)
class Measure:
    """A metric (of ``qp`` or ``workload``) in run ``run`` of the sweep point whose
    values include ``point`` (of the experiment's ``scenario``-th file)."""

    metric: str
    run: str = "mrc"
    point: tuple[tuple[str, Any], ...] = ()
    qp: str | None = None
    workload: str | None = None
    scenario: int = 0

    def check(self, compare: str = ">=", bound: float = 0.0) -> Check:
        return Check(metric=self.metric, run=self.run, qp=self.qp, workload=self.workload,
                     compare=compare, bound=bound)  # type: ignore[arg-type]


@dataclass(frozen=True)
class Claim:
    what: str  # the paper's statement, as its "what must show"
    paper: str  # the paper's number
    measure: Measure
    compare: str
    bound: float
    versus: Measure | None = None  # ours = measure / versus
    # why it does not hold yet (work in progress elsewhere): an expected failure
    expected_failure: str = ""
    notes: dict[str, Any] = field(default_factory=dict)


def _find(experiments: list[list[Experiment]], m: Measure) -> Experiment | None:
    for experiment in experiments[m.scenario]:
        if all(experiment.scenario.point.get(k) == v for k, v in m.point):
            return experiment
    return None


def _value(experiments: list[list[Experiment]], m: Measure
           ) -> tuple[float | None, list[dict[str, Any]]]:
    """The measure's value, and the flows it was measured on (a paper metric's)."""
    experiment = _find(experiments, m)
    if experiment is None:
        return None, []
    if m.metric in PAPER_METRICS:
        return paper_value(experiment, m.metric, m.run, m.workload or "")
    return measure(m.check(), experiment.scenario, experiment.runs,
                   load_plan(experiment.scenario)).value, []


def judge(claim: Claim, experiments: list[list[Experiment]]) -> dict[str, Any]:
    """The claim's row of the "paper vs ours" table."""
    value, flows = _value(experiments, claim.measure)
    metric = claim.measure.metric
    unit = (PAPER_METRICS[metric] if metric in PAPER_METRICS else METRICS[metric]).unit
    if claim.versus is not None:
        other, _ = _value(experiments, claim.versus)
        value = round(value / other, 3) if value is not None and other else None
        unit = "x"
    check = claim.measure.check(claim.compare, claim.bound)
    ok = check.holds(value)
    if ok:
        result = "pass"
    elif claim.expected_failure:
        result = "expected failure"
    else:
        result = "FAIL"
    row = {"claim": claim.what, "paper": claim.paper,
           "ours": fmt(value, unit), "value": value,
           "bound": f"{claim.compare} {fmt(claim.bound, unit)}", "result": result,
           "ok": ok, "why": claim.expected_failure}
    if flows:
        row["flows"] = flows
    return row
