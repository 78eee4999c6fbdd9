"""Text for entries, actions, tables and actions lists (``table_dump``,
``show_tables``, ``show_actions``, ``table_info``). Values are hex, as BMv2's CLI
shows them."""

from __future__ import annotations

from p4.config.v1 import p4info_pb2
from p4.v1 import p4runtime_pb2

from behavioral_model.cli.runtime_shell.syntax import from_p4rt_priority, needs_priority
from p4rt_client import P4InfoHelper, decode_value

__all__ = ["action_text", "match_lines", "table_line", "action_line"]

_KIND_NAMES = {p4info_pb2.MatchField.EXACT: "exact", p4info_pb2.MatchField.LPM: "lpm",
               p4info_pb2.MatchField.TERNARY: "ternary", p4info_pb2.MatchField.RANGE: "range",
               p4info_pb2.MatchField.OPTIONAL: "optional"}


def _hex(data: bytes, width: int) -> str:
    return f"0x{decode_value(data):0{(width + 3) // 4}x}"


def action_text(helper: P4InfoHelper, action: p4runtime_pb2.Action) -> str:
    """``name(param=0x.., ...)``."""
    info = helper.by_id(action.action_id)
    widths = {p.id: (p.name, p.bitwidth) for p in info.params}
    args = ", ".join(f"{widths[p.param_id][0]}={_hex(p.value, widths[p.param_id][1])}"
                     for p in action.params)
    return f"{info.preamble.name}({args})"


def match_lines(table: p4info_pb2.Table, entry: p4runtime_pb2.TableEntry) -> list[str]:
    """One line per key field: ``name: KIND value`` (``*`` for a wildcard)."""
    given = {m.field_id: m for m in entry.match}
    lines = []
    for field in table.match_fields:
        kind = _KIND_NAMES.get(field.match_type, "?")
        match = given.get(field.id)
        width = field.bitwidth
        if match is None:
            text = "*"
        elif match.HasField("lpm"):
            text = f"{_hex(match.lpm.value, width)}/{match.lpm.prefix_len}"
        elif match.HasField("ternary"):
            text = f"{_hex(match.ternary.value, width)} &&& {_hex(match.ternary.mask, width)}"
        elif match.HasField("range"):
            text = f"{_hex(match.range.low, width)} -> {_hex(match.range.high, width)}"
        elif match.HasField("optional"):
            text = _hex(match.optional.value, width)
        else:
            text = _hex(match.exact.value, width)
        lines.append(f"  {field.name:24} {kind.upper():8} {text}")
    if needs_priority(table):
        lines.append(f"  {'priority':24} {from_p4rt_priority(entry.priority)}")
    return lines


def table_line(table: p4info_pb2.Table) -> str:
    keys = ", ".join(f"{f.name}({_KIND_NAMES.get(f.match_type, '?')}, {f.bitwidth})"
                     for f in table.match_fields)
    return f"{table.preamble.name:32} [{keys}]"


def action_line(action: p4info_pb2.Action) -> str:
    params = ", ".join(f"{p.name}({p.bitwidth})" for p in action.params)
    return f"{action.preamble.name:32} [{params}]"
