"""Entities as text lines and JSON objects, values shown as what they are (addresses,
uSIDs, MACs) by the name of their field."""

from __future__ import annotations

import ipaddress
import sys
from typing import Any

from rich.console import Console

from controller.plan import DigestConfig, Entity, Exact, MulticastGroup, TableEntry
from controller.topology.values import format_mac


def terminal_console() -> Console:
    """rich output: the terminal's width, or a fixed one when piped (files, tests), so
    that tables do not squeeze into rich's default of 80 columns. Prose lines never wrap
    (``soft_wrap``): a long topology path must not split a line that scripts grep."""
    return Console(width=None if sys.stdout.isatty() else 110, highlight=False,
                   soft_wrap=True)


def format_value(field: str, value: int) -> str:
    """A match or parameter value for people: the field's name says what it holds."""
    if field == "dst_addr":
        return str(ipaddress.IPv6Address(value))
    if field == "dst_usid_prefix":  # block:uSID, 48 bits
        return f"{value >> 32:04x}:{value >> 16 & 0xFFFF:04x}:{value & 0xFFFF:04x}"
    if field.endswith("_mac"):
        return format_mac(value)
    if field == "usid_block":
        return f"{value:#010x}"
    if "usid" in field:
        return f"{value:#06x}"
    if field.endswith("qpn"):
        return f"{value:#x}"
    return str(value)


def entity_line(device: str, entity: Entity) -> str:
    """``device  table  key=value ...  ->  action(param=value, ...)``."""
    if isinstance(entity, TableEntry):
        match = " ".join(
            f"{name}={format_value(name, m.value)}"
            + ("" if isinstance(m, Exact) else f"/{m.prefix_len}")
            for name, m in entity.match)
        params = ", ".join(f"{name}={format_value(name, v)}" for name, v in entity.params)
        return f"{device}  {entity.table}  {match}  ->  {entity.action}({params})"
    if isinstance(entity, MulticastGroup):
        replicas = ", ".join(f"port {r.port} rid {r.instance}" for r in entity.replicas)
        return f"{device}  pre.multicast_group  group_id={entity.group_id}  ->  [{replicas}]"
    return (f"{device}  digest  {entity.digest}  ->  max_timeout_ns={entity.max_timeout_ns}, "
            f"max_list_size={entity.max_list_size}, ack_timeout_ns={entity.ack_timeout_ns}")


def entity_json(device: str, entity: Entity) -> dict[str, Any]:
    """One entity as JSON: values are integers, as a P4Runtime client encodes them."""
    if isinstance(entity, TableEntry):
        return {
            "device": device, "kind": "table_entry", "table": entity.table,
            "match": {name: ({"exact": m.value} if isinstance(m, Exact)
                             else {"lpm": m.value, "prefix_len": m.prefix_len})
                      for name, m in entity.match},
            "action": entity.action, "params": dict(entity.params),
        }
    if isinstance(entity, MulticastGroup):
        return {"device": device, "kind": "multicast_group", "group_id": entity.group_id,
                "replicas": [{"port": r.port, "instance": r.instance}
                             for r in entity.replicas]}
    assert isinstance(entity, DigestConfig)
    return {"device": device, "kind": "digest", "digest": entity.digest,
            "max_timeout_ns": entity.max_timeout_ns, "max_list_size": entity.max_list_size,
            "ack_timeout_ns": entity.ack_timeout_ns}
