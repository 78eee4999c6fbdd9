"""One simulation over two processes (fabric.sim.partition): the NICs in the first, the
switches in the second, windows of one cable delay. A run's report must be the
one-process run's, figure for figure, whatever crosses between the processes: frames,
PFC pauses, cable failures, loss draws, the controller's reactions."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import SCENARIOS

from fabric import cli
from fabric.experiment import run_experiment
from fabric.runner import RunResult, load_plan, one_process_reason, run_scenario
from fabric.scenario import Scenario, ScenarioError, load_scenario
from fabric.sim import partition
from fabric.sim.partition import partition_devices

TOPOLOGIES = SCENARIOS.parent / "topologies"
PRODUCTION = SCENARIOS / "production" / "topologies"


def scenario(body: dict[str, Any]) -> Scenario:
    return Scenario.model_validate({"path": str(SCENARIOS / "x.yaml"), **body})


def figures(run: RunResult) -> dict[str, Any]:
    """Everything a run measured, except how long it took and on how many processes."""
    return {
        "end_us": run.end_us, "finished": run.finished, "intact": run.intact,
        "writes": [(w.qp, w.completed_us, w.ok) for w in run.writes],
        "network": run.network, "packet_hops": run.packet_hops, "pfc": run.pfc,
        "qp_stats": run.qp_stats, "failures": run.failures, "groups": run.groups,
        "controller_events": run.controller_events,
        "qps": {qp: {k: dict(v) if isinstance(v, dict) else v for k, v in vars(m).items()}
                for qp, m in run.metrics.qps.items()},
        "trimmed": run.metrics.trimmed, "ce_marks": run.metrics.ce_marks,
        "ev_events": run.metrics.ev_events,
    }


def same_on_1_and_2(body: dict[str, Any], mode: str = "mrc") -> list[RunResult]:
    runs = [run_scenario(scenario(body), mode, procs=procs) for procs in (1, 2)]
    assert [run.sim_procs for run in runs] == [1, 2]
    assert figures(runs[1]) == figures(runs[0])
    return runs


def test_a_split_run_reports_what_one_process_does() -> None:
    """The demo topology at 2 planes: the NICs in one process, the switches in the
    other. A NIC's cable (between processes) goes down and back (the controller fails the plane
    over, then back), another NIC's cable drops 5 % of its frames both ways (each way
    drawn in its sending process), a T1-T0 cable flaps and every NIC's ingress drops
    1 % (drawn in the NICs' process)."""
    runs = same_on_1_and_2({
        "name": "faults", "topology": str(TOPOLOGIES / "small.yaml"),
        "transport": {"gap_threshold": 48},
        "workloads": [{"qp": "qp-a", "bytes": "384KiB"}, {"qp": "qp-b", "bytes": "256KiB"}],
        "failures": [
            {"at_us": 60, "action": "down", "link": "nic0:1"},
            {"at_us": 160, "action": "up", "link": "nic0:1"},
            {"at_us": 20, "action": "loss", "link": "p1-t0-1:1", "rate": 0.05},
            {"at_us": 40, "action": "flap", "link": "p1-t1-0:1", "down_us": 15,
             "times": 2, "period_us": 60},
            {"at_us": 30, "action": "nic-loss", "rate": 0.01},
        ]})
    run = runs[0]
    assert run.intact
    assert sum(link["dropped"] for link in run.network.values()) > 0
    assert len(run.failures) >= 6


def test_pfc_pauses_cross_between_processes_as_in_one() -> None:
    """RoCE with PFC on the incast topology: pauses go from T0s (switch processes) to
    the writers' NICs (the first process) and back up from NICs to T0s."""
    loads = [{"qp": qp, "bytes": "48KiB"}
             for qp in ("in-0", "in-1", "in-5", "in-6", "in-7", "in-8", "in-9")]
    runs = same_on_1_and_2({
        "name": "pfc", "topology": str(TOPOLOGIES / "incast.yaml"), "baseline": "roce",
        "workloads": [*loads, {"qp": "victim", "bytes": "128KiB"}],
        "transport": {"rto_us": 300},
        "network": {"pfc": {"xoff_packets": 16, "xon_packets": 8}}}, "baseline")
    run = runs[0]
    assert run.intact
    assert run.pfc["nic0"]["pauses_received"] > 0  # a T0 (another process) paused it
    assert run.pfc_pauses > 0


def test_eight_planes_both_ways_with_two_nic_ports_down() -> None:
    """The production shape (8 planes, both directions of a QP at once, NSCC): frames
    from eight T0s reach a NIC at the same instant, and their order decides what the
    NIC acknowledges; two of nic0's ports go down (the controller tells its peer)."""
    runs = same_on_1_and_2({
        "name": "eight", "topology": str(PRODUCTION / "eight-planes-active-backup.yaml"),
        "transport": {"window": 1024, "cc": "nscc", "rto_us": 300,
                      "nscc": {"line_rate_gbps": 80, "base_rtt_us": 13}},
        "workloads": [{"qp": "qp-a", "bytes": "512KiB", "messages": 2},
                      {"qp": "qp-a", "bytes": "512KiB", "messages": 2, "reverse": True}],
        "failures": [{"at_us": 60, "action": "down", "links": ["nic0:3", "nic0:6"]}]})
    assert runs[0].intact and runs[0].metrics.ev_events


def test_a_scenario_report_is_the_same_on_two_processes() -> None:
    """The whole report of an experiment (the runs, the solo runs, the checks), as
    ``python -m fabric run`` writes it; its runs reuse the switch process."""
    link_failure = load_scenario(SCENARIOS / "link-failure.yaml")
    link_failure = link_failure.scaled(link_failure.quick_scale)
    one = run_experiment(link_failure, procs=1).report
    two = run_experiment(link_failure, procs=2).report
    assert one["passed"]
    assert json.dumps(one, sort_keys=True) == json.dumps(two, sort_keys=True)
    assert {run.sim_procs for run in run_experiment(link_failure, procs=2).runs.values()} == {2}


def test_devices_are_split_nics_then_switches() -> None:
    plan = load_plan(scenario({"name": "p", "topology": str(TOPOLOGIES / "small.yaml"),
                               "workloads": [{"qp": "qp-a", "bytes": "4KiB"}]}))
    everything = frozenset(plan.device_names())
    nics = frozenset(nic.name for nic in plan.fabric.nics())
    assert partition_devices(plan, 1) == [everything]
    two = partition_devices(plan, 2)
    assert two == [nics, everything - nics]
    assert partition_devices(plan, 16) == two  # two at most


def test_a_switch_reboot_runs_in_one_process(tmp_path: Path) -> None:
    """The controller reprograms a rebooted switch at a definite virtual time, which
    another process's window could not see: such a run is not split."""
    body = {"name": "r", "topology": str(TOPOLOGIES / "small.yaml"),
            "workloads": [{"qp": "qp-a", "bytes": "64KiB"}],
            "failures": [{"at_us": 20, "action": "reboot", "device": "p1-t1-0",
                          "down_us": 30}]}
    plan = load_plan(scenario(body))
    assert "p1-t1-0" in (one_process_reason(scenario(body), plan) or "")
    run = run_scenario(scenario(body), "mrc", procs=2)
    assert run.sim_procs == 1 and run.intact
    no_delay = scenario({**body, "failures": [], "network": {"link_delay_us": 0}})
    assert "no delay" in (one_process_reason(no_delay, plan) or "")


def test_a_switch_process_that_dies_is_one_clear_error(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(partition, "_IDLE", [])  # none left from earlier runs
    monkeypatch.setattr(partition, "WORKER_MODULE", "fabric.sim.no_such_module")
    body = {"name": "d", "topology": str(TOPOLOGIES / "small.yaml"),
            "workloads": [{"qp": "qp-a", "bytes": "16KiB"}]}
    with pytest.raises(ScenarioError, match=r"simulation process 1 died \(exit code 1\)"):
        run_scenario(scenario(body), "mrc", procs=2)


@pytest.mark.parametrize("value", ["0", "-2", "two"])
def test_procs_must_be_a_positive_number(value: str,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        cli.main(["run", "spray", "--procs", value])
    assert exit_.value.code == cli.EXIT_USAGE
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1] == (f"python -m fabric: error: argument --procs: {value!r} is not a "
                       "number of processes (1 or more)")
