"""Key values written in an STF ``add`` line, and their conversion to table matches.

The parser does not know the table, so it keeps what was written:

* :class:`NumberValue` - ``10``, ``0x0a01``, ``0x****0101``, ``0b1*0*``: a number whose
  hex/binary digits may be ``*`` (don't care).
* :class:`MaskedValue` - ``0x0A&&&0xFF``.
* :class:`PrefixValue` - ``0x0a000000/8``.
* :class:`RangeValue` - ``10..20``.

:func:`to_field_match` turns one of them into a runtime match once the key field's
match kind and width are known, following p4c's ``bmv2stf.py`` conventions:

* a hex/binary number on a *ternary* field cares only about the digits written: the
  mask has ones for each non-``*`` digit and zeros for ``*`` digits and for the bits
  above the written digits (``0x0101`` on a 32-bit field is ``0x0101&&&0xffff``); a
  decimal number cares about every bit;
* on an *LPM* field the ``*`` digits must be trailing; the prefix length is the
  number of bits of the written, non-``*`` digits, counted from the top of the field
  (``0x0a01****`` on 32 bits is ``0x0a010000/16``). A number written with fewer
  digits than the field is wide keeps that short length too: p4c's runner hands
  ``0x0a01`` to simple_switch_CLI as ``0x0a01/16``, which matches the keys whose top
  16 bits are zero. A number with at least as many digits as the field, or a
  decimal one, is a full-length prefix;
* *exact* and *range* fields take plain numbers (a range field reads ``v`` as
  ``v..v``); an *optional* field takes a plain number or an all-``*`` pattern.
"""

from __future__ import annotations

from dataclasses import dataclass, field

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
from behavioral_model.stf.errors import STFValueError

__all__ = [
    "NumberValue",
    "MaskedValue",
    "PrefixValue",
    "RangeValue",
    "KeyValue",
    "to_field_match",
]


@dataclass(frozen=True, slots=True)
class NumberValue:
    """A number with optional don't-care digits.

    ``value`` has 0 in don't-care positions; ``care_mask`` has ones for the bits of
    written, non-``*`` digits; ``written_bits`` is 4 per hex digit, 1 per binary
    digit, or None for a decimal number (no wildcards; ``care_mask`` is then 0 and
    unused).
    """

    value: int
    care_mask: int
    written_bits: int | None
    text: str = field(default="", compare=False)

    @property
    def has_wildcards(self) -> bool:
        if self.written_bits is None:
            return False
        return self.care_mask != (1 << self.written_bits) - 1


@dataclass(frozen=True, slots=True)
class MaskedValue:
    value: int
    mask: int
    text: str = field(default="", compare=False)


@dataclass(frozen=True, slots=True)
class PrefixValue:
    value: int
    prefix_len: int
    text: str = field(default="", compare=False)


@dataclass(frozen=True, slots=True)
class RangeValue:
    low: int
    high: int
    text: str = field(default="", compare=False)


KeyValue = NumberValue | MaskedValue | PrefixValue | RangeValue


def _fail(key_value: KeyValue, kind: MatchKind, width: int, why: str) -> STFValueError:
    shown = key_value.text or repr(key_value)
    return STFValueError(f"key value '{shown}' for a {width}-bit {kind.value} field: {why}")


def _prefix_length(mask: int, width: int) -> int | None:
    """Length of ``mask`` if it is a prefix mask of a ``width``-bit field, else None."""
    length = bin(mask).count("1")
    return length if mask == prefix_mask(length, width) else None


def _number_mask(number: NumberValue, width: int) -> int:
    """The ternary mask of a number, p4c style: only written, non-``*`` digits."""
    full = (1 << width) - 1
    if number.written_bits is None:
        return full
    return number.care_mask & full


def _lpm_number(number: NumberValue, width: int) -> tuple[int, int]:
    """(value, mask) of a hex/binary number on an LPM field, as p4c's runner reads it.

    bmv2stf.py turns the number into ``value/len`` with ``len`` = bits of the
    non-``*`` digits, and simple_switch_CLI applies that prefix from the top of the
    field. With fewer digits than the field the prefix is therefore short (and
    covers leading zeros of the value), not the full width.
    """
    assert number.written_bits is not None
    full = (1 << width) - 1
    if number.written_bits >= width:
        return number.value, number.care_mask & full
    care = number.care_mask
    length = bin(care).count("1")
    if care != prefix_mask(length, number.written_bits):
        return number.value, care  # '*' not trailing: reported by the caller
    mask = prefix_mask(length, width)
    return number.value & mask, mask


def to_field_match(key_value: KeyValue, kind: MatchKind, width: int) -> FieldMatch | None:
    """The runtime match for ``key_value`` on a key field of ``kind`` and ``width``
    (None = wildcard). Raises STFValueError when the value cannot express it."""
    full = (1 << width) - 1

    def fits(*values: int) -> None:
        for value in values:
            if value < 0 or value > full:
                raise _fail(key_value, kind, width, f"{value:#x} does not fit")

    if isinstance(key_value, RangeValue):
        if kind is not MatchKind.RANGE:
            raise _fail(key_value, kind, width, "a range needs a range field")
        fits(key_value.low, key_value.high)
        return Range(key_value.low, key_value.high)

    # Reduce every other form to (value, mask) over the field width.
    if isinstance(key_value, NumberValue):
        fits(key_value.value)
        if kind is MatchKind.LPM and key_value.written_bits is not None:
            value, mask = _lpm_number(key_value, width)
        elif kind is MatchKind.TERNARY:
            value, mask = key_value.value, _number_mask(key_value, width)
        else:
            value = key_value.value
            mask = full if not key_value.has_wildcards else key_value.care_mask & full
    elif isinstance(key_value, MaskedValue):
        fits(key_value.value, key_value.mask)
        value, mask = key_value.value & key_value.mask, key_value.mask
    else:  # PrefixValue
        if not 0 <= key_value.prefix_len <= width:
            raise _fail(key_value, kind, width, "prefix length out of range")
        mask = prefix_mask(key_value.prefix_len, width)
        fits(key_value.value)
        value = key_value.value & mask

    if kind is MatchKind.TERNARY:
        return None if mask == 0 else Ternary(value, mask)
    if kind is MatchKind.LPM:
        length = _prefix_length(mask, width)
        if length is None:
            raise _fail(key_value, kind, width, "don't-care bits must form a suffix")
        return None if length == 0 else Lpm(value & mask, length)
    if kind is MatchKind.OPTIONAL:
        if mask == 0:
            return None
        if mask != full:
            raise _fail(key_value, kind, width, "an optional field is all or nothing")
        return Optional_(value)
    if mask != full:
        raise _fail(key_value, kind, width, "don't-care bits need a ternary/lpm field")
    if kind is MatchKind.RANGE:
        return Range(value, value)
    return Exact(value)
