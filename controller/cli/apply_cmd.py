"""``mrc-ctl apply TOPO``: program every device, writing only the difference."""

from __future__ import annotations

import argparse
import json
import time

from rich.table import Table

from controller.apply import DeviceOutcome, apply_fabric
from controller.plan import make_plan
from controller.topology import load_topology

from .device_options import add_device_options, event_log, tls_of
from .errors import EXIT_DEVICE_FAILURE, EXIT_OK
from .render import terminal_console


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "apply", help="program every device: pipeline, then only the difference",
        description="Connect to every device of TOPO at once and become its primary "
                    "controller; push the pipeline where the device does not run it; "
                    "read what it holds in the tables the plan owns, write only the "
                    "difference (insert missing, modify changed, delete extra) in "
                    "batches, and read back to verify. An unchanged fabric gets no "
                    "writes. Exit 0 when every device holds its plan, 1 when a device "
                    "could not be reached or refused a write, 2 for bad input.")
    add_device_options(parser)
    parser.add_argument("--json", action="store_true",
                        help="print the result as one JSON object")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    plan = make_plan(load_topology(args.topology))
    log = event_log(args)
    start = time.monotonic()
    outcomes = apply_fabric(plan, log, election_id=args.election_id, tls=tls_of(args),
                            connect_timeout=args.connect_timeout)
    seconds = time.monotonic() - start
    if args.json:
        print(json.dumps(result_json(outcomes, seconds), indent=2))
    else:
        print_outcomes(outcomes, seconds)
    return EXIT_OK if all(o.ok for o in outcomes) else EXIT_DEVICE_FAILURE


def result_json(outcomes: list[DeviceOutcome], seconds: float) -> dict[str, object]:
    return {
        "ok": all(o.ok for o in outcomes), "seconds": round(seconds, 3),
        "written": sum(o.counts.total for o in outcomes),
        "pushed": sum(o.pushed for o in outcomes),
        "devices": [{"device": o.device, "ok": o.ok, "pushed": o.pushed,
                     "inserted": o.counts.inserted, "modified": o.counts.modified,
                     "deleted": o.counts.deleted, "problem": o.problem,
                     "message": o.message, "seconds": round(o.seconds, 3)}
                    for o in outcomes],
    }


def print_outcomes(outcomes: list[DeviceOutcome], seconds: float) -> None:
    console = terminal_console()
    table = Table(box=None, pad_edge=False)
    for column in ("device", "pipeline", "inserted", "modified", "deleted", "result"):
        table.add_column(column, justify="right" if column in ("inserted", "modified",
                                                               "deleted") else "left")
    for o in outcomes:
        result = "ok" if o.ok else f"[red]{o.problem}[/red]"
        pipeline = "pushed" if o.pushed else "kept" if o.ok or o.problem == "write" else "-"
        table.add_row(o.device, pipeline, str(o.counts.inserted),
                      str(o.counts.modified), str(o.counts.deleted), result)
    console.print(table)
    for o in outcomes:
        if not o.ok:  # in full, below the table: messages are long
            console.print(f"{o.device}: {o.problem}: {o.message}", soft_wrap=True)
    written = sum(o.counts.total for o in outcomes)
    failed = [o.device for o in outcomes if not o.ok]
    console.print(f"{len(outcomes) - len(failed)}/{len(outcomes)} devices in sync; wrote "
                  f"{written} entries, pushed {sum(o.pushed for o in outcomes)} pipelines, "
                  f"in {seconds:.2f} s" + (f"; failed: {', '.join(failed)}" if failed else ""))
