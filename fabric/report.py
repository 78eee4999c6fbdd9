"""The report of a set of experiments: ``report.json`` (everything measured) and the
summary table printed at the end of ``python -m fabric run`` (MRC vs baseline)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from .experiment import Experiment


def report_json(experiments: list[Experiment], meta: dict[str, Any]) -> dict[str, Any]:
    return {**meta, "passed": all(e.report["passed"] for e in experiments),
            "scenarios": [e.report for e in experiments]}


def write_json(report: dict[str, Any], path: Path) -> None:
    path.write_text(json.dumps(report, indent=1, sort_keys=False) + "\n", encoding="utf-8")


def headline(report: dict[str, Any]) -> str:
    """One line: the scenario's own result, what each of its checks measured."""
    return "; ".join(c["summary"] for c in report["checks"] if c["metric"] != "intact")


def _num(value: float | None, unit: str = "") -> str:
    if value is None:
        return "-"
    return f"{value:,.1f}{unit}"


def print_summary(report: dict[str, Any], console: Console) -> None:
    table = Table(title="MRC vs baseline (each scenario's: single-path QPs or RoCE), "
                        "virtual time")
    for column in ("scenario", "outcome", "result"):
        table.add_column(column, overflow="fold")
    for column in ("completion us\nMRC / base", "goodput Gb/s\nMRC / base",
                   "p99 latency us\nMRC / base"):
        table.add_column(column, justify="right")
    for scenario in report["scenarios"]:
        runs = scenario["runs"]
        mrc, base = runs["mrc"], runs.get("baseline", {})
        cells = []
        for key in ("completion_us", "goodput_gbps", "latency_p99_us"):
            cells.append(f"{_num(mrc.get(key))} / {_num(base.get(key))}")
        outcome = "[green]PASS[/]" if scenario["passed"] else "[red]FAIL[/]"
        table.add_row(scenario["scenario"], outcome, headline(scenario), *cells)
    console.print(table)
    for scenario in report["scenarios"]:
        for check in scenario["checks"]:
            mark = "[green]ok[/]  " if check["ok"] else "[red]FAIL[/]"
            console.print(f"  {mark} {scenario['scenario']}: {check['check']}: "
                          f"{check['detail']}", highlight=False)
