"""Issue 16's Fig 14 check at production shape: two QPs forced onto one path keep
>= 90 % of their solo goodput, by ECN alone.

The shape is test_production_shape.py's 16-EVs one (8 planes of 10 Gb/s, 16 EVs
per plane, the full window and NSCC) with two NICs under each T0 instead of one, so
that two QPs (qp-a nic0 -> nic2, qp-b nic1 -> nic3) meet on the T0 -> T1 uplinks
without sharing a NIC port. Every slot is pinned: slot ``i`` of a plane on T1 ``i %
T1s`` (each uplink then carries exactly its rate), except that ``extra`` more of
plane 0's slots of *both* QPs go through T1 0, so that uplink is offered more than it
carries. The switches mark ECN there; the receivers echo it (SACK SKIP_ONCE); each
NIC's rotation passes the marked EVs and sprays the rest of the QP's share over its
other paths. ECN is congestion, not loss: no EV may be retired (the queue delays
packets past later ones; the receiving NIC SACKs at once the fill of a hole a SACK
has shown, so the sender learns of them before it takes them for lost,
docs/mrc-nic.md 4.1).

Each QP is also run alone on the same fabric (its solo goodput); every run is made
once per session and shared by the tests that read it.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from tempfile import mkdtemp

import pytest
import yaml

from fabric.figures import qp_figures
from fabric.runner import RunResult, run_scenario
from fabric.scenario import Scenario
from protocol.constants import NIC_RX_WINDOW, ev_plane

PRODUCTION = Path(__file__).resolve().parents[2] / "fabric" / "scenarios" / "production"
SIXTEEN_EVS = PRODUCTION / "topologies" / "eight-planes-16-evs.yaml"
QPS = ("qp-a", "qp-b")
KEPT = 0.9  # the bound: each QP keeps >= 90 % of its solo goodput
# Per EV, the shared T1's EVs carry at most this much of what the other planes' EVs
# carry: the rotation passed them (without ECN steering every slot gets its turn,
# the same count to one packet).
STEERED = 0.95


@cache
def topology(planes: int, t1s: int) -> Path:
    """The 16-EVs production topology with 2 NICs per T0 and the two QPs."""
    data = yaml.safe_load(SIXTEEN_EVS.read_text(encoding="utf-8"))
    data["name"] = f"fig14-{planes}x{t1s}"
    data["clos"].update(planes=planes, t1_per_plane=t1s, nics_per_t0=2)
    data["qps"] = [{"name": "qp-a", "endpoints": ["nic0", "nic2"]},
                   {"name": "qp-b", "endpoints": ["nic1", "nic3"]}]
    path = Path(mkdtemp(prefix="fig14-")) / "topology.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return path


def pins(planes: int, t1s: int, evs: int, extra: int) -> list[int]:
    """T1 index of every slot (plane_overrides: slot ``s`` is the ``s // planes``-th
    of plane ``s % planes``): slot ``i`` of a plane on T1 ``i % t1s``, and plane 0's
    first ``extra`` slots that would go elsewhere on T1 0."""
    pinned = []
    for slot in range(evs * planes):
        plane, index = slot % planes, slot // planes
        t1 = index % t1s
        if plane == 0 and t1 != 0 and index // t1s < extra:
            t1 = 0
        pinned.append(t1)
    return pinned


def scenario(planes: int, t1s: int, extra: int, seed: int) -> Scenario:
    pinned = pins(planes, t1s, 16, extra)
    return Scenario.model_validate({
        "name": "fig14-production", "topology": str(topology(planes, t1s)),
        "seed": seed,
        "transport": {"window": NIC_RX_WINDOW, "cc": "nscc", "rto_us": 300,
                      "nscc": {"line_rate_gbps": 10 * planes, "base_rtt_us": 13}},
        "workloads": [{"qp": qp, "bytes": "4MiB", "messages": 4} for qp in QPS],
        "pin": {qp: pinned for qp in QPS}, "baseline": "none", "bin_us": 5.0,
        "path": str(PRODUCTION / "fig14.yaml")})


@cache
def run(planes: int, t1s: int, extra: int, seed: int, only: str | None = None
        ) -> RunResult:
    return run_scenario(scenario(planes, t1s, extra, seed), "mrc",
                        only=(only,) if only else ())


def goodput(result: RunResult, qp: str) -> float:
    return qp_figures(result, qp)["goodput_gbps"]


CASES = [pytest.param(8, 2, 1, 1, id="8-planes-one-ev-each")]


@pytest.mark.parametrize(("planes", "t1s", "extra", "seed"), CASES)
def test_each_qp_keeps_90_percent_of_its_solo_goodput(planes: int, t1s: int, extra: int,
                                                      seed: int) -> None:
    both = run(planes, t1s, extra, seed)
    assert both.intact
    assert both.metrics.ce_marks > 0, "the shared uplink was never congested"
    for qp in QPS:
        solo = run(planes, t1s, extra, seed, qp)
        assert solo.intact
        assert goodput(both, qp) >= KEPT * goodput(solo, qp), qp


@pytest.mark.parametrize(("planes", "t1s", "extra", "seed"), CASES)
def test_ecn_steers_off_the_shared_path_and_retires_nothing(planes: int, t1s: int,
                                                            extra: int, seed: int) -> None:
    both = run(planes, t1s, extra, seed)
    assert both.metrics.ev_events == []  # ECN is congestion, not loss
    shared_t1 = None
    for qp in QPS:
        per_ev = both.metrics.qps[qp].ev_packets
        plane0 = {ev: n for ev, n in per_ev.items() if ev_plane(ev) == 0}
        others = [n for ev, n in per_ev.items() if ev_plane(ev) != 0]
        # plane 0's most used T1 is the shared one (it holds 8 + extra of 16 slots)
        by_t1: dict[int, list[int]] = {}
        for ev, n in plane0.items():
            by_t1.setdefault(ev >> 16, []).append(n)
        t1 = max(by_t1, key=lambda usid: len(by_t1[usid]))
        assert shared_t1 in (None, t1)
        shared_t1 = t1
        shared = by_t1[t1]
        assert len(shared) == 8 + extra
        assert sum(shared) / len(shared) <= STEERED * sum(others) / len(others), qp
