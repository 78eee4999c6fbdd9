"""Per-packet trace at debug level: headers parsed, tables applied (hit or miss, the
action chosen and its arguments), without slowing down the normal data path.

The generated pipeline code has no trace hook, so tracing uses a second device over the
same state in which every table is wrapped by :class:`TracingTable` (lookups are logged)
and the parser result is captured by :class:`TracingDevice`. The switch uses this
device only while debug logging is on.
"""

from __future__ import annotations

import dataclasses
import logging
from typing import Any

from ..pipeline.pna import PnaDevice
from ..pipeline.v1model import V1ModelDevice
from ..runtime.state import DeviceState

__all__ = ["Tracer", "TracingTable", "TracingDevice", "TracingPnaDevice",
           "make_tracing_device", "valid_headers"]

log = logging.getLogger("behavioral_model.switch")


class Tracer:
    """Holds the label of the packet being processed ("[pkt 12]")."""

    def __init__(self) -> None:
        self.label = ""

    def debug(self, msg: str, *args: Any) -> None:
        log.debug("%s " + msg, self.label, *args)


def _fmt_call(call: Any) -> str:
    if call is None:
        return "?"
    args = ", ".join(hex(a) if a > 9 else str(a) for a in getattr(call, "args", ()))
    return f"{call.name}({args})"


def _fmt_key(values: tuple) -> str:
    return ", ".join(hex(v) if isinstance(v, int) and v > 9 else repr(v) for v in values)


class TracingTable:
    """A table proxy whose ``lookup`` logs the key and the outcome."""

    __slots__ = ("_table", "_tracer")

    def __init__(self, table: Any, tracer: Tracer) -> None:
        self._table = table
        self._tracer = tracer

    def __getattr__(self, name: str) -> Any:
        return getattr(self._table, name)

    @property
    def lookup_fn(self) -> Any:
        """What generated code calls to look a key up: the traced lookup, not the
        table's own fast one (which __getattr__ would hand out)."""
        return self.lookup

    def lookup(self, values: tuple) -> Any:
        entry = self._table.lookup(values)
        name = self._table.name
        if entry is None:
            self._tracer.debug("table %s: key (%s) miss -> default %s", name,
                               _fmt_key(values), _fmt_call(self._table.default_action))
        else:
            prio = f" priority {entry.priority}" if entry.priority else ""
            self._tracer.debug("table %s: key (%s) hit%s -> %s", name, _fmt_key(values),
                               prio, _fmt_call(entry.action))
        return entry


def valid_headers(hdr: Any, prefix: str = "") -> list[str]:
    """Names of the valid headers in a headers struct (nested structs and stacks too)."""
    names: list[str] = []
    for slot in getattr(type(hdr), "__slots__", ()):
        value = getattr(hdr, slot, None)
        if value is None or isinstance(value, int | bool):
            continue
        if hasattr(value, "_valid"):
            if value._valid:
                names.append(prefix + slot)
        elif hasattr(value, "elems"):
            for i, elem in enumerate(value.elems):
                if getattr(elem, "_valid", False):
                    names.append(f"{prefix}{slot}[{i}]")
        elif hasattr(type(value), "__slots__"):
            names.extend(valid_headers(value, f"{prefix}{slot}."))
    return names


class _TracingParser:
    """Logs what the parser extracted and keeps the last packet's standard metadata
    (v1model) or fate (PNA), so the switch can say why a packet was dropped."""

    tracer: Tracer
    last_sm: Any = None
    parser: Any

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        parse = self.parser

        # Both architectures' parsers take (buf, headers, metadata, their input, pk).
        def traced_parser(buf: bytes, hdr: Any, meta: Any, istd: Any, pk: Any) -> int:
            pos = parse(buf, hdr, meta, istd, pk)
            self.last_sm = pk.sm
            headers = ", ".join(valid_headers(hdr)) or "none"
            err = f", parser error {pk.parser_error}" if pk.parser_error else ""
            consumed = pos >> 3 if pk.parser_error else (pos + 7) >> 3
            self.tracer.debug("parser: headers [%s]%s, payload %d bytes", headers, err,
                              len(buf) - consumed)
            return pos

        self.parser = traced_parser


class TracingDevice(_TracingParser, V1ModelDevice):
    """A v1model device that traces its parser."""


class TracingPnaDevice(_TracingParser, PnaDevice):
    """A PNA device that traces its parser."""


def make_tracing_device(program: Any, state: DeviceState, tracer: Tracer,
                        seed: int = 0) -> V1ModelDevice | PnaDevice | None:
    """A :class:`TracingDevice` over ``state`` (shared, tables wrapped), or None if
    one cannot be made for this pipeline (the switch then logs without table trace)."""
    tables = {name: TracingTable(t, tracer) for name, t in state.tables.items()}
    traced_state = dataclasses.replace(state, tables=tables)
    try:
        device_type = TracingPnaDevice if program.compiled.arch == "pna" else TracingDevice
        device = device_type(program.compiled, traced_state, seed=seed)
    except Exception:  # pragma: no cover - the pipeline changed under us
        log.warning("per-packet table trace unavailable", exc_info=True)
        return None
    device.tracer = tracer
    return device
