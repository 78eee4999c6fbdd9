"""Dispatch of ``Entity`` writes and reads to the module of each entity kind.

Every write handler validates the whole update before it changes anything, so an
invalid update never half-applies; an unexpected exception in a handler becomes an
INTERNAL error for that update (and is logged), never a crash of the server.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from google.rpc import code_pb2
from p4.v1 import p4runtime_pb2

from behavioral_model.runtime.errors import RuntimeStateError

from . import externs_rw, pre_rw, profiles_rw, tables, valuesets_rw, wire_encode
from .context import PipelineContext
from .entrydata import EntryData
from .errors import P4RTError, from_runtime_error, invalid, unimplemented

__all__ = ["apply_update", "apply_entry_update", "read_entity", "safe",
           "internal_error"]

log = logging.getLogger("behavioral_model.p4runtime")

_WRITERS: dict[str, Callable[[PipelineContext, int, Any], None]] = {
    "table_entry": tables.write_table_entry,
    "action_profile_member": profiles_rw.write_member,
    "action_profile_group": profiles_rw.write_group,
    "counter_entry": externs_rw.write_counter,
    "direct_counter_entry": externs_rw.write_direct_counter,
    "meter_entry": externs_rw.write_meter,
    "direct_meter_entry": externs_rw.write_direct_meter,
    "register_entry": externs_rw.write_register,
    "packet_replication_engine_entry": pre_rw.write_pre,
    "value_set_entry": valuesets_rw.write_value_set,
    "digest_entry": valuesets_rw.write_digest,
}

_READERS: dict[str, Callable[[PipelineContext, Any, Callable[[], Any]], None]] = {
    "action_profile_member": profiles_rw.read_members,
    "action_profile_group": profiles_rw.read_groups,
    "counter_entry": externs_rw.read_counters,
    "direct_counter_entry": externs_rw.read_direct_counters,
    "meter_entry": externs_rw.read_meters,
    "direct_meter_entry": externs_rw.read_direct_meters,
    "register_entry": externs_rw.read_registers,
    "packet_replication_engine_entry": pre_rw.read_pre,
    "value_set_entry": valuesets_rw.read_value_sets,
    "digest_entry": valuesets_rw.read_digests,
}

_UNSUPPORTED = {
    "extern_entry": "ExternEntry: v1model has no P4Runtime-controlled architecture "
                    "externs beyond the PSA-like ones",
}


def apply_update(ctx: PipelineContext, update: p4runtime_pb2.Update) -> None:
    """Apply one update; raises P4RTError if it is refused (state unchanged then)."""
    kind = update.type
    if kind not in (p4runtime_pb2.Update.INSERT, p4runtime_pb2.Update.MODIFY,
                    p4runtime_pb2.Update.DELETE):
        raise invalid("update type must be INSERT, MODIFY or DELETE")
    which = update.entity.WhichOneof("entity")
    if which is None:
        raise invalid("update without an entity")
    writer = _WRITERS.get(which)
    if writer is None:
        raise unimplemented(_UNSUPPORTED.get(which, f"{which} is not supported"))
    try:
        writer(ctx, kind, getattr(update.entity, which))
    except RuntimeStateError as err:
        raise from_runtime_error(err) from None


def apply_entry_update(ctx: PipelineContext, kind: int, entry: EntryData) -> None:
    """``apply_update`` for a table-entry update already in plain form (the Write hot
    path, see ``wire``)."""
    if kind not in (p4runtime_pb2.Update.INSERT, p4runtime_pb2.Update.MODIFY,
                    p4runtime_pb2.Update.DELETE):
        raise invalid("update type must be INSERT, MODIFY or DELETE")
    try:
        tables.write_entry(ctx, kind, entry)
    except RuntimeStateError as err:
        raise from_runtime_error(err) from None


def read_entity(ctx: PipelineContext, entity: p4runtime_pb2.Entity,
                now_ns: int = 0) -> list[bytes]:
    """The serialized ``Entity`` of everything matching the (wildcard) ``entity``, what
    the Read RPC sends; raises P4RTError. Table entries are written straight to wire
    format by ``wire_encode`` (protobuf messages would dominate the cost of reading a
    large table); the other kinds are built as protobuf messages and serialized."""
    which = entity.WhichOneof("entity")
    if which is None:
        raise invalid("read of an empty Entity: set one entity kind")
    try:
        if which == "table_entry":
            return wire_encode.read_table_entries(ctx, entity.table_entry, now_ns)
        reader = _READERS.get(which)
        if reader is None:
            raise unimplemented(_UNSUPPORTED.get(which, f"{which} is not supported"))
        found: list[p4runtime_pb2.Entity] = []

        def new() -> Any:
            found.append(p4runtime_pb2.Entity())
            return getattr(found[-1], which)

        reader(ctx, getattr(entity, which), new)
    except RuntimeStateError as err:
        raise from_runtime_error(err) from None
    return [e.SerializeToString() for e in found]


def safe(fn: Callable[[], Any], what: str) -> tuple[Any, P4RTError | None]:
    """Run ``fn``; turn any exception into a P4RTError (INTERNAL if unexpected)."""
    try:
        return fn(), None
    except P4RTError as err:
        return None, err
    except Exception as err:  # noqa: BLE001 - a bug must not take the server down
        return None, internal_error(err, what)


def internal_error(err: Exception, what: str) -> P4RTError:
    """INTERNAL for an unexpected exception (logged with its traceback); call from the
    ``except`` block."""
    log.exception("internal error in %s", what)
    return P4RTError(code_pb2.INTERNAL,
                     f"internal error in {what}: {type(err).__name__}: {err}")
