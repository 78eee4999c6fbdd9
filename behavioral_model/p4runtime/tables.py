"""``TableEntry`` writes and reads over ``runtime.tables.Table``.

Rules (P4Runtime spec, "TableEntry"): the key is (match, priority); priorities are
> 0 exactly for tables with ternary/range/optional fields; ``is_const`` must be false in
writes; const tables and const entries only take MODIFYs of direct resources
(PERMISSION_DENIED otherwise); the default entry (``is_default_action``) is only
MODIFYed, with an action or without one to restore the P4 program's default; DELETE
looks at the key only. Direct counter/meter data can ride along in ``counter_data``
and ``meter_config``. Every check runs before the state is touched.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from p4.v1 import p4runtime_pb2

from behavioral_model.runtime.errors import RuntimeStateError
from behavioral_model.runtime.externs import CounterCell, TrTcmMeter
from behavioral_model.runtime.matches import FieldMatch
from behavioral_model.runtime.tables import ActionCall, Table, TableEntry

from .context import EntryKey, PipelineContext
from .errors import from_runtime_error, invalid, not_found, permission_denied, unimplemented
from .fieldmatch import decode_matches, encode_match
from .p4info_index import TableInfo
from .values import (
    counter_cell,
    decode_meter_config,
    decode_table_action,
    encode_action,
    encode_meter_config,
    make_meter,
)

__all__ = ["write_table_entry", "read_table_entries", "find_entry", "encode_entry",
           "EntryRef"]

Update = p4runtime_pb2.Update


@dataclass
class EntryRef:
    """A decoded table-entry key: the table and its canonical matches and priority."""

    info: TableInfo
    table: Table
    matches: tuple[FieldMatch | None, ...]
    priority: int

    @property
    def key(self) -> EntryKey:
        return (self.info.name, self.matches, self.priority)


def _table(ctx: PipelineContext, table_id: int) -> tuple[TableInfo, Table]:
    info = ctx.index.table(table_id)
    return info, ctx.state.tables[info.name]


def decode_key(ctx: PipelineContext, te: p4runtime_pb2.TableEntry) -> EntryRef:
    """Table, canonical matches and priority of ``te``, validated."""
    info, table = _table(ctx, te.table_id)
    owner = f"table '{info.name}'"
    matches = decode_matches(info.fields_by_id, len(table.keys), te.match, owner)
    try:
        matches = table.canonical_matches(matches)
    except RuntimeStateError as err:
        raise from_runtime_error(err) from None
    if info.needs_priority:
        if te.priority <= 0:
            raise invalid(f"{owner} has ternary/range/optional fields: entries need a "
                          f"priority > 0, got {te.priority}")
    elif te.priority != 0:
        raise invalid(f"{owner} has only exact/lpm fields: priority must be 0, "
                      f"got {te.priority}")
    return EntryRef(info, table, matches, te.priority)


def find_entry(ctx: PipelineContext, te: p4runtime_pb2.TableEntry) -> tuple[EntryRef,
                                                                           TableEntry]:
    """The stored entry ``te`` names (NOT_FOUND if none)."""
    ref = decode_key(ctx, te)
    entry = ref.table.find(ref.matches, ref.priority)
    if entry is None:
        raise not_found(f"table '{ref.info.name}': no entry with this match and priority")
    return ref, entry


# -- writes ------------------------------------------------------------------------------

def write_table_entry(ctx: PipelineContext, kind: int, te: p4runtime_pb2.TableEntry) -> None:
    if te.table_id == 0:
        raise invalid("table_id 0 is not valid in a write")
    if te.is_const:
        raise invalid("is_const must be false in a write")
    if te.is_default_action:
        _write_default(ctx, kind, te)
    elif kind == Update.INSERT:
        _insert(ctx, te)
    elif kind == Update.MODIFY:
        _modify(ctx, te)
    elif kind == Update.DELETE:
        _delete(ctx, te)
    else:
        raise invalid("update type must be INSERT, MODIFY or DELETE")


def _check_extras(info: TableInfo, te: p4runtime_pb2.TableEntry) -> None:
    owner = f"table '{info.name}'"
    if te.HasField("time_since_last_hit"):
        raise invalid(f"{owner}: time_since_last_hit cannot be written")
    if te.idle_timeout_ns and not info.supports_timeout:
        raise invalid(f"{owner} does not support idle timeout (no support_timeout)")
    if te.idle_timeout_ns < 0:
        raise invalid(f"{owner}: idle_timeout_ns cannot be negative")
    if te.HasField("counter_data") and not info.direct_counter_id:
        raise invalid(f"{owner} has no direct counter; counter_data must be unset")
    if te.HasField("meter_config") and not info.direct_meter_id:
        raise invalid(f"{owner} has no direct meter; meter_config must be unset")
    if te.HasField("meter_counter_data"):
        raise unimplemented("per-color meter counters are not supported by this target")


def _meter(info: TableInfo, te: p4runtime_pb2.TableEntry) -> TrTcmMeter | None:
    if not te.HasField("meter_config"):
        return None
    return make_meter(decode_meter_config(te.meter_config, f"table '{info.name}'"))


def _insert(ctx: PipelineContext, te: p4runtime_pb2.TableEntry) -> None:
    info, table = _table(ctx, te.table_id)
    if info.is_const or table.const_entries:
        raise permission_denied(f"table '{info.name}' has const entries; it cannot be "
                                "written at runtime")
    if not table.keys:
        raise invalid(f"table '{info.name}' has no key; only its default entry can be "
                      "modified")
    ref = decode_key(ctx, te)
    _check_extras(info, te)
    if not te.HasField("action"):
        raise invalid(f"table '{info.name}': an INSERT needs an action")
    action = decode_table_action(ctx.index, info, te.action, default=False)
    entry = TableEntry(ref.matches, action, ref.priority, idle_timeout_ns=te.idle_timeout_ns)
    if te.HasField("counter_data"):
        entry.direct_counter = counter_cell(te.counter_data, f"table '{info.name}'")
    entry.direct_meter = _meter(info, te)
    try:
        table.insert(entry)
    except RuntimeStateError as err:
        raise from_runtime_error(err) from None
    _set_meta(ctx, ref.key, te)


def _set_meta(ctx: PipelineContext, key: EntryKey, te: p4runtime_pb2.TableEntry) -> None:
    if te.controller_metadata or te.metadata:
        ctx.extras.entry_meta[key] = (te.controller_metadata, te.metadata)
    else:
        ctx.extras.entry_meta.pop(key, None)


def _modify(ctx: PipelineContext, te: p4runtime_pb2.TableEntry) -> None:
    ref, stored = find_entry(ctx, te)
    info = ref.info
    _check_extras(info, te)
    is_const = stored.is_const or info.is_const or ref.table.const_entries
    if is_const and te.HasField("action"):
        raise permission_denied(f"table '{info.name}': the entry is const; only its "
                                "direct resources can be modified (leave action unset)")
    action: ActionCall | None = None
    if te.HasField("action"):
        action = decode_table_action(ctx.index, info, te.action, default=False)
    meter = _meter(info, te)
    counter: CounterCell | None = None
    if te.HasField("counter_data"):
        counter = counter_cell(te.counter_data, f"table '{info.name}'")
    if not is_const:
        changed = TableEntry(ref.matches, action or stored.action, ref.priority,
                             idle_timeout_ns=te.idle_timeout_ns)
        try:
            ref.table.modify(changed)
        except RuntimeStateError as err:
            raise from_runtime_error(err) from None
        _set_meta(ctx, ref.key, te)
    if counter is not None:
        stored.direct_counter = counter
    if info.direct_meter_id:
        stored.direct_meter = meter  # unset meter_config = back to the default (GREEN)


def _delete(ctx: PipelineContext, te: p4runtime_pb2.TableEntry) -> None:
    info, table = _table(ctx, te.table_id)
    if info.is_const or table.const_entries:
        raise permission_denied(f"table '{info.name}' has const entries; it cannot be "
                                "written at runtime")
    ref, _ = find_entry(ctx, te)
    try:
        table.delete(ref.matches, ref.priority)
    except RuntimeStateError as err:
        raise from_runtime_error(err) from None
    ctx.extras.entry_meta.pop(ref.key, None)


def _write_default(ctx: PipelineContext, kind: int, te: p4runtime_pb2.TableEntry) -> None:
    info, table = _table(ctx, te.table_id)
    owner = f"table '{info.name}'"
    if kind != Update.MODIFY:
        raise invalid(f"{owner}: the default entry can only be modified (not inserted or "
                      "deleted)")
    if len(te.match) or te.priority:
        raise invalid(f"{owner}: the default entry has no match and priority 0")
    if te.idle_timeout_ns or te.HasField("time_since_last_hit"):
        raise invalid(f"{owner}: the default entry has no idle timeout")
    if te.HasField("counter_data") or te.HasField("meter_config") or \
            te.HasField("meter_counter_data"):
        raise unimplemented(f"{owner}: direct resources of the default entry are not "
                            "supported by this target")
    if info.const_default_id or table.default_is_const:
        raise permission_denied(f"{owner}: the default action is const")
    if te.HasField("action"):
        action = decode_table_action(ctx.index, info, te.action, default=True)
    else:
        action = info.initial_default
    try:
        table.set_default(action)
    except RuntimeStateError as err:
        raise from_runtime_error(err) from None
    if te.HasField("action") and (te.controller_metadata or te.metadata):
        ctx.extras.default_meta[info.name] = (te.controller_metadata, te.metadata)
    else:
        ctx.extras.default_meta.pop(info.name, None)


# -- reads -------------------------------------------------------------------------------

def encode_entry(ctx: PipelineContext, info: TableInfo, table: Table, entry: TableEntry,
                 want: p4runtime_pb2.TableEntry | None = None, now_ns: int = 0,
                 te: p4runtime_pb2.TableEntry | None = None) -> p4runtime_pb2.TableEntry:
    """The P4Runtime form of ``entry`` (filled into ``te`` when given); direct
    resources and time since last hit are included when ``want`` (the read request)
    asks for them."""
    if te is None:
        te = p4runtime_pb2.TableEntry()
    te.table_id = info.id
    te.priority = entry.priority
    for field in info.fields:
        match = entry.matches[field.position]
        if match is not None:
            encode_match(field, match, te.match.add())
    encode_action(ctx.index, entry.action, te.action.action)
    te.idle_timeout_ns = entry.idle_timeout_ns
    te.is_const = entry.is_const or table.const_entries
    meta = ctx.extras.entry_meta.get((info.name, entry.matches, entry.priority))
    if meta is not None:
        te.controller_metadata, te.metadata = meta
    if want is not None:
        _add_direct(info, entry, want, te, now_ns)
    return te


def _add_direct(info: TableInfo, entry: TableEntry, want: p4runtime_pb2.TableEntry,
                te: p4runtime_pb2.TableEntry, now_ns: int) -> None:
    if want.HasField("counter_data") and info.direct_counter_id:
        cell = entry.direct_counter
        te.counter_data.packet_count = cell.packets
        te.counter_data.byte_count = cell.bytes
        te.counter_data.SetInParent()
    if want.HasField("meter_config") and info.direct_meter_id and \
            entry.direct_meter is not None:
        te.meter_config.CopyFrom(encode_meter_config(entry.direct_meter.config))
    if want.HasField("time_since_last_hit"):
        last = entry.last_hit_ns
        te.time_since_last_hit.elapsed_ns = max(0, now_ns - last) if last else 0


def encode_default(ctx: PipelineContext, info: TableInfo, table: Table,
                   te: p4runtime_pb2.TableEntry) -> None:
    te.table_id = info.id
    te.is_default_action = True
    encode_action(ctx.index, table.default_action, te.action.action)
    meta = ctx.extras.default_meta.get(info.name)
    if meta is not None:
        te.controller_metadata, te.metadata = meta


def read_table_entries(ctx: PipelineContext, want: p4runtime_pb2.TableEntry,
                       new: Callable[[], p4runtime_pb2.TableEntry], now_ns: int = 0) -> None:
    """Fill ``new()`` with each entry selected by the (wildcard) read request ``want``."""
    if want.table_id == 0:
        infos = list(ctx.index.tables.values())
    else:
        infos = [ctx.index.table(want.table_id)]
    ref = None
    if want.table_id and len(want.match) and not want.is_default_action:
        ref = decode_matches(infos[0].fields_by_id,
                             len(ctx.state.tables[infos[0].name].keys), want.match,
                             f"table '{infos[0].name}'")
    action_id = want.action.action.action_id if want.action.HasField("action") else 0
    for info in infos:
        table = ctx.state.tables[info.name]
        if want.is_default_action:
            encode_default(ctx, info, table, new())
            continue
        if ref is not None:
            try:
                matches = table.canonical_matches(ref)
            except RuntimeStateError as err:
                raise from_runtime_error(err) from None
            candidates = [e for e in table.entries() if e.matches == matches]
        else:
            candidates = table.entries()
        for entry in candidates:
            if want.priority and entry.priority != want.priority:
                continue
            if action_id and ctx.index.action_ids.get(entry.action.name) != action_id:
                continue
            if want.controller_metadata or want.metadata:
                meta = ctx.extras.entry_meta.get((info.name, entry.matches, entry.priority),
                                                 (0, b""))
                if want.controller_metadata and meta[0] != want.controller_metadata:
                    continue
                if want.metadata and meta[1] != want.metadata:
                    continue
            encode_entry(ctx, info, table, entry, want, now_ns, new())
