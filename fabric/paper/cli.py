"""``python -m fabric paper``: run the paper experiments with one progress bar over the
suite, then print each experiment's "paper vs ours" table and the suite's wall time.
Files: OUT/NAME.png and OUT/NAME.json per experiment."""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from ..scenario import ScenarioError
from ..sim.partition import add_procs_option
from .experiments import EXPERIMENTS
from .suite import PaperResult, plan_suite, run_labels_of, run_paper_experiment

__all__ = ["add_parser", "cmd_paper"]


def add_parser(sub: argparse._SubParsersAction) -> None:
    names = ", ".join(e.name for e in EXPERIMENTS)
    paper = sub.add_parser(
        "paper", help="run the MRC paper's experiments (scaled) and compare",
        description="Run the MRC paper's testbed experiments, scaled to the simulator "
                    "(docs/experiments.md), and write per experiment a figure (NAME.png), "
                    "a JSON report (NAME.json) and a 'paper vs ours' table. "
                    f"Experiments: {names}.")
    paper.add_argument("--only", action="append", metavar="NAME",
                       help="run only this experiment (repeatable)")
    paper.add_argument("--quick", action="store_true",
                       help="smaller transfers (each scenario file's quick_scale)")
    paper.add_argument("--seed", type=int, help="override every scenario's seed")
    paper.add_argument("--out", default="out/paper", metavar="DIR",
                       help="where the figures and reports go (default: out/paper)")
    add_procs_option(paper)


def cmd_paper(args: argparse.Namespace, console: Console) -> int:
    """0: every claim holds (or is a stated expected failure); 1: one does not."""
    known = {e.name: e for e in EXPERIMENTS}
    unknown = [n for n in args.only or () if n not in known]
    if unknown:
        raise ScenarioError(f"no experiment {unknown[0]!r} (known: {', '.join(known)})")
    chosen = [known[n] for n in args.only] if args.only else list(EXPERIMENTS)
    suite = plan_suite(chosen, args.quick, args.seed)
    out = Path(args.out)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise ScenarioError(f"{out}: cannot create the output folder: {err.strerror}") from None
    runs = [(e.name, point, label) for e, points in suite for point, label in run_labels_of(points)]
    started = time.monotonic()
    results: list[PaperResult] = []
    columns = (TextColumn("{task.description:<46}"), BarColumn(), MofNCompleteColumn(),
               TimeElapsedColumn())
    with Progress(*columns, console=console, transient=False) as progress:
        task = progress.add_task("paper experiments", total=len(runs))
        finished: set[tuple[str, str, str]] = set()

        def tick(experiment: str, point: str, label: str, fraction: float) -> None:
            key = (experiment, point, label)
            progress.update(task, description=f"{point} {label}"[:46],
                            completed=len(finished) + min(fraction, 0.99))
            if fraction >= 1.0:
                finished.add(key)
                progress.update(task, completed=len(finished))

        from .plots import write_figure  # matplotlib takes a second: only a run imports it
        for experiment, points in suite:
            result = run_paper_experiment(experiment, points, out, tick, args.procs)
            result.report["figure_file"] = str(write_figure(result, out))
            results.append(result)
        progress.update(task, description="paper experiments", completed=len(runs))
    wall = time.monotonic() - started
    for result in results:
        print_claims(result, console)
    console.print(f"paper suite: {len(results)} experiments, {len(runs)} runs, "
                  f"{wall:.0f} s wall time" + (" (--quick)" if args.quick else "")
                  + f"; figures and reports in {out}", highlight=False)
    return 0 if all(r.report["passed"] for r in results) else 1


def print_claims(result: PaperResult, console: Console) -> None:
    e = result.experiment
    table = Table(title=f"{e.figure}: {e.title} — paper vs ours", title_justify="left")
    for column in ("what must show", "paper", "ours", "bound", "result"):
        table.add_column(column, overflow="fold")
    styles = {"pass": "[green]pass[/]", "FAIL": "[red]FAIL[/]",
              "expected failure": "[yellow]expected failure[/]"}
    for claim in result.claims:
        table.add_row(claim["claim"], claim["paper"], claim["ours"], claim["bound"],
                      styles[claim["result"]])
    console.print(table)
    for claim in result.claims:
        if claim["result"] == "expected failure":
            console.print(f"  expected failure: {claim['claim']}: {claim['why']}",
                          highlight=False)
