"""PFC in the simulator (fabric.sim.pfc): the RoCE baseline's pause frames, per ingress
port and priority, spreading upstream from a congested port (IEEE 802.1Qbb)."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest
from conftest import SCENARIOS

from fabric.runner import RunResult, run_scenario
from fabric.scenario import Scenario, ScenarioError, load_scenario

INCAST = SCENARIOS.parent / "topologies" / "incast.yaml"
# The incast topology's seven writers to nic4 (T0 1) and its victim, nic2 (T0 0) ->
# nic10 (T0 2): the victim shares T0 0's uplinks and the T1s with the incast, never
# nic4's port, where the congestion is.
LOADS = [{"qp": qp, "bytes": "64KiB"}
         for qp in ("in-0", "in-1", "in-5", "in-6", "in-7", "in-8", "in-9")]
VICTIM = {"qp": "victim", "bytes": "256KiB"}
PFC = {"xoff_packets": 16, "xon_packets": 8}


def scenario(pfc: dict[str, int] | None) -> Scenario:
    return Scenario.model_validate({
        "name": "pfc", "topology": str(INCAST), "baseline": "roce",
        "workloads": [*LOADS, VICTIM], "transport": {"rto_us": 300},
        "network": {"pfc": pfc} if pfc else {}, "path": str(SCENARIOS / "x.yaml")})


@cache
def roce(pfc: bool) -> RunResult:
    return run_scenario(scenario(PFC if pfc else None), "baseline")


def victim_done_us(run: RunResult) -> float:
    (done,) = [w.completed_us for w in run.writes if w.qp == "victim"]
    assert done is not None
    return done


def test_pauses_spread_upstream_and_nothing_is_lost() -> None:
    run = roce(pfc=True)
    assert run.intact
    assert sum(link["dropped"] for link in run.network.values()) == 0
    assert run.pfc_pauses > 0
    # nic4's T0 pauses the T1s, which pause the other T0s, which pause the writers'
    # NICs: a pause reached T0 0 (two hops from the congested port) and nic0
    # (three hops), and the victim's own NIC.
    assert run.pfc["p0-t0-0"]["pauses_received"] > 0
    assert run.pfc["nic0"]["pauses_received"] > 0
    assert run.pfc["nic2"]["pauses_received"] > 0
    # Every pause was resumed: nothing is left paused at the end. No pause goes to a
    # host (the host port has no PFC peer) and MRC's plane 1 carries no RoCE traffic.
    assert all(d["pauses_sent"] == d["resumes_sent"] for d in run.pfc.values())
    assert not any(name.startswith("p1-") for name in run.pfc)


def test_the_victim_waits_behind_pauses_it_did_not_cause() -> None:
    """Head-of-line blocking: the victim never crosses nic4's port, yet with PFC it
    finishes later than with lossless queues alone, where packets wait only at the
    congested port."""
    assert roce(pfc=False).pfc_pauses == 0
    assert victim_done_us(roce(pfc=True)) > 1.2 * victim_done_us(roce(pfc=False))


@pytest.mark.parametrize(("body", "problem"), [
    ("{xoff_packets: 8, xon_packets: 8}", "network.pfc.xon_packets: must be below "
                                          "xoff_packets (8)"),
    ("{xoff_packets: 0, xon_packets: 0}", "network.pfc.xoff_packets:"),
    ("{xoff: 8}", "network.pfc.xoff:"),
])
def test_bad_pfc_settings_are_one_line_each(tmp_path: Path, body: str,
                                            problem: str) -> None:
    path = tmp_path / "s.yaml"
    path.write_text(f"name: s\ntopology: {INCAST}\nbaseline: roce\n"
                    f"workloads: [{{qp: in-0, bytes: 4KiB}}]\nnetwork: {{pfc: {body}}}\n")
    with pytest.raises(ScenarioError) as err:
        load_scenario(path)
    lines = str(err.value).splitlines()
    assert any(problem in line for line in lines), lines
    assert all(line.startswith(str(path)) for line in lines)
