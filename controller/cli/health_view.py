"""The health tables of ``status`` and ``watch``: devices, planes, QP ends, links, and
(``watch``) EV recoveries and the latest events."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any

from rich.console import Group, RenderableType
from rich.table import Table

from controller.events import format_line
from controller.health import FabricHealth
from controller.react import Recovery


def _table(title: str, columns: Iterable[str], numeric_from: int = 1) -> Table:
    table = Table(title=title, title_justify="left", box=None, pad_edge=False)
    for i, column in enumerate(columns):
        table.add_column(column, justify="right" if i >= numeric_from else "left")
    return table


def _pairs(counts: Mapping[str, int]) -> str:
    return ", ".join(f"{k} {v:,}" for k, v in counts.items()) or "-"


def device_table(health: FabricHealth, states: Mapping[str, str]) -> Table:
    """``states``: per device, its connection state or sync verdict."""
    table = _table("Devices", ("device", "role", "state", "drops", "NIC events"),
                   numeric_from=9)
    for d in health.devices:
        state = states.get(d.device, "")
        if not d.reachable:
            state = f"[red]{state or 'unreachable'}[/red]: {d.error}"
        elif state not in ("up", "in sync"):
            state = f"[yellow]{state}[/yellow]"
        table.add_row(d.device, str(d.role), state, _pairs(d.drops), _pairs(d.events))
    return table


def plane_table(health: FabricHealth) -> Table:
    table = _table("Planes", ("plane", "switch tx", "switch drops", "trims", "ECN marks",
                              "NIC tx", "ECN echoes", "NIC trims", "retirements"))
    for p in health.planes:
        table.add_row(str(p.plane), f"{p.switch_tx_packets:,}", f"{p.switch_drops:,}",
                      f"{p.trims:,}", f"{p.ecn_marks:,}", f"{p.nic_tx_packets:,}",
                      f"{p.ecn_echoes:,}", f"{p.nic_trims:,}", f"{p.retirements:,}")
    return table


def qp_table(health: FabricHealth, topped_up: Mapping[tuple[str, int], int]) -> Table:
    table = _table("QP ends", ("QP", "NIC", "index", "tx", "rx", "ECN echoes", "trims",
                               "retirements", "top-ups"), numeric_from=2)
    for q in health.qps:
        table.add_row(q.qp, q.nic, str(q.qp_index), f"{q.tx_packets:,}", f"{q.rx_packets:,}",
                      f"{q.ecn_echoes:,}", f"{q.trims:,}", f"{q.retirements:,}",
                      str(topped_up.get((q.nic, q.qp_index), 0)))
    return table


def link_table(health: FabricHealth) -> Table:
    table = _table("Links (switch ports)", ("port", "peer", "plane", "rx", "tx", "trims",
                                            "ECN marks"), numeric_from=2)
    for link in health.links:
        table.add_row(f"{link.device}:{link.port}", link.peer, str(link.plane),
                      f"{link.rx_packets:,}", f"{link.tx_packets:,}", f"{link.trims:,}",
                      f"{link.ecn_marks:,}")
    return table


def recovery_table(recoveries: Iterable[Recovery]) -> Table:
    table = _table("Retired EVs", ("NIC", "QP index", "EV", "retired", "probes",
                                   "restored after"), numeric_from=4)
    for r in recoveries:
        after = ("probing" if r.restored_at is None
                 else f"{r.restored_at - r.retired_at:.2f} s")
        table.add_row(r.nic, str(r.qp_index), f"{r.ev:#010x}",
                      datetime.fromtimestamp(r.retired_at).strftime("%H:%M:%S"),
                      str(r.probes), after)
    return table


def event_lines(events: Iterable[dict[str, Any]]) -> Table:
    table = _table("Latest events", ("event",), numeric_from=9)
    for record in events:
        table.add_row(format_line(record))
    return table


def health_view(health: FabricHealth, states: Mapping[str, str],
                topped_up: Mapping[tuple[str, int], int],
                extra: Iterable[RenderableType] = ()) -> Group:
    return Group(device_table(health, states), plane_table(health),
                 qp_table(health, topped_up), link_table(health), *extra)
