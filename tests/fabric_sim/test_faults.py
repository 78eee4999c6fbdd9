"""Faults of a scenario's ``failures`` in the simulator (fabric/failures.py,
fabric/sim/faults.py): loss at NIC ingress on every plane, a switch cut off, cables
failed one after another or flapped together, a NIC port down."""

from __future__ import annotations

from conftest import SCENARIOS

from fabric.figures import ev_names
from fabric.runner import load_plan, run_scenario
from fabric.scenario import Scenario

TOPOLOGY = SCENARIOS.parent / "topologies" / "small.yaml"


def scenario(failures: list[dict], size: str = "128KiB") -> Scenario:
    return Scenario.model_validate({
        "name": "faults", "topology": str(TOPOLOGY), "path": str(SCENARIOS / "x.yaml"),
        "workloads": [{"qp": "qp-a", "bytes": size, "messages": 2}],
        "transport": {"rto_us": 300}, "failures": failures})


def test_nic_ingress_loss_drops_on_every_plane() -> None:
    # 512 KiB: a plane's port of the sender receives ~60 SACKs, so 3 % of them is
    # drops on every port, whatever the draws (at 128 KiB, ~15: none on one of them)
    run = run_scenario(scenario([{"at_us": 0, "action": "nic-loss", "rate": 0.03}],
                                "512KiB"), "mrc")
    assert run.intact
    dropped = {end for name, c in run.network.items() if c["dropped"]
               for end in name.split("-", 3)[-1:] if end.startswith("nic")}
    # drops on both planes of the receiver (data) and of the sender (SACKs); no cable
    # between switches loses anything
    assert dropped == {"nic0:1", "nic0:2", "nic2:1", "nic2:2"}
    assert all(c["dropped"] == 0 for name, c in run.network.items() if "nic" not in name)
    assert run.qp_stats["qp-a"]["retransmits"] > 0
    assert run.failures == [{"at_us": 0, "action": "nic-loss", "target": "every NIC",
                             "rate": 0.03}]


def test_a_switch_down_is_bypassed() -> None:
    run = run_scenario(scenario([{"at_us": 30, "action": "switch-down",
                                  "device": "p0-t1-1"}]), "mrc")
    assert run.intact
    t1s = ev_names(load_plan(scenario([])))
    retired = {t1s[e.old_ev >> 16] for e in run.metrics.ev_events if e.reason in (1, 2)}
    assert retired == {"p0-t1-1"}


def test_links_fail_one_after_another_and_flap_together() -> None:
    failures = [
        {"at_us": 20, "action": "down", "links": ["p0-t0-0:4", "p1-t0-0:4"],
         "every_us": 30},
        {"at_us": 40, "action": "flap", "links": ["p0-t0-1:3", "p1-t0-1:3"],
         "down_us": 10, "times": 2, "period_us": 50}]
    run = run_scenario(scenario(failures, "64KiB"), "mrc")
    assert run.intact
    log = [(f["at_us"], f["action"], f["target"]) for f in run.failures]
    assert log == [(20, "down", "p0-t0-0:4"), (40, "down", "p0-t0-1:3"),
                   (40, "down", "p1-t0-1:3"), (50, "down", "p1-t0-0:4"),
                   (50, "up", "p0-t0-1:3"), (50, "up", "p1-t0-1:3"),
                   (90, "down", "p0-t0-1:3"), (90, "down", "p1-t0-1:3"),
                   (100, "up", "p0-t0-1:3"), (100, "up", "p1-t0-1:3")]


def test_a_nic_port_down_moves_the_qp_to_the_other_plane() -> None:
    run = run_scenario(scenario([{"at_us": 30, "action": "down", "link": "nic0:1"}]), "mrc")
    assert run.intact
    t1s = ev_names(load_plan(scenario([])))
    retired = {t1s[e.old_ev >> 16][:2] for e in run.metrics.ev_events if e.reason in (1, 2)}
    assert retired == {"p0"}  # only plane 0's EVs: that plane's port is down
