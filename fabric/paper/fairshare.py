"""Fig 20's RoCE shape: each flow of a workload against its fair share of the busiest
link on its hashed path. A RoCE QP takes one T1 (spine), picked by a hash as ECMP
picks it (``fabric.plan_overrides.ecmp_pins``); ``n`` flows hashed onto one T0 uplink
(or one T1 downlink) share it, so each should get about 1/n of the line rate. The line
rate is one flow's goodput alone on the idle fabric (the experiment's solo run).

These are measures of a whole experiment (the baseline's hashed paths, the solo run),
which is why they live here and not among the checks' per-run metrics."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..experiment import Experiment
from ..figures import qp_figures
from ..plan_overrides import ecmp_pins
from ..runner import load_plan

__all__ = ["PAPER_METRICS", "FlowShare", "PaperMetric", "flow_shares", "paper_value"]

Link = tuple[str, str]


@dataclass(frozen=True)
class FlowShare:
    qp: str
    path: tuple[str, str, str]  # sender's T0, T1, receiver's T0 (plane 0)
    n: int  # flows hashed onto the busiest link of the path
    ratio: float  # goodput / the line rate (one flow alone)

    @property
    def of_fair_share(self) -> float:
        return self.ratio * self.n


def _hashed_paths(experiment: Experiment, senders: dict[str, str]
                  ) -> dict[str, tuple[str, str, str]]:
    """Each QP's plane-0 path as the RoCE run pins it: the T1 its hash picks among
    the T1s both T0s reach (``plan_overrides``' rule; a scenario's ``pin`` wins)."""
    scenario = experiment.scenario
    plan = load_plan(scenario)
    fabric = plan.fabric
    pins = {**ecmp_pins(plan, scenario.seed), **scenario.pin}
    paths = {}
    for qp in fabric.qps:
        if qp.name not in senders:
            continue
        src, dst = sorted(qp.ends, key=lambda end: end.nic != senders[qp.name])
        src_t0 = fabric.nic_link(src.nic, 0).peer
        dst_t0 = fabric.nic_link(dst.nic, 0).peer
        t1s = fabric.common_t1s(0, src_t0, dst_t0)
        paths[qp.name] = (src_t0, t1s[pins[qp.name][0] % len(t1s)].name, dst_t0)
    return paths


def _line_rate(experiment: Experiment) -> float | None:
    """One flow's goodput alone on the idle fabric (the first solo run)."""
    for label, run in experiment.runs.items():
        if label.startswith("solo:"):
            return qp_figures(run, label.removeprefix("solo:")).get("goodput_gbps")
    return None


def flow_shares(experiment: Experiment, run: str, workload: str) -> list[FlowShare]:
    """Every flow of ``workload`` in run ``run``: its path, n and goodput ratio."""
    result = experiment.runs.get(run)
    line = _line_rate(experiment)
    if result is None or not line:
        return []
    prefix = f"{workload}:"
    senders = {w.qp: w.sender for w in result.writes if w.qp.startswith(prefix)}
    paths = _hashed_paths(experiment, senders)
    links: Counter[Link] = Counter()
    for src_t0, t1, dst_t0 in paths.values():
        links[(src_t0, t1)] += 1
        links[(t1, dst_t0)] += 1
    shares = []
    for qp, (src_t0, t1, dst_t0) in sorted(paths.items()):
        n = max(links[(src_t0, t1)], links[(t1, dst_t0)])
        goodput = qp_figures(result, qp).get("goodput_gbps", 0.0)
        shares.append(FlowShare(qp, (src_t0, t1, dst_t0), n, round(goodput / line, 3)))
    return shares


@dataclass(frozen=True)
class PaperMetric:
    unit: str
    of: Callable[[list[FlowShare]], float]


PAPER_METRICS: dict[str, PaperMetric] = {
    # the lowest and highest goodput of a flow as a share of 1/n of the line rate
    "fair_share_low": PaperMetric("x", lambda fs: min(f.of_fair_share for f in fs)),
    "fair_share_high": PaperMetric("x", lambda fs: max(f.of_fair_share for f in fs)),
    # the most flows hashed onto one link
    "most_flows_on_a_link": PaperMetric("", lambda fs: max(f.n for f in fs)),
}


def paper_value(experiment: Experiment, metric: str, run: str,
                workload: str) -> tuple[float | None, list[dict[str, Any]]]:
    """``metric`` of PAPER_METRICS, with the flows it was measured on."""
    shares = flow_shares(experiment, run, workload)
    if not shares:
        return None, []
    value = round(PAPER_METRICS[metric].of(shares), 3)
    return value, [{"qp": f.qp, "path": list(f.path), "n": f.n, "ratio": f.ratio,
                    "of_fair_share": round(f.of_fair_share, 3)} for f in shares]
