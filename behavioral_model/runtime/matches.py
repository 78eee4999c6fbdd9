"""Match kinds, key fields and the per-field match values of a table entry.

One small frozen dataclass per match kind (``Exact``, ``Lpm``, ``Ternary``, ``Range``,
``Optional_``). A table entry holds one slot per key field, in key order; ``None`` in a
slot means *wildcard* (the field was left out, as P4Runtime requires for don't-care
matches). :func:`canonical_match` validates a value against its key field and folds
every don't-care spelling (``Ternary(0, 0)``, ``Lpm(0, 0)``, a full ``Range``,
``Optional_(None)``) into ``None`` so two spellings of one key are the same entry.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from behavioral_model.runtime.errors import InvalidEntryError

__all__ = [
    "MatchKind",
    "KeyField",
    "Exact",
    "Lpm",
    "Ternary",
    "Range",
    "Optional_",
    "FieldMatch",
    "PRIORITY_MATCH_KINDS",
    "canonical_match",
    "prefix_mask",
]


class MatchKind(StrEnum):
    EXACT = "exact"
    LPM = "lpm"
    TERNARY = "ternary"
    RANGE = "range"
    OPTIONAL = "optional"


# A table with any key of these kinds needs priorities (P4Runtime spec, TableEntry).
PRIORITY_MATCH_KINDS = frozenset({MatchKind.TERNARY, MatchKind.RANGE, MatchKind.OPTIONAL})


@dataclass(frozen=True, slots=True)
class KeyField:
    """One field of a table key: its (P4Info) name, match kind and width in bits."""

    name: str
    match_kind: MatchKind
    width: int


@dataclass(frozen=True, slots=True)
class Exact:
    value: int


@dataclass(frozen=True, slots=True)
class Lpm:
    """Longest-prefix match: the top ``prefix_len`` bits of the field equal ``value``."""

    value: int
    prefix_len: int


@dataclass(frozen=True, slots=True)
class Ternary:
    """``field & mask == value``; ``value`` must have no bit outside ``mask``."""

    value: int
    mask: int


@dataclass(frozen=True, slots=True)
class Range:
    """``low <= field <= high`` (both inclusive)."""

    low: int
    high: int


@dataclass(frozen=True, slots=True)
class Optional_:  # trailing underscore: no clash with typing.Optional
    """Exact match on ``value``, or wildcard when ``value`` is None."""

    value: int | None


FieldMatch = Exact | Lpm | Ternary | Range | Optional_

_EXPECTED_TYPE: dict[MatchKind, type] = {
    MatchKind.EXACT: Exact,
    MatchKind.LPM: Lpm,
    MatchKind.TERNARY: Ternary,
    MatchKind.RANGE: Range,
    MatchKind.OPTIONAL: Optional_,
}


def prefix_mask(prefix_len: int, width: int) -> int:
    """The mask selecting the top ``prefix_len`` bits of a ``width``-bit field."""
    return ((1 << prefix_len) - 1) << (width - prefix_len)


def _check_fits(key: KeyField, what: str, value: int) -> None:
    if value < 0 or value >> key.width:
        raise InvalidEntryError(
            f"key field '{key.name}': {what} {value:#x} does not fit in {key.width} bits"
        )


def canonical_match(key: KeyField, match: FieldMatch | None) -> FieldMatch | None:
    """Validate ``match`` for ``key`` and return its canonical form (None = wildcard).

    Raises InvalidEntryError for a missing exact field, a match of the wrong kind, a
    value wider than the field, LPM/ternary value bits outside the prefix/mask, a
    prefix longer than the field, or ``low > high``.
    """
    kind = key.match_kind
    if match is None:
        if kind is MatchKind.EXACT:
            raise InvalidEntryError(f"exact key field '{key.name}' cannot be left out")
        return None
    expected = _EXPECTED_TYPE[kind]
    if type(match) is not expected:
        raise InvalidEntryError(
            f"key field '{key.name}' is {kind.value}; got a {type(match).__name__} match"
        )
    full = (1 << key.width) - 1
    if isinstance(match, Exact):
        _check_fits(key, "value", match.value)
        return match
    if isinstance(match, Lpm):
        if not 0 <= match.prefix_len <= key.width:
            raise InvalidEntryError(
                f"key field '{key.name}': prefix length {match.prefix_len} "
                f"is outside 0..{key.width}"
            )
        _check_fits(key, "value", match.value)
        if match.value & ~prefix_mask(match.prefix_len, key.width) & full:
            raise InvalidEntryError(
                f"key field '{key.name}': LPM value {match.value:#x} has bits set "
                f"beyond the /{match.prefix_len} prefix"
            )
        return None if match.prefix_len == 0 else match
    if isinstance(match, Ternary):
        _check_fits(key, "mask", match.mask)
        _check_fits(key, "value", match.value)
        if match.value & ~match.mask:
            raise InvalidEntryError(
                f"key field '{key.name}': ternary value {match.value:#x} has bits "
                f"outside mask {match.mask:#x}"
            )
        return None if match.mask == 0 else match
    if isinstance(match, Range):
        _check_fits(key, "range low", match.low)
        _check_fits(key, "range high", match.high)
        if match.low > match.high:
            raise InvalidEntryError(
                f"key field '{key.name}': range low {match.low} > high {match.high}"
            )
        return None if (match.low == 0 and match.high == full) else match
    # Optional_
    if match.value is None:
        return None
    _check_fits(key, "value", match.value)
    return match
