"""``python -m fabric``: run the fabric scenarios in the simulator.

    python -m fabric list
    python -m fabric run [SCENARIO...] [--topology FILE] [--seed N] [--out DIR] [--quick]
                         [--procs N]
    python -m fabric paper [--only NAME]... [--quick] [--seed N] [--out DIR]

A SCENARIO is a name from ``fabric/scenarios/`` (``python -m fabric list``) or a path
to a scenario file (docs/experiments.md); none means the four of ``DEFAULT``. A file
with sweeps runs once per point. ``paper`` runs the paper's experiments
(``fabric/paper``).
Exit codes: 0 every scenario passed its checks, 1 some check failed, 2 bad input.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

from .checks import validate_checks
from .experiment import Experiment, run_experiment, run_labels
from .paper.cli import add_parser as add_paper_parser
from .paper.cli import cmd_paper
from .report import print_summary, report_json, write_json
from .scenario import Scenario, ScenarioError, load_scenario, load_scenarios
from .sim.partition import add_procs_option

SCENARIO_DIR = Path(__file__).resolve().parent / "scenarios"
# The default scenarios, in the order they run.
DEFAULT = ("spray", "link-failure", "ecn-steer", "incast")
EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one line and exit 2, like the rest
        self.print_usage(sys.stderr)
        print(f"python -m fabric: error: {message}", file=sys.stderr)
        sys.exit(EXIT_USAGE)


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="python -m fabric",
                     description="Emulated multi-plane MRC fabrics running the real P4 "
                                 "programs, in virtual time.")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    sub.add_parser("list", help="list the scenarios")
    run = sub.add_parser("run", help="run scenarios and write the report and plots")
    run.add_argument("scenarios", nargs="*", metavar="SCENARIO",
                     help="scenario names or files (default: all)")
    run.add_argument("--topology", metavar="FILE",
                     help="run on this topology file instead of each scenario's")
    run.add_argument("--seed", type=int, help="override every scenario's seed")
    run.add_argument("--out", default="out", metavar="DIR",
                     help="where report.json and the plots go (default: out)")
    run.add_argument("--quick", action="store_true",
                     help="smaller transfers (each scenario's quick_scale)")
    run.add_argument("--no-plots", action="store_true", help="write the JSON report only")
    add_procs_option(run)
    add_paper_parser(sub)
    return parser


def resolve(name: str) -> Path:
    path = Path(name)
    if path.suffix in (".yaml", ".yml") or path.exists():
        return path
    return SCENARIO_DIR / f"{name}.yaml"


def load_all(args: argparse.Namespace) -> list[Scenario]:
    names = args.scenarios or list(DEFAULT)
    scenarios = []
    problems = []
    for name in names:
        path = resolve(name)
        if not path.exists():
            known = ", ".join(p.stem for p in sorted(SCENARIO_DIR.glob("*.yaml")))
            problems.append(f"no scenario {name!r} (known: {known}; or give a file)")
            continue
        try:
            points = load_scenarios(path)
            for scenario in points:
                validate_checks(scenario)
        except ScenarioError as err:
            problems.append(str(err))
            continue
        update: dict = {}
        if args.topology:
            if not Path(args.topology).is_file():
                problems.append(f"{args.topology}: no such topology file")
                continue
            update["topology"] = str(Path(args.topology).resolve())
        if args.seed is not None:
            update["seed"] = args.seed
        for scenario in points:
            scenario = scenario.model_copy(update=update)
            if args.quick:
                scenario = scenario.scaled(scenario.quick_scale)
            scenarios.append(scenario)
    if problems:
        raise ScenarioError("\n".join(problems))
    return scenarios


def cmd_list(console: Console) -> int:
    files = sorted(SCENARIO_DIR.glob("*.yaml"),
                   key=lambda p: (DEFAULT.index(p.stem) if p.stem in DEFAULT else len(DEFAULT),
                                  p.stem))
    for path in files:
        try:
            scenario = load_scenario(path)
        except ScenarioError as err:
            console.print(f"{path.stem}: [red]{err}[/]")
            continue
        console.print(f"[bold]{scenario.name}[/]: "
                      f"{' '.join(scenario.description.split())}", highlight=False)
    return EXIT_OK


def cmd_run(args: argparse.Namespace, console: Console) -> int:
    scenarios = load_all(args)
    out = Path(args.out)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise ScenarioError(f"{out}: cannot create the output folder: {err.strerror}") from None
    started = time.monotonic()
    experiments: list[Experiment] = []
    columns = (TextColumn("{task.description:<28}"), BarColumn(),
               TextColumn("{task.percentage:>3.0f}%"), TimeElapsedColumn())
    with Progress(*columns, console=console, transient=False) as progress:
        tasks = {(s.name, label): progress.add_task(f"{s.name} {label}", total=1.0)
                 for s in scenarios for label in run_labels(s)}
        for scenario in scenarios:
            def tick(label: str, fraction: float, name: str = scenario.name) -> None:
                progress.update(tasks[(name, label)], completed=fraction)
            experiments.append(run_experiment(scenario, tick, args.procs))
    report = report_json(experiments, {
        "wall_time_s": round(time.monotonic() - started, 1),
        "quick": bool(args.quick)})
    write_json(report, out / "report.json")
    plots: list[Path] = []
    if not args.no_plots:
        # matplotlib takes a second to import: only a run that draws pays for it
        from .plots import write_plots
        plots = write_plots(experiments, out)
    print_summary(report, console)
    console.print(f"report: {out / 'report.json'}" + "".join(f", {p}" for p in plots)
                  + f" ({report['wall_time_s']} s)", highlight=False)
    return EXIT_OK if report["passed"] else EXIT_FAILED


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    # A log or a pipe gets the table at a readable width, not the 80 columns rich
    # assumes without a terminal, and prose lines (paths of any length) unbroken.
    console = Console() if sys.stdout.isatty() else Console(width=150, soft_wrap=True)
    try:
        if args.command == "list":
            return cmd_list(console)
        if args.command == "paper":
            return cmd_paper(args, console)
        return cmd_run(args, console)
    except ScenarioError as err:
        for line in str(err).splitlines():
            print(f"python -m fabric: {line}", file=sys.stderr)
        return EXIT_USAGE
