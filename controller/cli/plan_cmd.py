"""``mrc-ctl plan TOPO``: the plan's size, or its entries, without touching a device."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable

from rich.table import Table

from controller.plan import FabricPlan, PlanSummary, make_plan, summarize
from controller.topology import load_topology

from .errors import EXIT_OK, BadInput
from .render import entity_json, entity_line, terminal_console


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "plan", help="compute the tables of a fabric (no devices)",
        description="Compute every device's table entries from a topology file and print "
                    "their number per role and per table, or the entries themselves. "
                    "Touches no device.")
    parser.add_argument("topology", metavar="TOPO", help="topology file (YAML)")
    show = parser.add_mutually_exclusive_group()
    show.add_argument("--entries", action="store_true",
                      help="print every entry of every device, one a line")
    show.add_argument("--device", metavar="NAME", help="print one device's entries")
    parser.add_argument("--json", action="store_true",
                        help="JSON: the summary as one object; entries as JSON lines")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    plan = make_plan(load_topology(args.topology))
    if args.device is not None:
        if plan.role_of(args.device) is None:
            raise BadInput(f"{args.topology}: no device named {args.device!r}")
        _print_entries(plan, [args.device], args.json)
    elif args.entries:
        _print_entries(plan, plan.device_names(), args.json)
    elif args.json:
        print(json.dumps(summarize(plan).to_json(), indent=2))
    else:
        print_summary(summarize(plan))
    return EXIT_OK


def _print_entries(plan: FabricPlan, devices: Iterable[str], as_json: bool) -> None:
    # Plain writes, one device at a time: the production plan has millions of lines.
    write = sys.stdout.write
    for device in devices:
        entities = plan.device_entities(device)
        if as_json:
            write("".join(json.dumps(entity_json(device, e)) + "\n" for e in entities))
        else:
            write("".join(entity_line(device, e) + "\n" for e in entities))


def print_summary(summary: PlanSummary) -> None:
    console = terminal_console()
    console.print(
        f"[bold]{summary.name}[/bold] ({summary.source}): {summary.planes} planes, "
        f"uSID block {summary.usid_block}, {summary.devices:,} devices, {summary.qps} QPs")
    roles = Table(title="Entries by role", title_justify="left")
    roles.add_column("role")
    roles.add_column("devices", justify="right")
    roles.add_column("per device", justify="right")
    roles.add_column("entries", justify="right")
    for role in summary.roles:
        roles.add_row(str(role.role), f"{role.devices:,}",
                      _span(role.min_per_device, role.max_per_device), f"{role.total:,}")
    roles.add_section()
    roles.add_row("total", f"{summary.devices:,}", "", f"{summary.total:,}")
    console.print(roles)
    tables = Table(title="Entries by table", title_justify="left")
    tables.add_column("role")
    tables.add_column("table")
    tables.add_column("per device", justify="right")
    tables.add_column("entries", justify="right")
    for role in summary.roles:
        for table in role.tables:
            tables.add_row(str(role.role), table.kind,
                           _span(table.min_per_device, table.max_per_device),
                           f"{table.total:,}")
    console.print(tables)


def _span(low: int, high: int) -> str:
    return f"{low:,}" if low == high else f"{low:,}-{high:,}"
