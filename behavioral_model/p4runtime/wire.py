"""A hand-written protobuf wire-format decoder for the hot path of ``Write``: table
entries with exact/LPM/ternary/range/optional matches and a direct action, a member
id or a group id.

protobuf 3.20 (pinned for p4runtime-shell) runs as pure Python on 3.11: building the
message objects of a 500-update ``WriteRequest`` costs more than applying the updates.
The server therefore takes the request bytes from gRPC as they are and decodes the
common case here, straight into :class:`~.entrydata.EntryData`.

It is strict, never clever: anything it does not understand -- an entity other than a
table entry, a field it does not know (direct resources, one-shot action sets, unknown
or future fields), a field repeated where protobuf would *merge* two copies of a
message, an enum value protobuf would keep as an unknown field, a wire type that does
not match the field, an over-long varint, a length running past its message -- makes
that update fall back to ``p4runtime_pb2.Update.FromString`` (and the ordinary path),
or, for the fields of the ``WriteRequest`` itself, makes :func:`decode_write_request`
return None so the caller parses the whole request with protobuf. Scalars repeated on
the wire take the last value, as in protobuf; integers are truncated and sign-converted
exactly as protobuf's decoder does (uint32 masks, int32/int64 two's complement).
Updates the fast path accepts decode to the same :class:`EntryData` that
``entry_data(TableEntry.FromString(...))`` gives (checked on random messages by
``tests/test_p4runtime_wire.py``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from p4.v1 import p4runtime_pb2

from .entrydata import EntryData, TableActionData
from .fieldmatch import MatchData

__all__ = ["FastWrite", "FastUpdate", "decode_write_request", "decode_update"]

#: A table-entry update decoded here: ``(update type, entry)``.
FastUpdate = tuple[int, EntryData]

_M32 = (1 << 32) - 1
_M64 = (1 << 64) - 1
_UPDATE_TYPES = frozenset(p4runtime_pb2.Update.Type.values())
_ATOMICITIES = frozenset(p4runtime_pb2.WriteRequest.Atomicity.values())


class _NotFast(Exception):
    """Raised inside the decoder: let protobuf decode this."""


_NOT_FAST = _NotFast()


@dataclass(slots=True)
class FastWrite:
    """The fields of a ``WriteRequest``, with updates decoded here or by protobuf."""

    device_id: int = 0
    role_id: int = 0
    role: str = ""
    election_id: int | None = None
    atomicity: int = 0
    updates: list[FastUpdate | p4runtime_pb2.Update] = field(default_factory=list)


def _varint(buf: bytes, pos: int) -> tuple[int, int]:
    b = buf[pos]
    if b < 0x80:
        return b, pos + 1
    result = b & 0x7F
    shift = 7
    pos += 1
    while True:
        b = buf[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if b < 0x80:
            return result, pos
        shift += 7
        if shift >= 64:  # more than 10 bytes: protobuf refuses it
            raise _NOT_FAST


def _int32(value: int) -> int:
    value &= _M32
    return value - (1 << 32) if value >> 31 else value


def _int64(value: int) -> int:
    value &= _M64
    return value - (1 << 64) if value >> 63 else value


def _length(buf: bytes, pos: int, end: int) -> tuple[int, int]:
    """Start and stop of a length-delimited field whose length starts at ``pos``."""
    size, pos = _varint(buf, pos)
    stop = pos + size
    if stop > end:
        raise _NOT_FAST
    return pos, stop


_NONE, _BYTES, _INT = 0, 1, 2  # the kind of field 2 of a FieldMatch sub-message


def _pair(buf: bytes, pos: int, end: int, second: int) -> tuple[bytes, bytes | int]:
    """Field 1 (bytes) and field 2 (bytes, an int32 LPM prefix length, or none) of a
    FieldMatch sub-message."""
    a = b""
    b: bytes | int = 0 if second == _INT else b""
    while pos < end:
        tag = buf[pos]
        pos += 1
        if tag == 0x0A:
            size = buf[pos]  # inlined _length: values are short
            if size < 0x80:
                start = pos + 1
                pos = start + size
                if pos > end:
                    raise _NOT_FAST
            else:
                start, pos = _length(buf, pos, end)
            a = buf[start:pos]
        elif tag == 0x12 and second == _BYTES:
            start, pos = _length(buf, pos, end)
            b = buf[start:pos]
        elif tag == 0x10 and second == _INT:
            value = buf[pos]
            if value < 0x80:
                pos += 1
                b = value
            else:
                value, pos = _varint(buf, pos)
                b = _int32(value)
        else:
            raise _NOT_FAST
    if pos != end:
        raise _NOT_FAST
    return a, b


# FieldMatch oneof tags (length-delimited): exact 2, ternary 3, lpm 4, range 6,
# optional 7, each with the kind of its field 2.
_MATCH_KINDS: dict[int, tuple[str, int]] = {
    0x12: ("exact", _NONE), 0x1A: ("ternary", _BYTES), 0x22: ("lpm", _INT),
    0x32: ("range", _BYTES), 0x3A: ("optional", _NONE),
}


def _field_match(buf: bytes, pos: int, end: int) -> MatchData:
    field_id = 0
    which: str | None = None
    a = b""
    b: bytes | int = b""
    while pos < end:
        tag = buf[pos]
        pos += 1
        if tag == 0x08:
            value = buf[pos]
            if value < 0x80:
                pos += 1
                field_id = value
            else:
                value, pos = _varint(buf, pos)
                field_id = value & _M32
            continue
        kind = _MATCH_KINDS.get(tag)
        if kind is None or which is not None:  # unknown, "other", or a second oneof
            raise _NOT_FAST
        which, second = kind
        size = buf[pos]
        if size < 0x80:
            start = pos + 1
            pos = start + size
            if pos > end:
                raise _NOT_FAST
        else:
            start, pos = _length(buf, pos, end)
        a, b = _pair(buf, start, pos, second)
    if pos != end:
        raise _NOT_FAST
    return (field_id, which, a, b)


def _action(buf: bytes, pos: int, end: int, ta: TableActionData) -> None:
    params = ta.params
    while pos < end:
        tag = buf[pos]
        pos += 1
        if tag == 0x08:
            value, pos = _varint(buf, pos)
            ta.action_id = value & _M32
        elif tag == 0x22:
            start, pos = _length(buf, pos, end)
            param_id = 0
            data = b""
            while start < pos:
                ptag = buf[start]
                start += 1
                if ptag == 0x10:
                    value, start = _varint(buf, start)
                    param_id = value & _M32
                elif ptag == 0x1A:
                    vstart, start = _length(buf, start, pos)
                    data = buf[vstart:start]
                else:
                    raise _NOT_FAST
            if start != pos:
                raise _NOT_FAST
            params.append((param_id, data))
        else:
            raise _NOT_FAST
    if pos != end:
        raise _NOT_FAST


def _table_action(buf: bytes, pos: int, end: int) -> TableActionData:
    ta = TableActionData(None)
    while pos < end:
        tag = buf[pos]
        pos += 1
        if ta.which is not None:  # a second oneof field: replace or merge; not here
            raise _NOT_FAST
        if tag == 0x0A:
            ta.which = "action"
            start, pos = _length(buf, pos, end)
            _action(buf, start, pos, ta)
        elif tag == 0x10:
            ta.which = "action_profile_member_id"
            value, pos = _varint(buf, pos)
            ta.ref_id = value & _M32
        elif tag == 0x18:
            ta.which = "action_profile_group_id"
            value, pos = _varint(buf, pos)
            ta.ref_id = value & _M32
        else:
            raise _NOT_FAST  # one-shot action sets, unknown fields
    if pos != end:
        raise _NOT_FAST
    return ta


def _table_entry(buf: bytes, pos: int, end: int) -> EntryData:
    d = EntryData()
    matches = d.matches
    while pos < end:
        tag = buf[pos]
        pos += 1
        if tag == 0x12:
            size = buf[pos]
            if size < 0x80:
                start = pos + 1
                pos = start + size
                if pos > end:
                    raise _NOT_FAST
            else:
                start, pos = _length(buf, pos, end)
            matches.append(_field_match(buf, start, pos))
        elif tag == 0x08:
            value, pos = _varint(buf, pos)
            d.table_id = value & _M32
        elif tag == 0x1A:
            if d.action is not None:
                raise _NOT_FAST  # protobuf would merge the two
            start, pos = _length(buf, pos, end)
            d.action = _table_action(buf, start, pos)
        elif tag == 0x20:
            value, pos = _varint(buf, pos)
            d.priority = _int32(value)
        elif tag == 0x28:
            value, pos = _varint(buf, pos)
            d.controller_metadata = value & _M64
        elif tag == 0x40:
            value, pos = _varint(buf, pos)
            d.is_default_action = (value & _M64) != 0
        elif tag == 0x48:
            value, pos = _varint(buf, pos)
            d.idle_timeout_ns = _int64(value)
        elif tag == 0x5A:
            start, pos = _length(buf, pos, end)
            d.metadata = buf[start:pos]
        elif tag == 0x68:
            value, pos = _varint(buf, pos)
            d.is_const = (value & _M64) != 0
        else:
            raise _NOT_FAST  # direct resources, time_since_last_hit, unknown fields
    if pos != end:
        raise _NOT_FAST
    return d


def _fast_update(buf: bytes, pos: int, end: int) -> FastUpdate:
    kind = 0
    entry: EntryData | None = None
    while pos < end:
        tag = buf[pos]
        pos += 1
        if tag == 0x08:
            value, pos = _varint(buf, pos)
            kind = _int32(value)
            if kind not in _UPDATE_TYPES:
                raise _NOT_FAST  # protobuf keeps it as an unknown field
        elif tag == 0x12:
            if entry is not None:
                raise _NOT_FAST
            start, pos = _length(buf, pos, end)
            if start >= pos or buf[start] != 0x12:  # Entity.table_entry only
                raise _NOT_FAST
            inner, stop = _length(buf, start + 1, pos)
            if stop != pos:  # anything after the table entry (merge, other oneof)
                raise _NOT_FAST
            entry = _table_entry(buf, inner, stop)
        else:
            raise _NOT_FAST
    if pos != end or entry is None:
        raise _NOT_FAST
    return kind, entry


def decode_update(buf: bytes, pos: int, end: int) -> FastUpdate | p4runtime_pb2.Update:
    """The update in ``buf[pos:end]``: decoded here when possible, else by protobuf
    (which raises ``google.protobuf.message.DecodeError`` for malformed bytes)."""
    try:
        return _fast_update(buf, pos, end)
    except (_NotFast, IndexError):
        return p4runtime_pb2.Update.FromString(buf[pos:end])


def _uint128(buf: bytes, pos: int, end: int) -> int:
    high = low = 0
    while pos < end:
        tag = buf[pos]
        pos += 1
        if tag == 0x08:
            high, pos = _varint(buf, pos)
        elif tag == 0x10:
            low, pos = _varint(buf, pos)
        else:
            raise _NOT_FAST
    if pos != end:
        raise _NOT_FAST
    return ((high & _M64) << 64) | (low & _M64)


def decode_write_request(data: bytes) -> FastWrite | None:
    """The request, or None if its own fields need protobuf (parse it then with
    ``WriteRequest.FromString``). Raises ``DecodeError`` when an update protobuf had
    to decode is malformed (so is the request)."""
    out = FastWrite()
    slices: list[tuple[int, int]] = []
    end = len(data)
    pos = 0
    try:
        while pos < end:
            tag = data[pos]
            pos += 1
            if tag == 0x22:
                slices.append(_length(data, pos, end))
                pos = slices[-1][1]
            elif tag == 0x08:
                value, pos = _varint(data, pos)
                out.device_id = value & _M64
            elif tag == 0x10:
                value, pos = _varint(data, pos)
                out.role_id = value & _M64
            elif tag == 0x1A:
                if out.election_id is not None:
                    raise _NOT_FAST
                start, pos = _length(data, pos, end)
                out.election_id = _uint128(data, start, pos)
            elif tag == 0x28:
                value, pos = _varint(data, pos)
                atomicity = _int32(value)
                if atomicity not in _ATOMICITIES:
                    raise _NOT_FAST
                out.atomicity = atomicity
            elif tag == 0x32:
                start, pos = _length(data, pos, end)
                out.role = data[start:pos].decode("utf-8")
            else:
                raise _NOT_FAST
        if pos != end:
            raise _NOT_FAST
    except (_NotFast, IndexError, UnicodeDecodeError):
        return None
    out.updates = [decode_update(data, start, stop) for start, stop in slices]
    return out
