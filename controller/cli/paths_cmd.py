"""``mrc-ctl paths TOPO QP``: a QP's EVs, planes and carriers, as planned."""

from __future__ import annotations

import argparse
import json
from typing import Any

from rich.table import Table

from controller.plan import FabricPlan, QpEndPlan, make_plan
from controller.topology import load_topology

from .errors import EXIT_OK, BadInput
from .render import terminal_console


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "paths", help="show a QP's EVs, planes and carriers",
        description="Show both ends of a QP: each EV (slot or backup), its plane, T1 and "
                    "carrier, and each plane's destination T0 and downlink. Taken from "
                    "the plan; no device is asked, so every EV shows its planned place.")
    parser.add_argument("topology", metavar="TOPO", help="topology file (YAML)")
    parser.add_argument("qp", metavar="QP", help="QP name, as in the topology's qps")
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    plan = make_plan(load_topology(args.topology))
    qp = plan.qp(args.qp)
    if qp is None:
        known = ", ".join(q.name for q in plan.fabric.qps) or "none"
        raise BadInput(f"{args.topology}: no QP named {args.qp!r} (QPs: {known})")
    ends = [plan.qp_end(qp, side) for side in (0, 1)]
    if args.json:
        print(json.dumps({"qp": qp.name, "ends": [_end_json(e) for e in ends]}, indent=2))
    else:
        _print_ends(plan, ends)
    return EXIT_OK


def _end_json(end: QpEndPlan) -> dict[str, Any]:
    return {
        "nic": end.local.nic, "qpn": end.local.qpn, "qp_index": end.local.qp_index,
        "peer": end.remote.nic, "peer_qpn": end.remote.qpn,
        "ev_slots": end.ev_slots, "ev_mask": end.ev_mask,
        "planes": [{"plane": p.plane, "port": p.port, "src_t0": p.src_t0,
                    "src_t0_usid": p.src_t0_usid, "dst_t0": p.dst_t0,
                    "dst_t0_usid": p.dst_t0_usid, "down_usid": p.down_usid}
                   for p in end.planes],
        "evs": [{"ev_id": e.ev_id, "slot": e.slot, "plane": e.plane, "t1": e.t1,
                 "ev": e.ev, "carrier": e.carrier} for e in end.evs],
    }


def _print_ends(plan: FabricPlan, ends: list[QpEndPlan]) -> None:
    console = terminal_console()
    qp = ends[0].qp
    console.print(
        f"[bold]QP {qp.name}[/bold]: {plan.fabric.planes} planes; per plane "
        f"{qp.evs_per_plane} EV(s) and {qp.backups_per_plane} backup(s); min_active "
        f"{qp.min_active}, sack_every {qp.sack_every}, probe_threshold {qp.probe_threshold}")
    for end in ends:
        console.print(
            f"\n[bold]{end.local.nic}[/bold] (QPN {end.local.qpn:#x}, index "
            f"{end.local.qp_index}) -> [bold]{end.remote.nic}[/bold] (QPN "
            f"{end.remote.qpn:#x}): {end.ev_slots} slots, ev_mask {end.ev_mask}")
        for p in end.planes:
            console.print(
                f"  plane {p.plane}: port {p.port}, {p.src_t0} ({p.src_t0_usid:#06x}) -> "
                f"T1 -> {p.dst_t0} ({p.dst_t0_usid:#06x}), downlink {p.down_usid:#06x}")
        table = Table(box=None, pad_edge=False)
        for column in ("EV id", "in", "plane", "T1", "EV", "carrier"):
            table.add_column(column)
        for ev in end.evs:
            table.add_row(str(ev.ev_id), "backup" if ev.slot is None else f"slot {ev.slot}",
                          str(ev.plane), ev.t1, f"{ev.ev:#010x}", ev.carrier)
        console.print(table)
