"""``p4.v1.FieldMatch`` <-> runtime match values, with the checks of the P4Runtime spec
("Match Format"): the match type must be the field's, don't-care matches must be left
out (LPM prefix 0, ternary mask 0, full range), value bits outside the prefix or mask
are refused, and values must fit the field. Violations are INVALID_ARGUMENT.
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

from .codec import decode_uint, encode_uint
from .errors import invalid, unimplemented
from .p4info_index import MatchFieldInfo

__all__ = ["decode_matches", "decode_match", "encode_match"]

_ONEOF_KIND = {
    "exact": MatchKind.EXACT, "lpm": MatchKind.LPM, "ternary": MatchKind.TERNARY,
    "range": MatchKind.RANGE, "optional": MatchKind.OPTIONAL,
}


def decode_matches(fields_by_id: Mapping[int, MatchFieldInfo], slots: int,
                   matches: Sequence[p4runtime_pb2.FieldMatch],
                   owner: str) -> tuple[FieldMatch | None, ...]:
    """One slot per field (at ``MatchFieldInfo.position``); omitted fields are None.
    Exact fields may not be omitted."""
    out: list[FieldMatch | None] = [None] * slots
    seen: set[int] = set()
    for fm in matches:
        info = fields_by_id.get(fm.field_id)
        if info is None:
            raise invalid(f"{owner}: unknown match field id {fm.field_id}")
        if fm.field_id in seen:
            raise invalid(f"{owner}: match field '{info.name}' given twice")
        seen.add(fm.field_id)
        out[info.position] = decode_match(info, fm, owner)
    for info in fields_by_id.values():
        if info.kind is MatchKind.EXACT and info.id not in seen:
            raise invalid(f"{owner}: exact match field '{info.name}' is missing")
    return tuple(out)


def decode_match(info: MatchFieldInfo, fm: p4runtime_pb2.FieldMatch,
                 owner: str) -> FieldMatch:
    which = fm.WhichOneof("field_match_type")
    what = f"{owner}: match field '{info.name}'"
    if which is None:
        raise invalid(f"{what}: no match value set")
    if which == "other":
        raise unimplemented(f"{what}: 'other' match types are not supported")
    kind = _ONEOF_KIND[which]
    if kind is not info.kind:
        raise invalid(f"{what} is {info.kind.value}, got a {which} match")
    width = info.bitwidth
    if kind is MatchKind.EXACT:
        return Exact(decode_uint(fm.exact.value, width, what))
    if kind is MatchKind.LPM:
        plen = fm.lpm.prefix_len
        if plen <= 0:
            raise invalid(f"{what}: LPM prefix length must be > 0 (leave a don't-care "
                          "field out)")
        if plen > width:
            raise invalid(f"{what}: prefix length {plen} exceeds the width {width}")
        value = decode_uint(fm.lpm.value, width, what)
        if value & ~prefix_mask(plen, width):
            raise invalid(f"{what}: LPM value has bits set beyond the /{plen} prefix")
        return Lpm(value, plen)
    if kind is MatchKind.TERNARY:
        mask = decode_uint(fm.ternary.mask, width, what + " (mask)")
        value = decode_uint(fm.ternary.value, width, what)
        if mask == 0:
            raise invalid(f"{what}: ternary mask 0 is a don't-care; leave the field out")
        if value & ~mask:
            raise invalid(f"{what}: ternary value has bits outside the mask")
        return Ternary(value, mask)
    if kind is MatchKind.RANGE:
        low = decode_uint(fm.range.low, width, what + " (low)")
        high = decode_uint(fm.range.high, width, what + " (high)")
        if low > high:
            raise invalid(f"{what}: range low {low} > high {high}")
        if low == 0 and high == (1 << width) - 1:
            raise invalid(f"{what}: a full range is a don't-care; leave the field out")
        return Range(low, high)
    return Optional_(decode_uint(fm.optional.value, width, what))


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
