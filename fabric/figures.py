"""From a run's measurements to the figures the report shows: per QP and per run,
goodput over time, the dip around a failure.

Goodput is payload bytes delivered over the time from the first write posted to the
last one completed, in Gb/s; latency is per packet (``fabric.metrics``).
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Any

from controller.plan import FabricPlan
from protocol import constants as c

if TYPE_CHECKING:
    from .runner import RunResult


RETIRING = (c.EV_EVENT_ALWAYS_SKIP, c.EV_EVENT_HOST_LOSS)
MAX_EVENTS = 40


def percentile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def ev_names(plan: FabricPlan) -> dict[int, str]:
    """T1 uSID -> T1 name (an EV's top 16 bits name its T1)."""
    return {plan.usids.node(s.name): s.name for s in plan.fabric.switches()
            if s.role.value == "t1"}


def ev_label(ev: int, t1s: dict[int, str]) -> str:
    return f"{t1s.get(ev >> 16, hex(ev >> 16))} ev{ev & 0x1FF}"


def qp_figures(run: RunResult, qp: str) -> dict[str, Any]:
    writes = [w for w in run.writes if w.qp == qp]
    m = run.metrics.qps[qp]
    if not writes:
        return {}
    start = min(w.posted_us for w in writes)
    ends = [w.completed_us for w in writes if w.completed_us is not None]
    done = len(ends) == len(writes)
    end = max(ends) if done else run.end_us
    duration = max(end - start, 1e-9)
    total = sum(w.bytes for w in writes)
    return {
        "bytes": total,
        "completed": done and all(w.ok for w in writes),
        "completion_us": round(duration, 3),
        "goodput_gbps": round(m.delivered_bytes * 8 / duration / 1e3, 3),
        "latency_p50_us": _round(percentile(m.latencies_us, 0.50)),
        "latency_p99_us": _round(percentile(m.latencies_us, 0.99)),
        "message_completion_us": [round(w.completed_us - w.posted_us, 3)
                                  for w in writes if w.completed_us is not None],
    }


def run_figures(run: RunResult, plan: FabricPlan) -> dict[str, Any]:
    t1s = ev_names(plan)
    qps = {qp: qp_figures(run, qp) for qp in run.qp_stats}
    lost = sum(link["dropped"] for link in run.network.values())
    retransmits = sum(s["retransmits"] for s in run.qp_stats.values())
    return {
        "mode": run.mode,
        "only": list(run.only),
        "finished": run.finished,
        "intact": run.intact,
        "end_us": round(run.end_us, 3),
        "packet_hops": run.packet_hops,
        "qps": qps,
        "completion_us": max((q.get("completion_us", 0) for q in qps.values()), default=0),
        "goodput_gbps": round(sum(q.get("goodput_gbps", 0) for q in qps.values()), 3),
        "latency_p99_us": _round(percentile(
            [x for qp in run.qp_stats for x in run.metrics.qps[qp].latencies_us], 0.99)),
        "packets_lost": lost,
        "pfc_pauses": run.pfc_pauses,
        "trimmed": run.metrics.trimmed[c.DSCP_TRIMMED],
        "trimmed_last_hop": run.metrics.trimmed[c.DSCP_TRIMMED_LASTHOP],
        "ce_marks": run.metrics.ce_marks,
        "retransmits": retransmits,
        "retransmits_trimmed": sum(s["retransmits_trimmed"] for s in run.qp_stats.values()),
        "ev_packets": {qp: {ev_label(ev, t1s): n for ev, n in
                            sorted(run.metrics.qps[qp].ev_packets.items())}
                       for qp in run.qp_stats},
        "ev_event_counts": dict(Counter(_REASONS.get(e.reason, str(e.reason))
                                        for e in run.metrics.ev_events)),
        # the first events (a QP at its floor reports one per loss report)
        "ev_events": [{"time_us": round(e.time_us, 3), "nic": e.nic, "qp": e.qp,
                       "slot": e.slot, "old": ev_label(e.old_ev, t1s),
                       "new": ev_label(e.new_ev, t1s) if e.new_ev else None,
                       "reason": _REASONS.get(e.reason, str(e.reason))}
                      for e in run.metrics.ev_events[:MAX_EVENTS]],
        "failures": run.failures,
        "controller_events": run.controller_events,
    }


_REASONS = {c.EV_EVENT_ALWAYS_SKIP: "always-skip", c.EV_EVENT_HOST_LOSS: "host-loss",
            c.EV_EVENT_RESTORED: "restored", c.EV_EVENT_FLOOR: "floor"}


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 3)


def goodput_series(run: RunResult) -> tuple[list[float], list[float]]:
    """(bin start times, goodput in Gb/s) of all QPs together."""
    bins: dict[int, int] = {}
    for m in run.metrics.qps.values():
        for b, n in m.delivered_bins.items():
            bins[b] = bins.get(b, 0) + n
    if not bins:
        return [], []
    width = run.metrics.bin_us
    last = max(bins)
    times = [b * width for b in range(last + 1)]
    return times, [bins.get(b, 0) * 8 / width / 1e3 for b in range(last + 1)]


def goodput_dip(run: RunResult, t_fail: float) -> dict[str, float | None]:
    """Mean goodput before the failure, the lowest bin in the 10 bins after it, and
    the dip between them."""
    times, series = goodput_series(run)
    width = run.metrics.bin_us
    before = [g for t, g in zip(times, series, strict=True) if width <= t < t_fail - width]
    after = [g for t, g in zip(times, series, strict=True) if t_fail <= t < t_fail + 10 * width]
    if not before or not after:
        return {"before_gbps": None, "lowest_after_gbps": None, "dip": None}
    mean = sum(before) / len(before)
    low = min(after)
    return {"before_gbps": round(mean, 3), "lowest_after_gbps": round(low, 3),
            "dip": round(1 - low / mean, 4) if mean else None}
