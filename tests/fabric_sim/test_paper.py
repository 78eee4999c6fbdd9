"""The MRC paper's testbed experiments (fabric/paper), each at its ``--quick`` size:
every claim of the "paper vs ours" table holds, or is an expected failure with its
reason, and each experiment writes its report and its figure.

`python -m fabric paper --only NAME --quick` runs one; the claims, their bounds (our
tolerances) and the expected failures are in fabric/paper/experiments.py, what each
experiment shows in docs/experiments.md."""

from __future__ import annotations

from collections import Counter, defaultdict

import pytest
from conftest import assert_claim, paper

from fabric.paper.experiments import EXPERIMENTS, PaperExperiment

CLAIMS = [(e.name, index, claim.what) for e in EXPERIMENTS
          for index, claim in enumerate(e.claims)]


@pytest.mark.parametrize(("name", "index"), [(name, index) for name, index, _ in CLAIMS],
                         ids=[f"{name}: {what}" for name, _, what in CLAIMS])
def test_claim(name: str, index: int) -> None:
    assert_claim(name, index)


@pytest.mark.parametrize("experiment", EXPERIMENTS, ids=[e.name for e in EXPERIMENTS])
def test_report_and_figure(experiment: PaperExperiment) -> None:
    result = paper(experiment.name)
    assert result.report["experiment"] == experiment.name
    assert [c["claim"] for c in result.report["claims"]] == [c.what for c in experiment.claims]
    assert all(s["checks"][0]["ok"] for s in result.report["scenarios"])  # intact
    with open(result.report["figure_file"], "rb") as png:
        assert png.read(8) == b"\x89PNG\r\n\x1a\n"


# Parametrized by the experiment's name, as the claims are, so that conftest puts it in
# fig16-17's xdist group and it reads the run the claims made instead of running it again.
@pytest.mark.parametrize("name", ["fig16-17"])
def test_a_scenario_two_files_share_runs_once(name: str) -> None:
    """fig16-17's ring at 512 KiB with 1 QP per peer is a point of the size sweep and
    of the QPs sweep: the suite runs it once and reports it under both names."""
    result = paper(name)
    size = next(e for e in result.points[0]
                if e.scenario.point == {"workloads.0.bytes": "512KiB"})
    qps = result.points[1][0]
    assert qps.scenario.point == {"workloads.0.qps_per_peer": 1}
    assert qps.runs is size.runs
    assert qps.report["scenario"] != size.report["scenario"]
    assert qps.report["figures"] == size.report["figures"]


@pytest.mark.parametrize("name", ["fig20"])
def test_fig20_n_is_the_flows_on_the_busiest_link_of_each_hashed_path(name: str) -> None:
    """Each RoCE flow's n counts the permutation's flows hashed onto its T0 uplink or
    its T1 downlink, whichever has more; the flows sharing an uplink share its capacity:
    their goodputs add up to at most one line rate (5 % slack: the line rate is one
    flow's goodput alone, with its latency), which they could not if n were wrong."""
    claims = paper(name).claims
    flows = next(c for c in claims if c["claim"].startswith("RoCE 1 QP: every flow at least"))
    assert len(flows["flows"]) == 16
    ups = Counter((f["path"][0], f["path"][1]) for f in flows["flows"])
    downs = Counter((f["path"][1], f["path"][2]) for f in flows["flows"])
    on_uplink: defaultdict[tuple[str, str], float] = defaultdict(float)
    for f in flows["flows"]:
        src_t0, t1, dst_t0 = f["path"]
        assert src_t0 != dst_t0  # across racks
        assert f["n"] == max(ups[(src_t0, t1)], downs[(t1, dst_t0)])
        on_uplink[(src_t0, t1)] += f["ratio"]
    assert max(f["n"] for f in flows["flows"]) >= 2  # seed 1 hashes some onto one spine
    assert max(on_uplink.values()) <= 1.05
