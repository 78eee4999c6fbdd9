"""A hand-written protobuf wire-format encoder for the hot path of ``Read``: table
entries, the ``Entity`` around each and the ``ReadResponse`` messages around those.

protobuf 3.20 (pinned for p4runtime-shell) runs as pure Python on 3.11: building and
serializing one ``TableEntry`` message costs ~100 us, so a wildcard Read of a large
table spent nearly all its time in protobuf. The Read RPC therefore sends responses
serialized here (the counterpart of the decoder in ``wire``).

The output is byte for byte what ``SerializeToString`` gives for the messages that
``tables.encode_entry`` and ``tables.encode_default`` build (idle-timeout notifications
use those; ``tests/test_p4runtime_read_encoding.py`` compares the two). That means
following protobuf's own rules, not just the schema: fields in field-number order;
proto3 scalars only when non-zero; a sub-message whenever it was touched (set in its
parent), even if empty; a oneof member whenever set, even to 0; repeated elements
always; negative int32/int64 values as ten-byte varints. Field numbers and wire types
come from the message descriptors, so they cannot drift from the ``.proto``.
"""

from __future__ import annotations

from collections.abc import Iterator

from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message
from google.rpc import code_pb2
from p4.v1 import p4runtime_pb2

from behavioral_model.runtime.action_profiles import GroupRef, MemberRef, OneShotRef
from behavioral_model.runtime.matches import Exact, FieldMatch, Lpm, Range, Ternary
from behavioral_model.runtime.tables import ActionCall, Table, TableEntry

from .codec import encode_uint
from .context import PipelineContext
from .errors import P4RTError
from .p4info_index import TableInfo
from .tables import select_entries

__all__ = ["read_table_entries", "read_responses"]

_M64 = (1 << 64) - 1
_SMALL = tuple(bytes((i,)) for i in range(0x80))  # one-byte varints, the usual lengths


def _varint(value: int) -> bytes:
    """A protobuf varint; negative values (int32/int64) as their 64-bit two's
    complement, ten bytes long, as protobuf writes them."""
    if 0 <= value < 0x80:
        return _SMALL[value]
    value &= _M64
    out = bytearray()
    while value >= 0x80:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


_VARINT_TYPES = frozenset({FieldDescriptor.TYPE_INT32, FieldDescriptor.TYPE_INT64,
                           FieldDescriptor.TYPE_UINT32, FieldDescriptor.TYPE_UINT64,
                           FieldDescriptor.TYPE_BOOL, FieldDescriptor.TYPE_ENUM})
_DELIMITED_TYPES = frozenset({FieldDescriptor.TYPE_BYTES, FieldDescriptor.TYPE_STRING,
                              FieldDescriptor.TYPE_MESSAGE})


def _key(message: type[Message], name: str) -> bytes:
    """The field key (number and wire type) of ``message.name``."""
    field = message.DESCRIPTOR.fields_by_name[name]
    if field.type in _VARINT_TYPES:
        return _varint(field.number << 3)
    if field.type in _DELIMITED_TYPES:
        return _varint(field.number << 3 | 2)
    raise TypeError(f"{message.DESCRIPTOR.full_name}.{name}: no encoder for field type "
                    f"{field.type}")


def _keys(message: type[Message], *names: str) -> tuple[bytes, ...]:
    """The keys of fields the encoder writes in this order: protobuf writes fields in
    field-number order, so the numbers must rise (checked here, once)."""
    numbers = [message.DESCRIPTOR.fields_by_name[n].number for n in names]
    if numbers != sorted(numbers):
        raise ImportError(f"p4runtime.proto: the fields {', '.join(names)} of "
                          f"{message.DESCRIPTOR.full_name} are no longer in field-number "
                          "order; wire_encode writes them in this order")
    return tuple(_key(message, n) for n in names)


def _sub(key: bytes, body: bytes) -> bytes:
    """A length-delimited field: bytes or a sub-message."""
    size = len(body)
    return key + (_SMALL[size] if size < 0x80 else _varint(size)) + body


_pb = p4runtime_pb2
_FM = _pb.FieldMatch

(_TABLE_ID, _MATCH, _ACTION, _PRIORITY, _CONTROLLER_METADATA, _METER_CONFIG,
 _COUNTER_DATA, _IS_DEFAULT_ACTION, _IDLE_TIMEOUT_NS, _TIME_SINCE_LAST_HIT, _METADATA,
 _IS_CONST) = _keys(_pb.TableEntry, "table_id", "match", "action", "priority",
                    "controller_metadata", "meter_config", "counter_data",
                    "is_default_action", "idle_timeout_ns", "time_since_last_hit",
                    "metadata", "is_const")
_IS_DEFAULT_TRUE = _IS_DEFAULT_ACTION + b"\x01"
_IS_CONST_TRUE = _IS_CONST + b"\x01"
(_ELAPSED_NS,) = _keys(_pb.TableEntry.IdleTimeout, "elapsed_ns")

# FieldMatch: field_id, then one of the kinds (a oneof: one of them follows field_id).
_FIELD_ID, _EXACT, _TERNARY, _LPM, _RANGE, _OPTIONAL = _keys(
    _FM, "field_id", "exact", "ternary", "lpm", "range", "optional")
(_EXACT_VALUE,) = _keys(_FM.Exact, "value")
_TERNARY_VALUE, _TERNARY_MASK = _keys(_FM.Ternary, "value", "mask")
_LPM_VALUE, _LPM_PREFIX_LEN = _keys(_FM.LPM, "value", "prefix_len")
_RANGE_LOW, _RANGE_HIGH = _keys(_FM.Range, "low", "high")
(_OPTIONAL_VALUE,) = _keys(_FM.Optional, "value")

_TA_ACTION, _TA_MEMBER, _TA_GROUP, _TA_ACTION_SET = _keys(
    _pb.TableAction, "action", "action_profile_member_id", "action_profile_group_id",
    "action_profile_action_set")
(_SET_ACTIONS,) = _keys(_pb.ActionProfileActionSet, "action_profile_actions")
_SHOT_ACTION, _SHOT_WEIGHT = _keys(_pb.ActionProfileAction, "action", "weight")
_ACTION_ID, _PARAMS = _keys(_pb.Action, "action_id", "params")
_PARAM_ID, _PARAM_VALUE = _keys(_pb.Action.Param, "param_id", "value")
_BYTE_COUNT, _PACKET_COUNT = _keys(_pb.CounterData, "byte_count", "packet_count")
_CIR, _CBURST, _PIR, _PBURST = _keys(_pb.MeterConfig, "cir", "cburst", "pir", "pburst")

(_ENTITY_TABLE_ENTRY,) = _keys(_pb.Entity, "table_entry")
(_RESPONSE_ENTITIES,) = _keys(_pb.ReadResponse, "entities")


def _scalar(key: bytes, value: int) -> bytes:
    """A proto3 scalar: left out when zero."""
    return key + _varint(value) if value else b""


def _match(field_id: bytes, match: FieldMatch) -> bytes:
    """The ``match`` field of a TableEntry, as ``fieldmatch.encode_match`` builds it
    (``field_id`` is the FieldMatch's encoded field id)."""
    if isinstance(match, Lpm):
        fm = _sub(_LPM, _sub(_LPM_VALUE, encode_uint(match.value))
                  + _scalar(_LPM_PREFIX_LEN, match.prefix_len))
    elif isinstance(match, Exact):
        fm = _sub(_EXACT, _sub(_EXACT_VALUE, encode_uint(match.value)))
    elif isinstance(match, Ternary):
        fm = _sub(_TERNARY, _sub(_TERNARY_VALUE, encode_uint(match.value))
                  + _sub(_TERNARY_MASK, encode_uint(match.mask)))
    elif isinstance(match, Range):
        fm = _sub(_RANGE, _sub(_RANGE_LOW, encode_uint(match.low))
                  + _sub(_RANGE_HIGH, encode_uint(match.high)))
    else:
        fm = _sub(_OPTIONAL, _sub(_OPTIONAL_VALUE, encode_uint(match.value or 0)))
    return _sub(_MATCH, field_id + fm)


class _Encoder:
    """Encodes the table entries of one Read request. Per-table and per-action field
    prefixes are computed once per read (not cached longer: a new pipeline brings
    new ids)."""

    def __init__(self, ctx: PipelineContext, want: p4runtime_pb2.TableEntry,
                 now_ns: int) -> None:
        self.ctx = ctx
        self.now_ns = now_ns
        # The request's direct-resource wishes, read once (protobuf attributes are slow).
        self.want_counter = want.HasField("counter_data")
        self.want_meter = want.HasField("meter_config")
        self.want_last_hit = want.HasField("time_since_last_hit")
        self._tables: dict[str, tuple[bytes, tuple[tuple[int, bytes], ...]]] = {}
        self._actions: dict[str, tuple[bytes, tuple[bytes, ...]] | None] = {}

    def _table(self, info: TableInfo) -> tuple[bytes, tuple[tuple[int, bytes], ...]]:
        """The encoded table id, and (key position, encoded field id) per match field."""
        plan = self._tables.get(info.name)
        if plan is None:
            fields = tuple((f.position, _scalar(_FIELD_ID, f.id)) for f in info.fields)
            plan = self._tables[info.name] = (_scalar(_TABLE_ID, info.id), fields)
        return plan

    def _action(self, call: ActionCall) -> bytes | None:
        """The ``Action`` message body of ``call`` as ``values.encode_action`` builds
        it; None if the action is not in the P4Info (then there is no Action)."""
        if call.name not in self._actions:
            index = self.ctx.index
            action_id = index.action_ids.get(call.name)
            self._actions[call.name] = None if action_id is None else (
                _scalar(_ACTION_ID, action_id),
                tuple(_scalar(_PARAM_ID, p.id) for p in index.actions[action_id].params))
        plan = self._actions[call.name]
        if plan is None:
            return None
        head, params = plan
        if not params:
            return head
        return head + b"".join([
            _sub(_PARAMS, param + _sub(_PARAM_VALUE, encode_uint(value)))
            for param, value in zip(params, call.args, strict=False)])

    def _table_action(self, action: object) -> bytes:
        """The ``action`` field of a TableEntry (``encode_entry`` and
        ``profiles_rw.encode_indirect_action``)."""
        if action.__class__ is ActionCall:
            body = self._action(action)  # type: ignore[arg-type]
            return b"" if body is None else _sub(_ACTION, _sub(_TA_ACTION, body))
        if isinstance(action, MemberRef):
            return _sub(_ACTION, _TA_MEMBER + _varint(action.member_id))
        if isinstance(action, GroupRef):
            return _sub(_ACTION, _TA_GROUP + _varint(action.group_id))
        if isinstance(action, OneShotRef):
            shots = []
            for call, weight in action.actions:
                body = self._action(call)
                shot = b"" if body is None else _sub(_SHOT_ACTION, body)
                shots.append(_sub(_SET_ACTIONS, shot + _scalar(_SHOT_WEIGHT, weight)))
            return _sub(_ACTION, _sub(_TA_ACTION_SET, b"".join(shots)))
        raise P4RTError(code_pb2.INTERNAL, f"unknown indirect action {action!r}")

    def entry(self, info: TableInfo, table: Table, entry: TableEntry) -> bytes:
        """The TableEntry message of ``tables.encode_entry``."""
        table_id, fields = self._table(info)
        matches = entry.matches
        parts = [table_id]
        for position, field_id in fields:
            match = matches[position]
            if match is not None:
                parts.append(_match(field_id, match))
        parts.append(self._table_action(entry.action))
        if entry.priority:
            parts.append(_PRIORITY + _varint(entry.priority))
        entry_meta = self.ctx.extras.entry_meta
        meta = entry_meta.get((info.name, matches, entry.priority)) if entry_meta else None
        if meta is not None:
            parts.append(_scalar(_CONTROLLER_METADATA, meta[0]))
        if self.want_meter and info.direct_meter_id and entry.direct_meter is not None:
            config = entry.direct_meter.config
            parts.append(_sub(_METER_CONFIG, b"".join((
                _scalar(_CIR, int(config.cir)), _scalar(_CBURST, config.cburst),
                _scalar(_PIR, int(config.pir)), _scalar(_PBURST, config.pburst)))))
        if self.want_counter and info.direct_counter_id:
            cell = entry.direct_counter
            parts.append(_sub(_COUNTER_DATA, _scalar(_BYTE_COUNT, cell.bytes)
                              + _scalar(_PACKET_COUNT, cell.packets)))
        if entry.idle_timeout_ns:
            parts.append(_IDLE_TIMEOUT_NS + _varint(entry.idle_timeout_ns))
        if self.want_last_hit:
            elapsed = max(0, self.now_ns - entry.last_hit_ns)  # as ``tables._add_direct``
            parts.append(_sub(_TIME_SINCE_LAST_HIT, _scalar(_ELAPSED_NS, elapsed)))
        if meta is not None and meta[1]:
            parts.append(_sub(_METADATA, meta[1]))
        if entry.is_const or table.const_entries:
            parts.append(_IS_CONST_TRUE)
        return b"".join(parts)

    def default(self, info: TableInfo, table: Table) -> bytes:
        """The TableEntry message of ``tables.encode_default``."""
        body = self._action(table.default_action)
        meta = self.ctx.extras.default_meta.get(info.name)
        return b"".join((
            self._table(info)[0],
            b"" if body is None else _sub(_ACTION, _sub(_TA_ACTION, body)),
            b"" if meta is None else _scalar(_CONTROLLER_METADATA, meta[0]),
            _IS_DEFAULT_TRUE,
            _sub(_METADATA, meta[1]) if meta is not None and meta[1] else b""))


def read_table_entries(ctx: PipelineContext, want: p4runtime_pb2.TableEntry,
                       now_ns: int = 0) -> list[bytes]:
    """The serialized ``Entity`` of each entry selected by the (wildcard) read request
    ``want``: the bytes of what ``tables.encode_entry`` / ``encode_default`` build."""
    enc = _Encoder(ctx, want, now_ns)
    entry, default = enc.entry, enc.default
    return [_sub(_ENTITY_TABLE_ENTRY,
                 default(info, table) if found is None else entry(info, table, found))
            for info, table, found in select_entries(ctx, want)]


def read_responses(entities: list[bytes], chunk: int) -> Iterator[bytes]:
    """Serialized ``ReadResponse`` messages of ``chunk`` entities each (the last one
    smaller); ``entities`` are serialized ``Entity`` messages."""
    for start in range(0, len(entities), chunk):
        yield b"".join([_sub(_RESPONSE_ENTITIES, e) for e in entities[start:start + chunk]])
