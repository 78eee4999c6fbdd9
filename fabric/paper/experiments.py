"""The paper's testbed experiments (issue 18's table), scaled to the simulator: which
scenario files each runs (``fabric/paper/scenarios``), the figure it draws and the
claims it checks. docs/experiments.md says how each is scaled and why.

Rates: the scenario files run 10 Gb/s per plane (the paper: 100 Gb/s per plane, 4 or 8
planes per NIC), transfers of a few MiB instead of GiB, 8-16 NICs instead of hundreds.
A write's goodput is payload only: ``PAYLOAD`` of the line rate at the 1024-byte MTU
(Ethernet, outer and inner IPv6, UDP, BTH, METH, RETH: 134 bytes of headers).
"""

from __future__ import annotations

from dataclasses import dataclass

from .claims import Claim, Measure

__all__ = ["EXPERIMENTS", "FAIR_SHARE", "PaperExperiment", "PAYLOAD"]

PAYLOAD = 1024 / (1024 + 134)
PLANE_GBPS = 10.0  # every scenario's link rate


@dataclass(frozen=True)
class PaperExperiment:
    name: str
    figure: str  # the paper's figure(s)
    title: str
    scenarios: tuple[str, ...]  # files under fabric/paper/scenarios (or fabric/scenarios)
    plot: str  # "goodput-time", "busbw", "flows", "paths"
    claims: tuple[Claim, ...]


def _m(metric: str, run: str = "mrc", scenario: int = 0, **point: object) -> Measure:
    return Measure(metric, run, tuple(point.items()), scenario=scenario)


def _w(metric: str, workload: str, run: str = "mrc", scenario: int = 0,
       **point: object) -> Measure:
    return Measure(metric, run, tuple(point.items()), workload=workload, scenario=scenario)


def _q(metric: str, qp: str, run: str = "mrc", scenario: int = 0) -> Measure:
    return Measure(metric, run, (), qp=qp, scenario=scenario)


# fig20's line rate: the goodput of one permutation flow alone on the idle fabric (MRC,
# the same bytes). A flow's goodput counts its first packet's trip and the last SACK's
# way back, and its receiver's port carries its own QP's SACKs too: at --quick sizes
# that is 3 % of a flow's time, so a fixed payload line rate would judge the latency
# of a short transfer, not the sharing of the uplinks the figure is about.
FLOW_LINE_RATE = _q("goodput_gbps", "perm:nic0>nic4", "solo:perm:nic0>nic4")

# fig20's tolerance around a RoCE flow's fair share, 1/n of the line rate (n flows
# hashed onto the busiest link of its path; fabric/paper/fairshare.py): 0.6/n .. 1.3/n.
# Below: DCQCN's first cuts (alpha = 1 halves) before the queue the first windows built
# drains; above: a flow that finishes while the others still send.
FAIR_SHARE = (0.6, 1.3)

LINE = 2 * PLANE_GBPS * PAYLOAD  # 2 planes of payload: a NIC's line rate in goodput

EXPERIMENTS: tuple[PaperExperiment, ...] = (
    PaperExperiment(
        "fig9-19", "Fig 9c/9d, 19", "T0-T1 links failed one after another; flapped together",
        ("fig9-19.yaml",), "goodput-time", (
            Claim("links failed one after another: throughput tracks the capacity left "
                  "(half of rack 0's uplinks gone)", "tracks capacity",
                  _m("kept_after_failures", **{"failures.0.action": "down"}), ">=", 0.4),
            Claim("... and no more than the capacity left", "tracks capacity",
                  _m("kept_after_failures", **{"failures.0.action": "down"}), "<=", 0.6),
            Claim("links failed one after another: no stall", "no stall",
                  _m("longest_stall_us", **{"failures.0.action": "down"}), "<=", 200),
            Claim("links flapped together: no stall", "no stall",
                  _m("longest_stall_us", **{"failures.0.action": "flap"}), "<=", 200),
        )),
    PaperExperiment(
        "fig10-11", "Fig 10 / 11", "a T1 down / a T0 down", ("fig10-11.yaml",),
        "goodput-time", (
            Claim("a T1 down: no steady-state loss", "no loss after reroute",
                  _m("kept_after_failures", **{"failures.0.device": "p0-t1-1"}), ">=", 0.9),
            Claim("a T0 down: about one plane's bandwidth lost (1 of 2 planes)",
                  "1 plane of 4 lost",
                  _m("kept_after_failures", **{"failures.0.device": "p0-t0-1"}), ">=", 0.4),
            Claim("... and no more than one plane's", "1 plane of 4 lost",
                  _m("kept_after_failures", **{"failures.0.device": "p0-t0-1"}), "<=", 0.6),
        )),
    PaperExperiment(
        "fig12-13", "Fig 12/13", "drops on one EV of 16 (2 per plane on 8 planes)",
        ("fig12-13.yaml",), "goodput-time", tuple(
            claim for rate in (0.05, 0.2, 0.5) for claim in (
                Claim(f"{rate:.0%} drops: that EV inactive at once", "tens of us",
                      _m("ev_retired_after_us", **{"failures.0.rate": rate}), "<=", 200),
                Claim(f"{rate:.0%} drops: a backup of the same plane takes over",
                      "same plane", _m("same_plane_refills", **{"failures.0.rate": rate}),
                      ">=", 1.0),
                Claim(f"{rate:.0%} drops: line rate kept", "line rate",
                      _m("kept_after_failures", **{"failures.0.rate": rate}), ">=", 0.9)))),
    PaperExperiment(
        "fig14", "Fig 14", "two flows forced onto one EV of one plane",
        ("../../scenarios/ecn-steer.yaml",), "paths", (
            Claim("qp-a near its peak", "near peak (ECN steers)",
                  _q("goodput_ratio_to_solo", "qp-a"), ">=", 0.7),
            Claim("qp-b near its peak", "near peak",
                  _q("goodput_ratio_to_solo", "qp-b"), ">=", 0.7),
            Claim("aggregate near line rate (2 NICs' worth on 2 planes)", "line rate",
                  _m("goodput_gbps"), ">=", 0.65 * 2 * LINE),
        )),
    PaperExperiment(
        "fig16-17", "Fig 16/17", "ring all-reduce and all-to-all among 8 NICs, MRC vs RoCE",
        ("fig16-17-size.yaml", "fig16-17-qps.yaml", "fig16-17-loss.yaml",
         "fig17-all-to-all.yaml"), "busbw", (
            Claim("RoCE 1 QP: about half of line rate (ECMP collisions): not more",
                  "~50 %",
                  _w("busbw_gbps", "ring", "baseline", 0, **{"workloads.0.bytes": "512KiB"}),
                  "<=", 0.75 * LINE),
            Claim("RoCE 1 QP: about half of line rate: not less", "~50 %",
                  _w("busbw_gbps", "ring", "baseline", 0, **{"workloads.0.bytes": "512KiB"}),
                  ">=", 0.3 * LINE),
            Claim("1 MRC QP ahead of 16 RoCE QPs", "MRC ahead",
                  _w("busbw_gbps", "ring", "mrc", 1, **{"workloads.0.qps_per_peer": 1}),
                  ">", 1.0,
                  versus=_w("busbw_gbps", "ring", "baseline", 1,
                            **{"workloads.0.qps_per_peer": 16})),
            Claim("1 % loss: MRC keeps at least a third (of its loss-free busbw)",
                  "about 1/3 of line rate",
                  _w("busbw_gbps", "ring", "mrc", 2, **{"failures.0.rate": 0.01}),
                  ">=", 1 / 3,
                  versus=_w("busbw_gbps", "ring", "mrc", 0,
                            **{"workloads.0.bytes": "512KiB"})),
            Claim("1 % loss: RoCE collapses (under a third of line rate)", "unusable",
                  _w("busbw_gbps", "ring", "baseline", 2, **{"failures.0.rate": 0.01}),
                  "<", LINE / 3),
            Claim("all-to-all: MRC ahead of RoCE 1 QP", "MRC ahead",
                  _w("busbw_gbps", "a2a", "mrc", 3, **{"workloads.0.bytes": "512KiB"}),
                  ">", 1.0,
                  versus=_w("busbw_gbps", "a2a", "baseline", 3,
                            **{"workloads.0.bytes": "512KiB"})),
        )),
    PaperExperiment(
        "fig18-21", "Fig 18/21", "7 -> 1 incast with a victim in the target's rack",
        ("fig18-21.yaml",), "flows", (
            Claim("MRC victim unaffected", "no impact",
                  _q("goodput_ratio_to_solo", "victim:nic5>nic1"), ">=", 0.85),
            Claim("RoCE victim loses at least 25 %", ">= 25 % lost",
                  _q("goodput_gbps", "victim:nic5>nic1", "baseline"), "<=", 0.75,
                  versus=_q("goodput_gbps", "victim:nic5>nic1", "solo:victim:nic5>nic1")),
        )),
    PaperExperiment(
        "fig20", "Fig 20", "permutation across racks loading every T0 uplink",
        ("fig20.yaml",), "flows", (
            Claim("MRC 1 QP: every flow at >= 95 % of line rate (one flow alone)",
                  ">= 95 %", _w("slowest_flow_gbps", "perm"), ">=", 0.95,
                  versus=FLOW_LINE_RATE),
            Claim("RoCE 1 QP: flows collide (n >= 2 flows hashed onto one link)",
                  "1/2, 1/3", _w("most_flows_on_a_link", "perm", "baseline"), ">=", 2),
            Claim("RoCE 1 QP: every flow at least 0.6/n of line rate (n: flows on the "
                  "busiest link of its hashed path)", "1/n",
                  _w("fair_share_low", "perm", "baseline"), ">=", FAIR_SHARE[0]),
            Claim("RoCE 1 QP: every flow at most 1.3/n of line rate", "1/n",
                  _w("fair_share_high", "perm", "baseline"), "<=", FAIR_SHARE[1]),
        )),
)
