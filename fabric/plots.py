"""The PNG plots of a report (matplotlib, Agg backend: no display needed).

* ``per_path_load.png``: data packets per EV (path) of each QP, MRC runs of the
  scenarios with one or two QPs: equal bars for spray, the failed path's EVs and
  their replacements for link-failure, load moved off the shared T1 for ecn-steer.
* ``goodput_failure.png``: goodput over time around the first link failure of the
  first scenario that has one, MRC and baseline, the failure (and the cable's
  return) marked.
* ``latency_cdf.png``: per-packet latency CDFs, MRC and baseline, one panel per
  scenario (log time axis).
"""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (the backend must be chosen first)
from matplotlib.ticker import NullFormatter  # noqa: E402

from .experiment import Experiment  # noqa: E402

COLORS = {"mrc": "tab:blue", "baseline": "tab:red"}


def write_plots(experiments: list[Experiment], out: Path) -> list[Path]:
    written = []
    for name, fn in (("per_path_load.png", _per_path_load),
                     ("goodput_failure.png", _goodput_failure),
                     ("latency_cdf.png", _latency_cdf)):
        figure = fn(experiments)
        if figure is None:
            continue
        path = out / name
        figure.savefig(path, dpi=110, bbox_inches="tight")
        plt.close(figure)
        written.append(path)
    return written


def _per_path_load(experiments: list[Experiment]) -> plt.Figure | None:
    panels = [(e, qp, loads) for e in experiments if len(e.runs["mrc"].qp_stats) <= 2
              for qp, loads in e.report["runs"]["mrc"]["ev_packets"].items() if loads]
    if not panels:
        return None
    figure, axes = plt.subplots(1, len(panels), figsize=(4.2 * len(panels), 3.8),
                                squeeze=False)
    for ax, (experiment, qp, loads) in zip(axes[0], panels, strict=True):
        labels = list(loads)
        ax.bar(range(len(labels)), [loads[k] for k in labels], color="tab:blue")
        ax.set_xticks(range(len(labels)), [k.replace(" ", "\n") for k in labels],
                      fontsize=7)
        ax.set_title(f"{experiment.scenario.name}: {qp}", fontsize=10)
        ax.set_ylabel("data packets sent")
    figure.suptitle("Per-path load (packets per EV, MRC)")
    figure.tight_layout()
    return figure


def _goodput_failure(experiments: list[Experiment]) -> plt.Figure | None:
    chosen = next((e for e in experiments
                   if any(f.action == "down" for f in e.scenario.failures)), None)
    if chosen is None:
        return None
    runs = chosen.report["runs"]
    failures = {(f["at_us"], f["target"], f["action"])
                for mode in ("mrc", "baseline") if mode in runs
                for f in runs[mode]["failures"]}
    t_fail = min((t for t, _, action in failures if action == "down"), default=0.0)
    figure, axes = plt.subplots(1, 2, figsize=(12, 3.8))
    for ax, window in zip(axes, (None, (t_fail - 100, t_fail + 400)), strict=True):
        for mode in ("mrc", "baseline"):
            run = runs.get(mode)
            if run is None:
                continue
            series = run["goodput_series_gbps"]
            times = [series["start_us"] + i * series["bin_us"]
                     for i in range(len(series["gbps"]))]
            ax.step(times, series["gbps"], where="post", label=mode, color=COLORS[mode])
        for at, target, action in sorted(failures):
            ax.axvline(at, color="black", linestyle="--", linewidth=1)
            ax.annotate(f"{target} {action}", (at, 0.5), rotation=90, fontsize=7,
                        va="bottom", ha="right")
        if window is not None:
            ax.set_xlim(*window)
            ax.set_title("around the failure", fontsize=10)
        else:
            ax.set_title("whole transfer", fontsize=10)
        ax.set_xlabel("virtual time (us)")
        ax.set_ylabel("goodput (Gb/s)")
    axes[0].legend()
    figure.suptitle(f"{chosen.scenario.name}: goodput (all QPs, "
                    f"{runs['mrc']['goodput_series_gbps']['bin_us']:g} us bins)")
    figure.tight_layout()
    return figure


def _latency_cdf(experiments: list[Experiment]) -> plt.Figure | None:
    if not experiments:
        return None
    figure, axes = plt.subplots(1, len(experiments), figsize=(4 * len(experiments), 3.6),
                                squeeze=False)
    for ax, experiment in zip(axes[0], experiments, strict=True):
        seen: list[float] = []
        for mode in ("mrc", "baseline"):
            run = experiment.runs.get(mode)
            if run is None:
                continue
            values = sorted(x for m in run.metrics.qps.values() for x in m.latencies_us)
            if not values:
                continue
            ys = [(i + 1) / len(values) for i in range(len(values))]
            # from 0 at the lowest latency, so a run whose packets all take the same
            # time is a visible step, not a line on the axis
            ax.step([values[0], *values], [0.0, *ys], where="post", label=mode,
                    color=COLORS[mode])
            seen += (values[0], values[-1])
        ax.set_xscale("log")
        if seen:  # at least a decade around the data, so equal latencies stay visible
            low, high = min(seen), max(seen)
            ax.set_xlim(low / 1.5, max(high * 1.5, low * 10))
        ax.xaxis.set_minor_formatter(NullFormatter())
        ax.set_xlabel("packet latency (us)")
        ax.set_title(experiment.scenario.name, fontsize=10)
        ax.grid(alpha=0.3)
    axes[0][0].set_ylabel("CDF")
    axes[0][0].legend()
    figure.suptitle("Per-packet latency, NIC to NIC host port (first try to delivery)")
    figure.tight_layout()
    return figure
