"""Counters, meters and registers, indexed and direct (P4Runtime spec, "CounterEntry &
DirectCounterEntry", "MeterEntry & DirectMeterEntry", "RegisterEntry").

All of them are only MODIFYed (INSERT/DELETE are INVALID_ARGUMENT). An unset ``index``
means every cell, in writes as in reads; a negative index is INVALID_ARGUMENT and one
past the end OUT_OF_RANGE. Unset ``data`` leaves a counter alone; unset ``config``
returns a meter to its default (every packet GREEN).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from google.rpc import code_pb2
from p4.v1 import p4data_pb2, p4runtime_pb2

from behavioral_model.runtime.tables import TableEntry

from .codec import decode_int, decode_uint, encode_int, encode_uint
from .context import PipelineContext
from .errors import invalid, out_of_range, unimplemented
from .p4info_index import ExternInfo, TableInfo
from .tables import encode_key, find_entry
from .values import (
    decode_counter_data,
    decode_meter_config,
    encode_meter_config,
    make_meter,
)

__all__ = [
    "write_counter", "read_counters", "write_direct_counter", "read_direct_counters",
    "write_meter", "read_meters", "write_direct_meter", "read_direct_meters",
    "write_register", "read_registers",
]

MODIFY = p4runtime_pb2.Update.MODIFY


def _modify_only(kind: int, what: str) -> None:
    if kind != MODIFY:
        raise invalid(f"{what} can only be modified (not inserted or deleted)")


def _indexes(info: ExternInfo, has_index: bool, index: int) -> range:
    if not has_index:
        return range(info.size)
    if index < 0:
        raise invalid(f"'{info.name}': negative index {index}")
    if index >= info.size:
        raise out_of_range(f"'{info.name}': index {index} is outside 0..{info.size - 1}")
    return range(index, index + 1)


# -- indexed counters --------------------------------------------------------------------

def write_counter(ctx: PipelineContext, kind: int, ce: p4runtime_pb2.CounterEntry) -> None:
    _modify_only(kind, "CounterEntry")
    info = ctx.index.counter(ce.counter_id)
    cells = _indexes(info, ce.HasField("index"), ce.index.index)
    if not ce.HasField("data"):
        return
    packets, nbytes = decode_counter_data(ce.data, f"counter '{info.name}'")
    counter = ctx.state.counters[info.name]
    for i in cells:
        counter.write(i, packets, nbytes)


def read_counters(ctx: PipelineContext, want: p4runtime_pb2.CounterEntry,
                  new: Callable[[], p4runtime_pb2.CounterEntry]) -> None:
    infos = ([ctx.index.counter(want.counter_id)] if want.counter_id
             else list(ctx.index.counters.values()))
    for info in infos:
        counter = ctx.state.counters[info.name]
        for i in _indexes(info, want.HasField("index"), want.index.index):
            packets, nbytes = counter.read(i)
            out = new()
            out.counter_id = info.id
            out.index.index = i
            out.data.packet_count = packets
            out.data.byte_count = nbytes
            out.data.SetInParent()


# -- direct counters ---------------------------------------------------------------------

def _direct_table(ctx: PipelineContext, te: p4runtime_pb2.TableEntry, kind: str) -> TableInfo:
    if te.table_id == 0:
        raise invalid(f"Direct{kind}Entry needs table_entry.table_id")
    if te.is_default_action:
        raise unimplemented(f"direct {kind.lower()}s of default entries are not supported")
    info = ctx.index.table(te.table_id)
    if kind == "Counter" and not info.direct_counter_id:
        raise invalid(f"table '{info.name}' has no direct counter")
    if kind == "Meter" and not info.direct_meter_id:
        raise invalid(f"table '{info.name}' has no direct meter")
    return info


def write_direct_counter(ctx: PipelineContext, kind: int,
                         dce: p4runtime_pb2.DirectCounterEntry) -> None:
    _modify_only(kind, "DirectCounterEntry")
    _direct_table(ctx, dce.table_entry, "Counter")
    _, entry = find_entry(ctx, dce.table_entry)
    if dce.HasField("data"):
        packets, nbytes = decode_counter_data(dce.data, "direct counter")
        entry.direct_counter.packets = packets
        entry.direct_counter.bytes = nbytes


def _direct_entries(ctx: PipelineContext, te: p4runtime_pb2.TableEntry,
                    kind: str) -> Iterator[tuple[TableInfo, TableEntry]]:
    if te.table_id == 0:
        attr = "direct_counter_id" if kind == "Counter" else "direct_meter_id"
        for info in ctx.index.tables.values():
            if getattr(info, attr):
                for entry in ctx.state.tables[info.name].entries():
                    yield info, entry
        return
    info = _direct_table(ctx, te, kind)
    if len(te.match) or te.priority:
        ref, entry = find_entry(ctx, te)
        yield ref.info, entry
        return
    for entry in ctx.state.tables[info.name].entries():
        yield info, entry


def read_direct_counters(ctx: PipelineContext, want: p4runtime_pb2.DirectCounterEntry,
                         new: Callable[[], p4runtime_pb2.DirectCounterEntry]) -> None:
    for info, entry in list(_direct_entries(ctx, want.table_entry, "Counter")):
        cell = entry.direct_counter
        out = new()
        encode_key(info, entry, out.table_entry)
        out.data.packet_count = cell.packets
        out.data.byte_count = cell.bytes
        out.data.SetInParent()


# -- meters ------------------------------------------------------------------------------

def write_meter(ctx: PipelineContext, kind: int, me: p4runtime_pb2.MeterEntry) -> None:
    _modify_only(kind, "MeterEntry")
    info = ctx.index.meter(me.meter_id)
    cells = _indexes(info, me.HasField("index"), me.index.index)
    if me.HasField("counter_data"):
        raise unimplemented("per-color meter counters are not supported by this target")
    meters = ctx.state.meters[info.name]
    if not me.HasField("config"):
        for i in cells:
            meters.clear_config(i)
        return
    config = decode_meter_config(me.config, f"meter '{info.name}'")
    make_meter(config)  # validate before touching any cell
    for i in cells:
        meters.set_config(i, config)


def read_meters(ctx: PipelineContext, want: p4runtime_pb2.MeterEntry,
                new: Callable[[], p4runtime_pb2.MeterEntry]) -> None:
    if want.HasField("counter_data"):
        raise unimplemented("per-color meter counters are not supported by this target")
    infos = ([ctx.index.meter(want.meter_id)] if want.meter_id
             else list(ctx.index.meters.values()))
    for info in infos:
        meters = ctx.state.meters[info.name]
        for i in _indexes(info, want.HasField("index"), want.index.index):
            out = new()
            out.meter_id = info.id
            out.index.index = i
            config = meters.get_config(i)
            if config is not None:
                out.config.CopyFrom(encode_meter_config(config))


def write_direct_meter(ctx: PipelineContext, kind: int,
                       dme: p4runtime_pb2.DirectMeterEntry) -> None:
    _modify_only(kind, "DirectMeterEntry")
    _direct_table(ctx, dme.table_entry, "Meter")
    if dme.HasField("counter_data"):
        raise unimplemented("per-color meter counters are not supported by this target")
    _, entry = find_entry(ctx, dme.table_entry)
    meter = None
    if dme.HasField("config"):
        meter = make_meter(decode_meter_config(dme.config, "direct meter"))
    entry.direct_meter = meter


def read_direct_meters(ctx: PipelineContext, want: p4runtime_pb2.DirectMeterEntry,
                       new: Callable[[], p4runtime_pb2.DirectMeterEntry]) -> None:
    if want.HasField("counter_data"):
        raise unimplemented("per-color meter counters are not supported by this target")
    for info, entry in list(_direct_entries(ctx, want.table_entry, "Meter")):
        out = new()
        encode_key(info, entry, out.table_entry)
        meter = entry.direct_meter
        if meter is not None:
            out.config.CopyFrom(encode_meter_config(meter.config))


# -- registers ---------------------------------------------------------------------------

def _decode_data(info: ExternInfo, data: p4data_pb2.P4Data) -> int:
    which = data.WhichOneof("data")
    what = f"register '{info.name}'"
    expected = {"bit": "bitstring", "int": "bitstring", "bool": "bool",
                "enum": "enum_value"}.get(info.data_kind)
    if expected is None:
        raise unimplemented(f"{what}: registers of this type are not supported")
    if which != expected:
        raise invalid(f"{what}: data must be a P4Data {expected}, got {which}")
    if info.data_kind == "bool":
        return int(data.bool)
    raw = data.enum_value if info.data_kind == "enum" else data.bitstring
    if info.data_kind == "int":
        value = decode_int(raw, info.width, what, code_pb2.OUT_OF_RANGE)
        return value & ((1 << info.width) - 1)
    return decode_uint(raw, info.width, what, code_pb2.OUT_OF_RANGE)


def _encode_data(info: ExternInfo, value: int) -> p4data_pb2.P4Data:
    if info.data_kind == "bool":
        return p4data_pb2.P4Data(bool=bool(value))
    if info.data_kind == "enum":
        return p4data_pb2.P4Data(enum_value=encode_uint(value))
    if info.data_kind == "int":
        if value >> (info.width - 1):
            value -= 1 << info.width
        return p4data_pb2.P4Data(bitstring=encode_int(value))
    return p4data_pb2.P4Data(bitstring=encode_uint(value))


def write_register(ctx: PipelineContext, kind: int, re: p4runtime_pb2.RegisterEntry) -> None:
    _modify_only(kind, "RegisterEntry")
    info = ctx.index.register(re.register_id)
    cells = _indexes(info, re.HasField("index"), re.index.index)
    if not re.HasField("data"):
        raise invalid(f"register '{info.name}': data is not set")
    value = _decode_data(info, re.data)
    register = ctx.state.registers[info.name]
    for i in cells:
        register.write_checked(i, value)


def read_registers(ctx: PipelineContext, want: p4runtime_pb2.RegisterEntry,
                   new: Callable[[], p4runtime_pb2.RegisterEntry]) -> None:
    infos = ([ctx.index.register(want.register_id)] if want.register_id
             else list(ctx.index.registers.values()))
    for info in infos:
        register = ctx.state.registers[info.name]
        for i in _indexes(info, want.HasField("index"), want.index.index):
            out = new()
            out.register_id = info.id
            out.index.index = i
            out.data.CopyFrom(_encode_data(info, register.read_checked(i)))
