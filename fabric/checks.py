"""The metrics a scenario's checks can name, each measured from the runs of an
experiment: a value to compare with the check's bound, figures for the report, and a
sentence for the summary. ``docs/experiments.md`` lists them.

A metric reads the run the check names (``run``: ``mrc``, ``baseline`` or
``solo:QP``); ``qp`` narrows it to one QP, ``workload`` to one workload of the file.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from controller.plan import FabricPlan
from protocol import constants as c

from .figures import RETIRING, goodput_dip, goodput_series, qp_figures, run_figures
from .scenario import Check, Scenario, ScenarioError
from .workloads.flows import BUS_FACTOR

if TYPE_CHECKING:
    from .runner import RunResult

__all__ = ["METRICS", "Measured", "evaluate", "validate_checks"]


@dataclass
class Measured:
    value: float | None
    text: str  # the value in words, for the check's line
    figures: dict[str, Any] = field(default_factory=dict)
    short: str = ""  # for the summary table (default: text)


@dataclass(frozen=True)
class Context:
    scenario: Scenario
    runs: dict[str, RunResult]
    plan: FabricPlan


@dataclass(frozen=True)
class Metric:
    title: str  # what a check on it is called by default ({qp} filled in)
    unit: str  # "%", "us", "Gb/s", "" (a count), "x" (a ratio)
    measure: Callable[[Context, Check, RunResult], Measured]
    needs_qp: bool = False
    needs_workload: bool = False


def fmt(value: float | None, unit: str) -> str:
    if value is None:
        return "n/a"
    if unit == "%":
        return f"{value:.1%}"
    if unit == "x":
        return f"{value:.0%}"
    if unit == "":
        return f"{value:g}"
    return f"{value:,.2f} {unit}" if unit == "Gb/s" else f"{value:,.1f} {unit}"


# -- the metrics ----------------------------------------------------------------------
def _intact(ctx: Context, check: Check, run: RunResult) -> Measured:
    return Measured(1.0 if run.intact else 0.0,
                    "every write completed and the receiver's memory equals the data"
                    if run.intact else "a write did not complete or the data differ")


def _share(ctx: Context, check: Check, run: RunResult) -> Measured:
    counts = run.metrics.qps[check.qp].ev_packets
    total = sum(counts.values())
    shares = [n / total for n in counts.values()] if total else []
    fair = 1 / len(shares) if shares else 0
    worst = max((abs(s - fair) / fair for s in shares), default=1.0)
    return Measured(worst, f"{len(shares)} paths, worst share {worst:.1%} off equal",
                    {"paths": len(shares), "shares": [round(s, 4) for s in shares],
                     "worst_deviation": round(worst, 4)})


def _first_down(run: RunResult) -> dict[str, Any] | None:
    return next((f for f in run.failures if f["action"] in ("down", "switch-down")), None)


def _same_plane(ctx: Context, check: Check, run: RunResult) -> Measured:
    """Of the retirements that refilled their slot, the share whose new EV is on the
    old one's plane (an EV's top bits name its plane)."""
    shift = 16 + c.USID_PLANE_SHIFT
    refills = [e for e in run.metrics.ev_events if e.reason in RETIRING and e.new_ev]
    same = sum(1 for e in refills if e.new_ev >> shift == e.old_ev >> shift)
    share = round(same / len(refills), 3) if refills else None
    return Measured(share, f"{same} of {len(refills)} refills on the same plane",
                    {"refills": len(refills), "same_plane_refills": same})


def _kept_after(ctx: Context, check: Check, run: RunResult) -> Measured:
    """Steady-state goodput after the failures over the goodput before them: the mean
    of the second half of the time after the last failure (the first half is the
    transport reacting) over the mean before the first failure; the first and last
    bins of the transfer (start and tail) are left out. 1 = nothing lost, 0.5 = half."""
    if not run.failures:
        return Measured(None, "no failure in this run")
    first = min(f["at_us"] for f in run.failures)
    last = max(f["at_us"] for f in run.failures)
    times, series = goodput_series(run)
    width = run.metrics.bin_us
    inner = list(zip(times, series, strict=True))[1:-1]
    settled = last + (inner[-1][0] - last) / 2 if inner else last
    before = [g for t, g in inner if t + width <= first]
    after = [g for t, g in inner if t >= settled]
    if not before or not after:
        return Measured(None, "the transfer does not span the failures")
    mean_before, mean_after = sum(before) / len(before), sum(after) / len(after)
    ratio = round(mean_after / mean_before, 3) if mean_before else None
    return Measured(ratio, f"{mean_after:.2f} Gb/s after the failures, {mean_before:.2f} "
                           "before", {"goodput_before_gbps": round(mean_before, 3),
                                      "goodput_after_gbps": round(mean_after, 3),
                                      "kept_after_failures": ratio},
                    f"{fmt(ratio, 'x')} of goodput kept after the failures")


def _stall(ctx: Context, check: Check, run: RunResult) -> Measured:
    """The longest time without a delivered byte between the first and the last."""
    times, series = goodput_series(run)
    longest = run_ = 0.0
    for value in series:
        run_ = run_ + run.metrics.bin_us if value == 0 else 0.0
        longest = max(longest, run_)
    return Measured(longest, f"longest stall {longest:.0f} us", {"longest_stall_us": longest})


def _flows(ctx: Context, check: Check, run: RunResult) -> Measured:
    """The lowest goodput of the QPs of a workload (each flow's own duration)."""
    prefix = f"{check.workload}:"
    rates = {qp: qp_figures(run, qp).get("goodput_gbps", 0.0)
             for qp in run.qp_stats if qp.startswith(prefix) or qp == check.workload}
    if not rates:
        return Measured(None, f"{check.workload}: no flow ran")
    low = min(rates.values())
    return Measured(low, f"{check.workload}: slowest flow {low:.2f} Gb/s of {len(rates)}",
                    {"flow_goodput_gbps": rates, "slowest_flow_gbps": low})


def _retired_after(ctx: Context, check: Check, run: RunResult) -> Measured:
    """From the first failure (a cable or switch down, or loss) to the first EV
    retired after it."""
    down = _first_down(run) or next(
        (f for f in run.failures if f["action"] in ("loss", "nic-loss")), None)
    if down is None:
        return Measured(None, "nothing fails in this scenario")
    t_fail = down["at_us"]
    retired = [e for e in run.metrics.ev_events
               if e.reason in RETIRING and e.time_us >= t_fail]
    after = round(retired[0].time_us - t_fail, 3) if retired else None
    lost = sum(link["dropped"] for link in run.network.values())
    dip = goodput_dip(run, t_fail)
    text = (f"{lost} packets lost, EV retired "
            + (f"{after:.1f} us" if after is not None else "never")
            + " after the failure, goodput dip "
            + (f"{dip['dip']:.0%}" if dip["dip"] is not None else "n/a"))
    return Measured(after, text, {
        "failed_link": down["target"], "failure_at_us": t_fail, "packets_lost": lost,
        "ev_retired_after_us": after, "retirements": len(retired), "goodput_dip": dip,
        "controller_top_ups": run.controller_events.get("top-up", 0)})


def _ratio_to_solo(ctx: Context, check: Check, run: RunResult) -> Measured:
    qp = check.qp
    assert qp is not None
    together = qp_figures(run, qp).get("goodput_gbps", 0.0)
    solo_run = ctx.runs.get(f"solo:{qp}")
    solo = qp_figures(solo_run, qp).get("goodput_gbps", 0.0) if solo_run else None
    ratio = round(together / solo, 3) if solo else None
    return Measured(ratio, f"{together:.2f} Gb/s with the others, {solo or 0:.2f} Gb/s "
                           "alone",
                    {"goodput_gbps": together, "solo_goodput_gbps": solo,
                     "ratio_to_solo": ratio}, f"{qp} {fmt(ratio, 'x')} of solo")


def _counter(key: str, words: str,
             short: str) -> Callable[[Context, Check, RunResult], Measured]:
    def measure(ctx: Context, check: Check, run: RunResult) -> Measured:
        value = _run_counts(run)[key]
        return Measured(float(value), f"{value} {words}", {key: value}, f"{value} {short}")
    return measure


def _run_counts(run: RunResult) -> dict[str, int]:
    return {
        "ce_marks": run.metrics.ce_marks,
        "trimmed_last_hop": run.metrics.trimmed[c.DSCP_TRIMMED_LASTHOP],
        "trimmed_in_fabric": run.metrics.trimmed[c.DSCP_TRIMMED],
        "retransmits_after_nack": sum(s["retransmits_trimmed"] for s in run.qp_stats.values()),
        "retransmits": sum(s["retransmits"] for s in run.qp_stats.values()),
        "ev_retirements": sum(1 for e in run.metrics.ev_events if e.reason in RETIRING),
        "packets_lost": sum(link["dropped"] for link in run.network.values()),
        "pfc_pauses": run.pfc_pauses,
    }


def _run_figure(key: str, unit: str) -> Callable[[Context, Check, RunResult], Measured]:
    def measure(ctx: Context, check: Check, run: RunResult) -> Measured:
        if check.qp is not None:
            value = qp_figures(run, check.qp).get(key)
        else:
            value = run_figures(run, ctx.plan)[key]
        return Measured(value, f"{key.split('_')[0]} {fmt(value, unit)}", {key: value})
    return measure


def _vs_baseline(ctx: Context, check: Check, run: RunResult) -> Measured:
    base = ctx.runs.get("baseline")
    if base is None:
        return Measured(None, "no baseline run")
    ours = (qp_figures(run, check.qp) if check.qp else run_figures(run, ctx.plan))
    theirs = (qp_figures(base, check.qp) if check.qp else run_figures(base, ctx.plan))
    a, b = ours.get("goodput_gbps", 0.0), theirs.get("goodput_gbps", 0.0)
    ratio = round(a / b, 3) if b else None
    return Measured(ratio, f"goodput {a:.2f} vs {b:.2f} Gb/s baseline",
                    {"goodput_gbps": a, "baseline_goodput_gbps": b})


def _collective(key: str) -> Callable[[Context, Check, RunResult], Measured]:
    def measure(ctx: Context, check: Check, run: RunResult) -> Measured:
        figures = workload_figures(run).get(check.workload or "", {})
        value = figures.get(key)
        unit = "us" if key.endswith("_us") else "Gb/s"
        return Measured(value, f"{check.workload} {key.split('_')[0]} {fmt(value, unit)}",
                        figures)
    return measure


def workload_figures(run: RunResult) -> dict[str, dict[str, Any]]:
    """NCCL-tests' figures of each workload: time (us) from its first write posted
    to its last completed, algbw = size / time, busbw = algbw x the collective's
    factor (the size: per rank for collectives, in all otherwise)."""
    out = {}
    for name, group in run.groups.items():
        start, end = group["start_us"], group["end_us"]
        time_us = end - start if start is not None and end is not None else None
        algbw = group["bytes"] * 8 / time_us / 1e3 if time_us else None
        factor = BUS_FACTOR.get(group["type"])
        busbw = algbw * factor(group["ranks"]) if algbw is not None and factor else algbw
        out[name] = {"type": group["type"], "ranks": group["ranks"], "bytes": group["bytes"],
                     "time_us": None if time_us is None else round(time_us, 3),
                     "algbw_gbps": None if algbw is None else round(algbw, 3),
                     "busbw_gbps": None if busbw is None else round(busbw, 3)}
    return out


METRICS: dict[str, Metric] = {
    "intact": Metric("transfer intact", "", _intact),
    "path_share_deviation": Metric("{qp}: equal per-path shares", "%", _share,
                                   needs_qp=True),
    "ev_retired_after_us": Metric("EV retired", "us", _retired_after),
    "same_plane_refills": Metric("backup of the same plane", "x", _same_plane),
    "kept_after_failures": Metric("goodput kept after the failures", "x", _kept_after),
    "longest_stall_us": Metric("no stall", "us", _stall),
    "slowest_flow_gbps": Metric("{workload}: every flow's goodput", "Gb/s", _flows,
                                needs_workload=True),
    "goodput_ratio_to_solo": Metric("{qp}: goodput kept beside the others", "x",
                                    _ratio_to_solo, needs_qp=True),
    "goodput_vs_baseline": Metric("goodput vs the baseline", "x", _vs_baseline),
    "goodput_gbps": Metric("goodput", "Gb/s", _run_figure("goodput_gbps", "Gb/s")),
    "completion_us": Metric("completion time", "us", _run_figure("completion_us", "us")),
    "latency_p99_us": Metric("p99 latency", "us", _run_figure("latency_p99_us", "us")),
    "busbw_gbps": Metric("{workload}: bus bandwidth", "Gb/s", _collective("busbw_gbps"),
                         needs_workload=True),
    "algbw_gbps": Metric("{workload}: algorithm bandwidth", "Gb/s",
                         _collective("algbw_gbps"), needs_workload=True),
    "workload_time_us": Metric("{workload}: completion time", "us", _collective("time_us"),
                               needs_workload=True),
    **{key: Metric(title, "", _counter(key, words, short))
       for key, title, words, short in (
        ("ce_marks", "ECN marks seen", "CE-marked packets reached NICs", "CE marks"),
        ("trimmed_last_hop", "trimming at the last hop",
         "packets trimmed toward the receiver", "last-hop trims"),
        ("trimmed_in_fabric", "trimming in the fabric", "packets trimmed in the fabric",
         "trims in the fabric"),
        ("retransmits_after_nack", "NACK-driven retransmits",
         "packets retransmitted on NACK TRIMMED(_LASTHOP)", "NACK retransmits"),
        ("retransmits", "retransmits", "packets retransmitted", "retransmits"),
        ("ev_retirements", "EV retirements", "EVs retired", "EVs retired"),
        ("packets_lost", "packets lost", "packets lost on cables", "packets lost"),
        ("pfc_pauses", "PFC pauses", "PFC pauses sent (the RoCE baseline's)",
         "PFC pauses"))},
}


def validate_checks(scenario: Scenario) -> None:
    """ScenarioError, one ``FILE: PLACE: PROBLEM`` line each, for a check that names
    an unknown metric or lacks the QP or workload its metric needs."""
    problems = []
    workloads = {getattr(w, "name", "") or f"w{i}" for i, w in enumerate(scenario.workloads)}
    for i, check in enumerate(scenario.checks):
        metric = METRICS.get(check.metric)
        where = f"{scenario.path}: checks[{i}]"
        if metric is None:
            problems.append(f"{where}.metric: unknown metric {check.metric!r} (known: "
                            f"{', '.join(sorted(METRICS))})")
            continue
        if metric.needs_qp and check.qp is None:
            problems.append(f"{where}: {check.metric} needs a qp")
        if metric.needs_workload and check.workload not in workloads:
            problems.append(f"{where}.workload: {check.metric} needs a workload of the "
                            f"file (one of: {', '.join(sorted(workloads))})")
        if check.run not in ("mrc", "baseline") and not check.run.startswith("solo:"):
            problems.append(f"{where}.run: {check.run!r} is not mrc, baseline or solo:QP")
    if problems:
        raise ScenarioError("\n".join(problems))


def measure(check: Check, scenario: Scenario, runs: dict[str, RunResult],
            plan: FabricPlan) -> Measured:
    """What ``check``'s metric measures in its run of ``runs``."""
    run = runs.get(check.run)
    if run is None:
        return Measured(None, f"no {check.run} run")
    return METRICS[check.metric].measure(Context(scenario, runs, plan), check, run)


def evaluate(scenario: Scenario, runs: dict[str, RunResult],
             plan: FabricPlan) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Every check of the scenario (``transfer intact`` first, always): a row each
    with its value and bound, and the figures they measured (by QP or workload when
    the check names one)."""
    rows = []
    figures: dict[str, Any] = {}
    for check in [Check(metric="intact", compare="==", bound=1), *scenario.checks]:
        metric = METRICS[check.metric]
        measured = measure(check, scenario, runs, plan)
        title = check.name or metric.title.format(qp=check.qp, workload=check.workload)
        bound = "" if check.metric == "intact" else (
            f" (bound {check.compare} {fmt(check.bound, metric.unit)})")
        ok = check.holds(measured.value)
        rows.append({"check": title, "ok": ok, "metric": check.metric, "qp": check.qp,
                     "workload": check.workload, "run": check.run,
                     "value": measured.value, "compare": check.compare,
                     "bound": check.bound, "detail": measured.text + bound,
                     "summary": measured.short or measured.text})
        if check.metric == "intact":
            continue
        key = check.qp or check.workload
        target = figures.setdefault(key, {}) if key else figures
        if check.run != "mrc":
            target = target.setdefault(check.run, {})
        target.update(measured.figures)
    return rows, figures
