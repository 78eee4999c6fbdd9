"""``TableEntry`` writes and reads over ``runtime.tables.Table``.

Rules (P4Runtime spec, "TableEntry"): the key is (match, priority); priorities are
> 0 exactly for tables with ternary/range/optional fields; ``is_const`` must be false in
writes; const tables and const entries only take MODIFYs of direct resources
(PERMISSION_DENIED otherwise); the default entry (``is_default_action``) is only
MODIFYed, with an action or without one to restore the P4 program's default; DELETE
looks at the key only. Direct counter/meter data can ride along in ``counter_data``
and ``meter_config``. Tables implemented by an action profile or selector take member
and group references and one-shot action sets (``profiles_rw``); their default entry
is a const NoAction (spec, "Default Entry"). Every check runs before the state is
touched. Writes work on the plain :class:`~.entrydata.EntryData` form.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from p4.v1 import p4runtime_pb2

from behavioral_model.runtime.action_profiles import GroupRef, MemberRef
from behavioral_model.runtime.errors import RuntimeStateError
from behavioral_model.runtime.externs import CounterCell, TrTcmMeter
from behavioral_model.runtime.matches import FieldMatch
from behavioral_model.runtime.tables import ActionCall, Table, TableEntry

from .context import EntryKey, PipelineContext
from .entrydata import EntryData, TableActionData, entry_data
from .errors import from_runtime_error, invalid, not_found, permission_denied, unimplemented
from .fieldmatch import MatchData, decode_matches, encode_match, match_data
from .p4info_index import TableInfo
from .profiles_rw import IndirectRef, decode_indirect_action, encode_indirect_action
from .values import (
    check_scope,
    counter_cell,
    decode_action,
    decode_meter_config,
    encode_action,
    encode_meter_config,
    make_meter,
)

__all__ = ["write_table_entry", "write_entry", "select_entries",
           "find_entry", "encode_entry", "encode_default", "EntryRef"]

Update = p4runtime_pb2.Update
INSERT, MODIFY, DELETE = Update.INSERT, Update.MODIFY, Update.DELETE


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


def _decode_key(info: TableInfo, table: Table, matches: list[MatchData],
                priority: int) -> EntryRef:
    """Table, canonical matches and priority, validated. The decoded matches are
    canonical already (don't-care spellings are refused); ``Table`` checks them again
    against its key when it stores or finds the entry."""
    owner = f"table '{info.name}'"
    decoded = decode_matches(info.fields_by_id, len(table.keys), matches, owner)
    if info.needs_priority:
        if priority <= 0:
            raise invalid(f"{owner} has ternary/range/optional fields: entries need a "
                          f"priority > 0, got {priority}")
    elif priority != 0:
        raise invalid(f"{owner} has only exact/lpm fields: priority must be 0, "
                      f"got {priority}")
    return EntryRef(info, table, decoded, priority)


def _find(ref: EntryRef) -> TableEntry:
    try:
        entry = ref.table.find(ref.matches, ref.priority)
    except RuntimeStateError as err:
        raise from_runtime_error(err) from None
    if entry is None:
        raise not_found(f"table '{ref.info.name}': no entry with this match and priority")
    return entry


def find_entry(ctx: PipelineContext, te: p4runtime_pb2.TableEntry) -> tuple[EntryRef,
                                                                           TableEntry]:
    """The stored entry ``te`` names (NOT_FOUND if none)."""
    info, table = _table(ctx, te.table_id)
    ref = _decode_key(info, table, [match_data(fm) for fm in te.match], te.priority)
    return ref, _find(ref)


# -- writes ------------------------------------------------------------------------------

def write_table_entry(ctx: PipelineContext, kind: int, te: p4runtime_pb2.TableEntry) -> None:
    write_entry(ctx, kind, entry_data(te))


def write_entry(ctx: PipelineContext, kind: int, d: EntryData) -> None:
    """Apply one table-entry update; raises P4RTError (state unchanged then)."""
    if d.table_id == 0:
        raise invalid("table_id 0 is not valid in a write")
    if d.is_const:
        raise invalid("is_const must be false in a write")
    if d.is_default_action:
        _write_default(ctx, kind, d)
    elif kind == INSERT:
        _insert(ctx, d)
    elif kind == MODIFY:
        _modify(ctx, d)
    elif kind == DELETE:
        _delete(ctx, d)
    else:
        raise invalid("update type must be INSERT, MODIFY or DELETE")


def _check_extras(info: TableInfo, d: EntryData) -> None:
    if d.time_since_last_hit:
        raise invalid(f"table '{info.name}': time_since_last_hit cannot be written")
    if d.idle_timeout_ns and not info.supports_timeout:
        raise invalid(f"table '{info.name}' does not support idle timeout (no "
                      "support_timeout)")
    if d.idle_timeout_ns < 0:
        raise invalid(f"table '{info.name}': idle_timeout_ns cannot be negative")
    if d.counter_data is not None and not info.direct_counter_id:
        raise invalid(f"table '{info.name}' has no direct counter; counter_data must be "
                      "unset")
    if d.meter_config is not None and not info.direct_meter_id:
        raise invalid(f"table '{info.name}' has no direct meter; meter_config must be "
                      "unset")
    if d.meter_counter_data:
        raise unimplemented("per-color meter counters are not supported by this target")


def _decode_action(ctx: PipelineContext, info: TableInfo, ta: TableActionData,
                   default: bool) -> ActionCall | IndirectRef:
    if info.profile is not None:
        return decode_indirect_action(ctx, info, ta)
    if ta.which != "action":
        if ta.which is None:
            raise invalid(f"table '{info.name}': the entry's action is not set")
        raise invalid(f"table '{info.name}' is a direct table: its entries take an "
                      f"action, not {ta.which}")
    check_scope(info, ta.action_id, default, f"table '{info.name}'")
    return decode_action(ctx.index, ta.action_id, ta.params)


def _meter(info: TableInfo, d: EntryData) -> TrTcmMeter | None:
    if d.meter_config is None:
        return None
    return make_meter(decode_meter_config(d.meter_config, f"table '{info.name}'"))


def _insert(ctx: PipelineContext, d: EntryData) -> None:
    info, table = _table(ctx, d.table_id)
    if info.is_const or table.const_entries:
        raise permission_denied(f"table '{info.name}' has const entries; it cannot be "
                                "written at runtime")
    if not table.keys:
        raise invalid(f"table '{info.name}' has no key; only its default entry can be "
                      "modified")
    ref = _decode_key(info, table, d.matches, d.priority)
    _check_extras(info, d)
    if d.action is None:
        raise invalid(f"table '{info.name}': an INSERT needs an action")
    action = _decode_action(ctx, info, d.action, default=False)
    # The idle timer starts at insertion (spec, "Idle-timeout"): a never-hit entry
    # reports, and expires by, the time since it was inserted.
    entry = TableEntry(ref.matches, action,  # type: ignore[arg-type]
                       ref.priority, idle_timeout_ns=d.idle_timeout_ns,
                       last_hit_ns=ctx.now_ns())
    if d.counter_data is not None:
        entry.direct_counter = counter_cell(d.counter_data, f"table '{info.name}'")
    if d.meter_config is not None:
        entry.direct_meter = _meter(info, d)
    try:
        table.insert(entry)
    except RuntimeStateError as err:
        raise from_runtime_error(err) from None
    if d.controller_metadata or d.metadata:
        ctx.extras.entry_meta[ref.key] = (d.controller_metadata, d.metadata)


def _set_meta(ctx: PipelineContext, key: EntryKey, d: EntryData) -> None:
    if d.controller_metadata or d.metadata:
        ctx.extras.entry_meta[key] = (d.controller_metadata, d.metadata)
    else:
        ctx.extras.entry_meta.pop(key, None)


def _modify(ctx: PipelineContext, d: EntryData) -> None:
    info, table = _table(ctx, d.table_id)
    ref = _decode_key(info, table, d.matches, d.priority)
    stored = _find(ref)
    _check_extras(info, d)
    is_const = stored.is_const or info.is_const or table.const_entries
    if is_const and d.action is not None:
        raise permission_denied(f"table '{info.name}': the entry is const; only its "
                                "direct resources can be modified (leave action unset)")
    action: ActionCall | IndirectRef | None = None
    if d.action is not None:
        action = _decode_action(ctx, info, d.action, default=False)
    meter = _meter(info, d)
    counter: CounterCell | None = None
    if d.counter_data is not None:
        counter = counter_cell(d.counter_data, f"table '{info.name}'")
    if not is_const:
        changed = TableEntry(ref.matches, action or stored.action,  # type: ignore[arg-type]
                             ref.priority, idle_timeout_ns=d.idle_timeout_ns)
        try:
            table.modify(changed)
        except RuntimeStateError as err:
            raise from_runtime_error(err) from None
        _set_meta(ctx, ref.key, d)
    if counter is not None:
        stored.direct_counter = counter
    if info.direct_meter_id:
        stored.direct_meter = meter  # unset meter_config = back to the default (GREEN)


def _delete(ctx: PipelineContext, d: EntryData) -> None:
    info, table = _table(ctx, d.table_id)
    if info.is_const or table.const_entries:
        raise permission_denied(f"table '{info.name}' has const entries; it cannot be "
                                "written at runtime")
    ref = _decode_key(info, table, d.matches, d.priority)
    try:
        table.delete(ref.matches, ref.priority)  # NOT_FOUND / PERMISSION_DENIED (const)
    except RuntimeStateError as err:
        raise from_runtime_error(err) from None
    if ctx.extras.entry_meta:
        ctx.extras.entry_meta.pop(ref.key, None)


def _write_default(ctx: PipelineContext, kind: int, d: EntryData) -> None:
    info, table = _table(ctx, d.table_id)
    owner = f"table '{info.name}'"
    if kind != MODIFY:
        raise invalid(f"{owner}: the default entry can only be modified (not inserted or "
                      "deleted)")
    if d.matches or d.priority:
        raise invalid(f"{owner}: the default entry has no match and priority 0")
    if d.idle_timeout_ns or d.time_since_last_hit:
        raise invalid(f"{owner}: the default entry has no idle timeout")
    if d.counter_data is not None or d.meter_config is not None or d.meter_counter_data:
        raise unimplemented(f"{owner}: direct resources of the default entry are not "
                            "supported by this target")
    if info.profile is not None:
        raise permission_denied(f"{owner} is implemented by '{info.profile.name}': its "
                                "default entry is a const NoAction")
    if info.const_default_id or table.default_is_const:
        raise permission_denied(f"{owner}: the default action is const")
    if d.action is not None:
        action = _decode_action(ctx, info, d.action, default=True)
        assert isinstance(action, ActionCall)
    else:
        action = info.initial_default
    try:
        table.set_default(action)
    except RuntimeStateError as err:
        raise from_runtime_error(err) from None
    if d.action is not None and (d.controller_metadata or d.metadata):
        ctx.extras.default_meta[info.name] = (d.controller_metadata, d.metadata)
    else:
        ctx.extras.default_meta.pop(info.name, None)


# -- reads -------------------------------------------------------------------------------

def encode_key(info: TableInfo, entry: TableEntry, te: p4runtime_pb2.TableEntry) -> None:
    """Table id, priority and match of ``entry`` into ``te`` (wildcards left out)."""
    te.table_id = info.id
    te.priority = entry.priority
    for field in info.fields:
        match = entry.matches[field.position]
        if match is not None:
            encode_match(field, match, te.match.add())


def encode_entry(ctx: PipelineContext, info: TableInfo, table: Table, entry: TableEntry,
                 want: p4runtime_pb2.TableEntry | None = None, now_ns: int = 0,
                 te: p4runtime_pb2.TableEntry | None = None) -> p4runtime_pb2.TableEntry:
    """The P4Runtime form of ``entry`` (filled into ``te`` when given); direct
    resources and time since last hit are included when ``want`` (the read request)
    asks for them."""
    if te is None:
        te = p4runtime_pb2.TableEntry()
    encode_key(info, entry, te)
    if entry.action.__class__ is ActionCall:
        encode_action(ctx.index, entry.action, te.action.action)
    else:
        encode_indirect_action(ctx, entry.action, te.action)
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
        # Set even when the TTL is 0 (spec, "Idle-timeout"); keep in step with
        # ``wire_encode``.
        te.time_since_last_hit.elapsed_ns = max(0, now_ns - entry.last_hit_ns)


def encode_default(ctx: PipelineContext, info: TableInfo, table: Table,
                   te: p4runtime_pb2.TableEntry) -> None:
    te.table_id = info.id
    te.is_default_action = True
    encode_action(ctx.index, table.default_action, te.action.action)
    meta = ctx.extras.default_meta.get(info.name)
    if meta is not None:
        te.controller_metadata, te.metadata = meta


def select_entries(ctx: PipelineContext, want: p4runtime_pb2.TableEntry
                   ) -> Iterator[tuple[TableInfo, Table, TableEntry | None]]:
    """The entries the (wildcard) read request ``want`` selects, table by table; None
    stands for a table's default entry (a read with ``is_default_action``). Shared by
    the protobuf encoder below and the wire encoder of the Read RPC (``wire_encode``)."""
    if want.table_id == 0:
        infos = list(ctx.index.tables.values())
    else:
        infos = [ctx.index.table(want.table_id)]
    ref = None
    if want.table_id and len(want.match) and not want.is_default_action:
        ref = decode_matches(infos[0].fields_by_id,
                             len(ctx.state.tables[infos[0].name].keys),
                             [match_data(fm) for fm in want.match],
                             f"table '{infos[0].name}'")
    which = want.action.WhichOneof("type") if want.HasField("action") else None
    action_id = want.action.action.action_id if which == "action" else 0
    indirect: object = None
    if which == "action_profile_member_id":
        indirect = MemberRef(want.action.action_profile_member_id)
    elif which == "action_profile_group_id":
        indirect = GroupRef(want.action.action_profile_group_id)
    # The request's filters, read once: protobuf attributes are slow in pure Python.
    priority = want.priority
    is_default = want.is_default_action
    want_cm, want_md = want.controller_metadata, want.metadata
    for info in infos:
        table = ctx.state.tables[info.name]
        if is_default:
            yield info, table, None
            continue
        if ref is not None:
            try:
                matches = table.canonical_matches(ref)
            except RuntimeStateError as err:
                raise from_runtime_error(err) from None
            if priority or not table.needs_priority:
                found = table.find(matches, priority)
                candidates = [] if found is None else [found]
            else:
                candidates = [e for e in table.entries() if e.matches == matches]
        else:
            candidates = table.entries()
        if not (priority or action_id or indirect is not None or want_cm or want_md):
            for entry in candidates:  # the common wildcard read: no filter
                yield info, table, entry
            continue
        for entry in candidates:
            if priority and entry.priority != priority:
                continue
            if action_id and ctx.index.action_ids.get(entry.action.name) != action_id:
                continue
            if indirect is not None and entry.action != indirect:
                continue
            if want_cm or want_md:
                meta = ctx.extras.entry_meta.get((info.name, entry.matches, entry.priority),
                                                 (0, b""))
                if want_cm and meta[0] != want_cm:
                    continue
                if want_md and meta[1] != want_md:
                    continue
            yield info, table, entry
