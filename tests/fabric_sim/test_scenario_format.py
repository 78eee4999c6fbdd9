"""The scenario file format without running anything: workloads by type, checks,
sweeps, and one ``FILE: PLACE: PROBLEM`` line per problem of a bad file."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import SCENARIOS

from fabric.checks import validate_checks
from fabric.cli import main
from fabric.scenario import Check, ScenarioError, load_scenario, load_scenarios
from fabric.workloads.flows import expand
from fabric.workloads.specs import AllReduce, Workload

TOPOLOGY = SCENARIOS.parent / "topologies" / "small.yaml"


def write(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "s.yaml"
    path.write_text(f"name: s\ntopology: {TOPOLOGY}\n{body}")
    return path


def problems(path: Path) -> list[str]:
    with pytest.raises(ScenarioError) as err:
        for scenario in load_scenarios(path):
            validate_checks(scenario)
    return str(err.value).splitlines()


def test_the_default_scenarios_are_files_with_checks() -> None:
    for name in ("spray", "link-failure", "ecn-steer", "incast"):
        scenario = load_scenario(SCENARIOS / f"{name}.yaml")
        validate_checks(scenario)
        assert scenario.checks, name
    steer = load_scenario(SCENARIOS / "ecn-steer.yaml")
    assert steer.solo_qps() == ["qp-a", "qp-b"]  # solo runs follow from the checks


def test_a_workload_without_type_is_a_stream(tmp_path: Path) -> None:
    scenario = load_scenario(write(tmp_path, """workloads:
  - {qp: qp-a, bytes: 4KiB}
  - {type: all-reduce, ranks: [nic0, nic1, nic2, nic3], bytes: 64KiB}
"""))
    stream, ring = scenario.workloads
    assert isinstance(stream, Workload) and isinstance(ring, AllReduce)


def test_sweeps_make_one_scenario_per_combination(tmp_path: Path) -> None:
    points = load_scenarios(write(tmp_path, """workloads: [{qp: qp-a, bytes: 4KiB}]
failures: [{at_us: 10, link: "p0-t0-0:4", action: loss, rate: 0}]
sweep:
  - {parameter: failures.0.rate, values: [0.0, 0.01]}
  - {parameter: network.link_rate_gbps, values: [10, 40]}
"""))
    assert [p.name for p in points] == [
        "s[failures.0.rate=0.0,network.link_rate_gbps=10]",
        "s[failures.0.rate=0.0,network.link_rate_gbps=40]",
        "s[failures.0.rate=0.01,network.link_rate_gbps=10]",
        "s[failures.0.rate=0.01,network.link_rate_gbps=40]"]
    assert [(p.failures[0].rate, p.network.link_rate_gbps) for p in points] == [
        (0.0, 10), (0.0, 40), (0.01, 10), (0.01, 40)]
    assert points[3].point == {"failures.0.rate": 0.01, "network.link_rate_gbps": 40}


def test_a_sweep_value_that_does_not_fit_is_one_line(tmp_path: Path) -> None:
    lines = problems(write(tmp_path, """workloads: [{qp: qp-a, bytes: 4KiB}]
sweep: [{parameter: network.link_rate_gbps, values: [10, -1]}]
"""))
    assert len(lines) == 1
    assert "[network.link_rate_gbps=-1] network.link_rate_gbps:" in lines[0]
    lines = problems(write(tmp_path, """workloads: [{qp: qp-a, bytes: 4KiB}]
sweep: [{parameter: failures.3.rate, values: [0.1]}]
"""))
    assert lines == [f"{tmp_path / 's.yaml'}: sweep: 'failures.3.rate' is not a place in "
                     "the file (e.g. failures.0.rate)"]


def test_bad_checks_and_workloads_one_line_each(tmp_path: Path) -> None:
    path = write(tmp_path, """workloads:
  - {type: all-reduce, ranks: [nic0, nic0], bytes: 4KiB}
  - {type: broadcast, bytes: 4KiB}
checks: [{metric: speed, compare: ">", bound: 1}]
""")
    lines = problems(path)
    assert any(f"{path}: workloads.0: Value error" in line or
               f"{path}: workloads.0:" in line and "named twice" in line for line in lines)
    assert any(f"{path}: workloads.1:" in line and "unknown workload type" in line
               for line in lines)
    path = write(tmp_path, """workloads: [{qp: qp-a, bytes: 4KiB}]
checks:
  - {metric: speed, compare: ">", bound: 1}
  - {metric: path_share_deviation, compare: "<=", bound: 0.1}
  - {metric: busbw_gbps, workload: ring, compare: ">", bound: 1}
  - {metric: ce_marks, compare: "~", bound: 1}
""")
    lines = problems(path)
    assert lines == [f"{path}: checks.3.compare: Input should be '<=', '>=', '<', '>' or '=='"]
    path.write_text(path.read_text().replace('compare: "~"', 'compare: ">"'))
    lines = problems(path)
    assert lines[0].startswith(f"{path}: checks[0].metric: unknown metric 'speed' (known: ")
    assert lines[1:] == [
        f"{path}: checks[1]: path_share_deviation needs a qp",
        f"{path}: checks[2].workload: busbw_gbps needs a workload of the file (one of: w0)"]


def test_cli_reports_bad_checks_exit_2(tmp_path: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, "workloads: [{qp: qp-a, bytes: 4KiB}]\n"
                           "checks: [{metric: speed, compare: '>', bound: 1}]\n")
    assert main(["run", str(path), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert "unknown metric 'speed'" in err and "Traceback" not in err


@pytest.mark.parametrize(("compare", "value", "holds"), [
    ("<=", 0.1, True), ("<=", 0.2, False), (">", 0.0, False), (">=", 0.1, True),
    ("==", 0.1, True), ("<", None, False)])
def test_a_check_compares_its_value_with_its_bound(compare: str, value: float | None,
                                                   holds: bool) -> None:
    check = Check(metric="x", compare=compare, bound=0.1)  # type: ignore[arg-type]
    assert check.holds(value) is holds


def test_time_bounds_scale_with_the_clock() -> None:
    time_check = Check(metric="ev_retired_after_us", compare="<=", bound=100)
    count_check = Check(metric="ce_marks", compare=">", bound=0)
    assert time_check.time_scaled(1000).bound == 100_000
    assert count_check.time_scaled(1000).bound == 0


def test_ring_all_reduce_steps_wait_for_the_previous_rank() -> None:
    ring = AllReduce(type="all-reduce", ranks=["a", "b", "c"], bytes=3000)
    out = expand([ring])
    n = 3
    assert len(out.flows) == 2 * (n - 1) * n  # 2(n-1) steps, a write per rank each
    assert {q["name"] for q in out.qps} == {"w0:a>b", "w0:b>c", "w0:c>a"}
    assert all(f.bytes == 1000 for f in out.flows)  # bytes / n per step
    first, second = out.flows[:n], out.flows[n:2 * n]
    assert all(f.after == () for f in first)
    # step 1 of rank b (index 1) waits for step 0 of rank a (0) and of itself (1)
    assert second[1].after == (0, 1)
    assert out.groups[0].bytes == 3000 and out.groups[0].ranks == 3


def test_all_to_all_and_qps_per_peer_split_the_data() -> None:
    spec = {"type": "all-to-all", "ranks": ["a", "b", "c", "d"], "bytes": 4096,
            "qps_per_peer": 2}
    from fabric.workloads.specs import AllToAll
    out = expand([AllToAll.model_validate(spec)])
    assert len(out.qps) == 12 * 2  # every ordered pair, two QPs each
    assert sum(f.bytes for f in out.flows) == 12 * 1024  # bytes / n to each peer
    assert {f.bytes for f in out.flows} == {512}


def test_all_to_all_posts_each_rank_s_peers_in_nccl_s_p2p_order() -> None:
    """In each round of NCCL's p2p schedule every rank has one sender and one receiver
    (a NIC sends its QPs' first windows in posting order: no round is an incast)."""
    from fabric.workloads.specs import AllToAll
    ranks = [f"r{i}" for i in range(8)]
    out = expand([AllToAll.model_validate({"type": "all-to-all", "ranks": ranks,
                                           "bytes": 8192})])
    order = [[f.qp.split(">")[1] for f in out.flows[i * 7:(i + 1) * 7]] for i in range(8)]
    assert [o[0] for o in order] == ranks[1:] + ranks[:1]  # round 1: the next rank
    for r in range(7):
        assert sorted(o[r] for o in order) == ranks  # a permutation
    assert all(sorted(o) == sorted(set(ranks) - {ranks[i]}) for i, o in enumerate(order))


def test_paper_names_an_unknown_experiment_in_one_line(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["paper", "--only", "fig99"]) == 2
    err = capsys.readouterr().err
    assert err.strip().splitlines() == [
        "python -m fabric: no experiment 'fig99' (known: fig9-19, fig10-11, fig12-13, "
        "fig14, fig16-17, fig18-21, fig20)"]


def test_every_paper_scenario_file_loads() -> None:
    from fabric.paper.experiments import EXPERIMENTS
    from fabric.paper.suite import plan_suite
    for experiment, files in plan_suite(list(EXPERIMENTS), quick=True):
        assert all(files), experiment.name
        for claim in experiment.claims:  # every claim's sweep point exists
            for m in (claim.measure, claim.versus):
                if m is not None:
                    points = files[m.scenario]
                    assert any(all(p.point.get(k) == v for k, v in m.point)
                               for p in points), (experiment.name, claim.what)
