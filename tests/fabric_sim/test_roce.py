"""The RoCE baseline (``baseline: roce``): go-back-N hosts at DCQCN's rate (host/roce),
one path per QP picked by a hash, switches without trimming and with lossless queues
(PFC's class), plane 0 at the rate of all planes."""

from __future__ import annotations

from functools import cache

from conftest import SCENARIOS

from fabric.figures import ev_names
from fabric.plan_overrides import ecmp_pins
from fabric.runner import RunResult, load_plan, roce_queue_depth, run_scenario
from fabric.scenario import Failure, Scenario

TOPOLOGIES = SCENARIOS.parent / "topologies"


def scenario(**update: object) -> Scenario:
    base = Scenario.model_validate({
        "name": "roce", "topology": str(TOPOLOGIES / "small.yaml"), "baseline": "roce",
        "workloads": [{"qp": "qp-a", "bytes": "192KiB", "messages": 2}],
        "transport": {"rto_us": 300}, "path": str(SCENARIOS / "x.yaml")})
    return base.model_copy(update=update)


@cache
def lossy() -> RunResult:
    # 2% loss on both uplinks of nic0's T0 on plane 0: whichever T1 the hash picks
    loss = [Failure(at_us=0, action="loss", link=f"p0-t0-0:{port}", rate=0.02)
            for port in (3, 4)]
    return run_scenario(scenario(failures=loss), "baseline")


def test_go_back_n_resends_from_the_gap() -> None:
    run = lossy()
    assert run.intact
    stats = run.qp_stats["qp-a"]
    lost = sum(link["dropped"] for link in run.network.values())
    assert lost > 0
    assert stats["retransmits_gap"] > 0  # a later PSN arrived past the hole: go back
    assert stats["loss_reports"] == 0  # no EVs to retire
    # go-back-N resends the whole window from the gap, not only what was lost
    assert stats["retransmits"] > 2 * lost


def test_one_path_on_plane_zero() -> None:
    run = lossy()
    plan = load_plan(scenario())
    t1s = ev_names(plan)
    paths = run.metrics.qps["qp-a"].ev_packets
    assert len(paths) == 1
    (ev,) = paths
    assert t1s[ev >> 16].startswith("p0-t1-")
    assert not run.metrics.ev_events  # nothing retired, nothing restored


def test_no_trimming_and_lossless_under_incast() -> None:
    loads = [{"qp": qp, "bytes": "64KiB"} for qp in
             ("in-0", "in-1", "in-5", "in-6", "in-7", "in-8", "in-9")]
    incast = scenario(topology=str(TOPOLOGIES / "incast.yaml"),
                      workloads=Scenario.model_validate({
                          "name": "x", "topology": "x", "workloads": loads}).workloads)
    run = run_scenario(incast, "baseline")
    assert run.intact
    assert sum(run.metrics.trimmed.values()) == 0
    # PFC's class: the queues hold every window, so nothing is dropped or resent
    assert roce_queue_depth(incast, load_plan(incast)) >= 2 * 64 * len(loads)
    assert sum(s["retransmits"] for s in run.qp_stats.values()) == 0
    assert run.metrics.ce_marks > 0  # the congested queues mark: DCQCN's CNPs


def test_ecmp_hash_spreads_qps_and_lets_them_collide() -> None:
    plan = load_plan(scenario(topology=str(TOPOLOGIES / "incast.yaml")))
    picks = [pin[0] % 2 for pin in ecmp_pins(plan, seed=1).values()]
    assert 0 < sum(picks) < len(picks)  # both T1s are used, and some QPs share one
    assert ecmp_pins(plan, seed=1) == ecmp_pins(plan, seed=1)
    assert ecmp_pins(plan, seed=1) != ecmp_pins(plan, seed=2)
