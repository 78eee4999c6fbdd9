"""``p4.v1.FieldMatch`` <-> runtime match values, with the checks of the P4Runtime spec
("Match Format"): the match type must be the field's, don't-care matches must be left
out (LPM prefix 0, ternary mask 0, full range), value bits outside the prefix or mask
are refused, and values must fit the field. Violations are INVALID_ARGUMENT.

Decoding works on plain :data:`MatchData` tuples, so the protobuf messages and the
hand-written wire decoder of the Write hot path (``wire``) share one set of checks;
:func:`match_data` turns a ``FieldMatch`` message into one. The results are already
canonical (a don't-care spelling is refused, never folded).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from p4.v1 import p4runtime_pb2

from behavioral_model.runtime.matches import (
    Exact,
    FieldMatch,
    Lpm,
    MatchKind,
    Optional_,
    Range,
    Ternary,
    prefix_mask,
)

from .codec import encode_uint
from .errors import invalid, unimplemented
from .p4info_index import MatchFieldInfo

__all__ = ["MatchData", "match_data", "decode_matches", "decode_match", "encode_match"]

#: ``(field_id, which, a, b)``: ``which`` is the ``field_match_type`` oneof case (None
#: if unset); ``a``/``b`` are value/- (exact, optional), value/prefix_len (lpm),
#: value/mask (ternary), low/high (range).
MatchData = tuple[int, "str | None", bytes, "bytes | int"]

_ONEOF_KIND = {
    "exact": MatchKind.EXACT, "lpm": MatchKind.LPM, "ternary": MatchKind.TERNARY,
    "range": MatchKind.RANGE, "optional": MatchKind.OPTIONAL,
}


def match_data(fm: p4runtime_pb2.FieldMatch) -> MatchData:
    which = fm.WhichOneof("field_match_type")
    if which == "exact":
        return (fm.field_id, which, fm.exact.value, b"")
    if which == "lpm":
        return (fm.field_id, which, fm.lpm.value, fm.lpm.prefix_len)
    if which == "ternary":
        return (fm.field_id, which, fm.ternary.value, fm.ternary.mask)
    if which == "range":
        return (fm.field_id, which, fm.range.low, fm.range.high)
    if which == "optional":
        return (fm.field_id, which, fm.optional.value, b"")
    return (fm.field_id, which, b"", b"")


def decode_matches(fields_by_id: Mapping[int, MatchFieldInfo], slots: int,
                   matches: Sequence[MatchData],
                   owner: str) -> tuple[FieldMatch | None, ...]:
    """One slot per field (at ``MatchFieldInfo.position``); omitted fields are None.
    Exact fields may not be omitted."""
    if len(matches) == 1 == len(fields_by_id) == slots:  # the common one-field key
        field_id, which, a, b = matches[0]
        info = fields_by_id.get(field_id)
        if info is not None:
            return (decode_match(info, which, a, b, owner),)
    out: list[FieldMatch | None] = [None] * slots
    seen: set[int] = set()
    for field_id, which, a, b in matches:
        info = fields_by_id.get(field_id)
        if info is None:
            raise invalid(f"{owner}: unknown match field id {field_id}")
        if field_id in seen:
            raise invalid(f"{owner}: match field '{info.name}' given twice")
        seen.add(field_id)
        out[info.position] = decode_match(info, which, a, b, owner)
    if len(seen) < len(fields_by_id):
        for info in fields_by_id.values():
            if info.kind is MatchKind.EXACT and info.id not in seen:
                raise invalid(f"{owner}: exact match field '{info.name}' is missing")
    return tuple(out)


def _uint(data: bytes, width: int, owner: str, info: MatchFieldInfo, part: str) -> int:
    value = int.from_bytes(data, "big")
    if not data or value >> width:
        what = f"{owner}: match field '{info.name}'{part}"
        if not data:
            raise invalid(f"{what}: empty byte string")
        raise invalid(f"{what}: value 0x{data.hex()} does not fit in {width} bits")
    return value


def decode_match(info: MatchFieldInfo, which: str | None, a: bytes, b: bytes | int,
                 owner: str) -> FieldMatch:
    kind = _ONEOF_KIND.get(which) if which is not None else None
    if kind is not info.kind:
        what = f"{owner}: match field '{info.name}'"
        if which is None:
            raise invalid(f"{what}: no match value set")
        if which == "other":
            raise unimplemented(f"{what}: 'other' match types are not supported")
        raise invalid(f"{what} is {info.kind.value}, got a {which} match")
    width = info.bitwidth
    if kind is MatchKind.EXACT:
        return Exact(_uint(a, width, owner, info, ""))
    if kind is MatchKind.LPM:
        plen = b
        assert isinstance(plen, int)
        if plen <= 0 or plen > width:
            what = f"{owner}: match field '{info.name}'"
            if plen <= 0:
                raise invalid(f"{what}: LPM prefix length must be > 0 (leave a don't-care "
                              "field out)")
            raise invalid(f"{what}: prefix length {plen} exceeds the width {width}")
        value = _uint(a, width, owner, info, "")
        if value & ~prefix_mask(plen, width):
            raise invalid(f"{owner}: match field '{info.name}': LPM value has bits set "
                          f"beyond the /{plen} prefix")
        return Lpm(value, plen)
    assert isinstance(b, bytes)
    if kind is MatchKind.TERNARY:
        mask = _uint(b, width, owner, info, " (mask)")
        value = _uint(a, width, owner, info, "")
        if mask == 0:
            raise invalid(f"{owner}: match field '{info.name}': ternary mask 0 is a "
                          "don't-care; leave the field out")
        if value & ~mask:
            raise invalid(f"{owner}: match field '{info.name}': ternary value has bits "
                          "outside the mask")
        return Ternary(value, mask)
    if kind is MatchKind.RANGE:
        low = _uint(a, width, owner, info, " (low)")
        high = _uint(b, width, owner, info, " (high)")
        if low > high:
            raise invalid(f"{owner}: match field '{info.name}': range low {low} > "
                          f"high {high}")
        if low == 0 and high == (1 << width) - 1:
            raise invalid(f"{owner}: match field '{info.name}': a full range is a "
                          "don't-care; leave the field out")
        return Range(low, high)
    return Optional_(_uint(a, width, owner, info, ""))


def encode_match(info: MatchFieldInfo, match: FieldMatch,
                 fm: p4runtime_pb2.FieldMatch | None = None) -> p4runtime_pb2.FieldMatch:
    """The canonical ``FieldMatch`` (filled into ``fm`` when given)."""
    if fm is None:
        fm = p4runtime_pb2.FieldMatch()
    fm.field_id = info.id
    if isinstance(match, Exact):
        fm.exact.value = encode_uint(match.value)
    elif isinstance(match, Lpm):
        fm.lpm.value = encode_uint(match.value)
        fm.lpm.prefix_len = match.prefix_len
    elif isinstance(match, Ternary):
        fm.ternary.value = encode_uint(match.value)
        fm.ternary.mask = encode_uint(match.mask)
    elif isinstance(match, Range):
        fm.range.low = encode_uint(match.low)
        fm.range.high = encode_uint(match.high)
    else:
        fm.optional.value = encode_uint(match.value or 0)
    return fm
