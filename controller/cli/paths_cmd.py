"""``mrc-ctl paths TOPO QP``: a QP's EVs, planes and carriers, as planned, or with
``--live`` as the NICs hold them (configured, topped up, missing; slot counters)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from rich.table import Table

from controller.device import DeviceLink, DeviceTarget, PipelineCache, ReconcileError
from controller.device.link import CONNECT_TIMEOUT_S
from controller.ev_states import EvState, read_ev_states
from controller.plan import FabricPlan, QpEndPlan, make_plan
from controller.topology import QpDecl, Role, load_topology
from p4rt_client import P4RuntimeSessionError, P4RuntimeWriteError

from .device_options import add_tls_options, tls_of
from .errors import EXIT_DEVICE_FAILURE, EXIT_OK, BadInput
from .render import terminal_console


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "paths", help="show a QP's EVs, planes and carriers",
        description="Show both ends of a QP: each EV (slot or backup), its plane, T1 and "
                    "carrier, and each plane's destination T0 and downlink. Taken from "
                    "the plan; with --live each NIC is also read (as an observer: no "
                    "election): whether each EV id holds its path, the backups topped up "
                    "since the plan, and per slot the packets sent and retirements. Exit "
                    "1 if a NIC cannot be read with --live.")
    parser.add_argument("topology", metavar="TOPO", help="topology file (YAML)")
    parser.add_argument("qp", metavar="QP", help="QP name, as in the topology's qps")
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.add_argument("--live", action="store_true",
                        help="read both NICs for the EVs' states and slot counters")
    parser.add_argument("--connect-timeout", type=float, default=CONNECT_TIMEOUT_S,
                        metavar="S", help="with --live: seconds to wait for a NIC "
                                          "(default %(default)s)")
    add_tls_options(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    plan = make_plan(load_topology(args.topology))
    qp = plan.qp(args.qp)
    if qp is None:
        known = ", ".join(q.name for q in plan.fabric.qps) or "none"
        raise BadInput(f"{args.topology}: no QP named {args.qp!r} (QPs: {known})")
    if args.live:
        try:
            read = [_read_end(plan, qp, side, args) for side in (0, 1)]
        except (P4RuntimeSessionError, P4RuntimeWriteError, ReconcileError) as error:
            text = error.summary() if isinstance(error, P4RuntimeWriteError) else str(error)
            print(f"mrc-ctl paths --live: {text}", file=sys.stderr)
            return EXIT_DEVICE_FAILURE
        ends = [end for end, _ in read]
        states: list[dict[int, EvState]] | None = [s for _, s in read]
    else:
        ends, states = [plan.qp_end(qp, side) for side in (0, 1)], None
    if args.json:
        print(json.dumps({"qp": qp.name, "ends": [
            _end_json(e, states[i] if states else None) for i, e in enumerate(ends)]},
            indent=2))
    else:
        _print_ends(plan, ends, states)
    return EXIT_OK


def _read_end(plan: FabricPlan, qp: QpDecl, side: int, args: argparse.Namespace
              ) -> tuple[QpEndPlan, dict[int, EvState]]:
    nic = plan.fabric.nic(qp.ends[side].nic)
    assert nic is not None
    link = DeviceLink(DeviceTarget(nic.name, Role.NIC, nic.access), PipelineCache(), (0, 1),
                      tls_of(args))
    try:
        link.open_observer(args.connect_timeout)
        if not link.pipeline_current():
            raise ReconcileError(f"{nic.name} does not run the planned NIC pipeline")
        return read_ev_states(plan, qp, side, link)
    finally:
        link.close()


def _state_json(state: EvState | None) -> dict[str, Any]:
    if state is None:
        return {}
    return {"on_nic": state.on_nic, "slot_tx_packets": state.slot_tx_packets,
            "slot_retirements": state.slot_retirements}


def _end_json(end: QpEndPlan, states: dict[int, EvState] | None) -> dict[str, Any]:
    return {
        "nic": end.local.nic, "qpn": end.local.qpn, "qp_index": end.local.qp_index,
        "peer": end.remote.nic, "peer_qpn": end.remote.qpn,
        "ev_slots": end.ev_slots, "ev_mask": end.ev_mask,
        "planes": [{"plane": p.plane, "port": p.port, "src_t0": p.src_t0,
                    "src_t0_usid": p.src_t0_usid, "dst_t0": p.dst_t0,
                    "dst_t0_usid": p.dst_t0_usid, "down_usid": p.down_usid}
                   for p in end.planes],
        "evs": [{"ev_id": e.ev_id, "slot": e.slot, "plane": e.plane, "t1": e.t1,
                 "ev": e.ev, "carrier": e.carrier,
                 **_state_json(states.get(e.ev_id) if states else None)} for e in end.evs],
    }


def _print_ends(plan: FabricPlan, ends: list[QpEndPlan],
                states: list[dict[int, EvState]] | None) -> None:
    console = terminal_console()
    qp = ends[0].qp
    console.print(
        f"[bold]QP {qp.name}[/bold]: {plan.fabric.planes} planes; per plane "
        f"{qp.evs_per_plane} EV(s), {qp.backups_per_plane} backup(s) (of "
        f"{qp.backup_ids_per_plane} ids); min_active "
        f"{qp.min_active}, sack_every {qp.sack_every}, probe_threshold {qp.probe_threshold}")
    for i, end in enumerate(ends):
        console.print(
            f"\n[bold]{end.local.nic}[/bold] (QPN {end.local.qpn:#x}, index "
            f"{end.local.qp_index}) -> [bold]{end.remote.nic}[/bold] (QPN "
            f"{end.remote.qpn:#x}): {end.ev_slots} slots, ev_mask {end.ev_mask}")
        for p in end.planes:
            console.print(
                f"  plane {p.plane}: port {p.port}, {p.src_t0} ({p.src_t0_usid:#06x}) -> "
                f"T1 -> {p.dst_t0} ({p.dst_t0_usid:#06x}), downlink {p.down_usid:#06x}")
        table = Table(box=None, pad_edge=False)
        live = ("on NIC", "slot tx", "retired") if states else ()
        for column in ("EV id", "in", "plane", "T1", "EV", "carrier", *live):
            table.add_column(column)
        for ev in end.evs:
            row = [str(ev.ev_id), "backup" if ev.slot is None else f"slot {ev.slot}",
                   str(ev.plane), ev.t1, f"{ev.ev:#010x}", ev.carrier]
            if states:
                state = states[i][ev.ev_id]
                row += [state.on_nic, _count(state.slot_tx_packets),
                        _count(state.slot_retirements)]
            table.add_row(*row)
        console.print(table)


def _count(value: int | None) -> str:
    return "" if value is None else f"{value:,}"
