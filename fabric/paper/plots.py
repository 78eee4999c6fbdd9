"""One PNG per paper experiment, shaped like the paper's figure:

* ``goodput-time`` (Fig 9-13, 19): goodput over virtual time, a panel per sweep point,
  MRC (and the baseline), the failures marked;
* ``busbw`` (Fig 16/17): NCCL-tests' bus bandwidth per sweep point, MRC beside RoCE,
  a panel per scenario file;
* ``flows`` (Fig 18/20/21): every flow's goodput (by QP name), MRC beside RoCE;
* ``paths`` (Fig 14): data packets per EV of each QP.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (the backend must be chosen first)

from ..plots import COLORS  # noqa: E402
from .suite import PaperResult  # noqa: E402

__all__ = ["write_figure"]

LABELS = {"mrc": "MRC", "baseline": "baseline"}


def write_figure(result: PaperResult, out: Path) -> Path:
    scenarios = [e.report for file in result.points for e in file]
    draw = {"goodput-time": _goodput_time, "busbw": _busbw, "flows": _flows,
            "paths": _paths}[result.experiment.plot]
    figure = draw(result, scenarios)
    figure.suptitle(f"{result.experiment.figure}: {result.experiment.title} (scaled)",
                    fontsize=11)
    figure.tight_layout()
    path = out / f"{result.experiment.name}.png"
    figure.savefig(path, dpi=100, bbox_inches="tight")
    plt.close(figure)
    return path


def _panels(count: int, width: float = 4.2) -> tuple[plt.Figure, list[Any]]:
    figure, axes = plt.subplots(1, count, figsize=(width * count, 3.6), squeeze=False)
    return figure, list(axes[0])


def _point(report: dict[str, Any]) -> str:
    point = report.get("point") or {}
    return ", ".join(f"{k.split('.')[-1]}={v}" for k, v in point.items()) or report["scenario"]


def _baseline_name(result: PaperResult) -> str:
    scenario = result.points[0][0].scenario
    return {"roce": "RoCE", "single-path": "single path"}.get(scenario.baseline, "baseline")


def _goodput_time(result: PaperResult, scenarios: list[dict[str, Any]]) -> plt.Figure:
    figure, axes = _panels(len(scenarios))
    for ax, report in zip(axes, scenarios, strict=True):
        for label, run in report["runs"].items():
            if label not in COLORS:
                continue
            series = run["goodput_series_gbps"]
            times = [series["start_us"] + i * series["bin_us"]
                     for i in range(len(series["gbps"]))]
            ax.step(times, series["gbps"], where="post", color=COLORS[label],
                    label="MRC" if label == "mrc" else _baseline_name(result))
        for failure in report["runs"]["mrc"]["failures"]:
            ax.axvline(failure["at_us"], color="black", linestyle="--", linewidth=0.8)
        ax.set_title(_point(report), fontsize=9)
        ax.set_xlabel("virtual time (us)")
        ax.set_ylabel("goodput (Gb/s)")
        ax.set_ylim(bottom=0)
    axes[0].legend(fontsize=8)
    return figure


def _busbw(result: PaperResult, scenarios: list[dict[str, Any]]) -> plt.Figure:
    files = [[e.report for e in file] for file in result.points]
    figure, axes = _panels(len(files))
    for ax, reports in zip(axes, files, strict=True):
        names = [_point(r) for r in reports]
        for offset, label in ((-0.2, "mrc"), (0.2, "baseline")):
            values = []
            for report in reports:
                groups = report["figures"].get("workloads", {}).get(label, {})
                values.append(next((g["busbw_gbps"] or 0 for g in groups.values()), 0))
            ax.bar([i + offset for i in range(len(reports))], values, width=0.4,
                   color=COLORS[label],
                   label="MRC" if label == "mrc" else _baseline_name(result))
        ax.set_xticks(range(len(names)), names, fontsize=7)
        ax.set_title(reports[0]["scenario"].split("[")[0], fontsize=9)
        ax.set_ylabel("busbw (Gb/s)")
    axes[0].legend(fontsize=8)
    return figure


def _flows(result: PaperResult, scenarios: list[dict[str, Any]]) -> plt.Figure:
    figure, axes = _panels(len(scenarios), 6.0)
    for ax, report in zip(axes, scenarios, strict=True):
        for offset, label in ((-0.2, "mrc"), (0.2, "baseline")):
            run = report["runs"].get(label)
            if run is None:
                continue
            qps = sorted(run["qps"])
            ax.bar([i + offset for i in range(len(qps))],
                   [run["qps"][q].get("goodput_gbps", 0) for q in qps], width=0.4,
                   color=COLORS[label],
                   label="MRC" if label == "mrc" else _baseline_name(result))
            ax.set_xticks(range(len(qps)), [q.split(":")[-1] for q in qps], rotation=70,
                          fontsize=6)
        ax.set_ylabel("flow goodput (Gb/s)")
        ax.set_title(_point(report), fontsize=9)
    axes[0].legend(fontsize=8)
    return figure


def _paths(result: PaperResult, scenarios: list[dict[str, Any]]) -> plt.Figure:
    loads = scenarios[0]["runs"]["mrc"]["ev_packets"]
    figure, axes = _panels(len(loads))
    for ax, (qp, paths) in zip(axes, loads.items(), strict=True):
        names = list(paths)
        ax.bar(range(len(names)), [paths[k] for k in names], color=COLORS["mrc"])
        ax.set_xticks(range(len(names)), [k.replace(" ", "\n") for k in names], fontsize=7)
        ax.set_title(qp, fontsize=9)
        ax.set_ylabel("data packets sent")
    return figure
