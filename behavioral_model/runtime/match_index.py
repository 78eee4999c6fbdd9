"""Lookup structures behind a table: one per table shape, all with the same interface.

* :class:`ExactIndex` - every key field is exact: a single dict lookup.
* :class:`LpmIndex` - one LPM field, the others exact: one dict per prefix length in
  use, tried from the longest length to the shortest.
* :class:`ScanIndex` - anything with ternary/range/optional fields: entries sorted by
  priority (highest first; equal priorities keep insertion order) and scanned. All
  mask-style fields are packed into one integer so an entry test is one ``&`` and
  one ``==``; range fields are compared separately.

Indexes only see *canonical* matches (see ``matches.canonical_match``): ``None`` is a
wildcard. Validation, duplicates and the lookup cache live in ``tables.Table``.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Protocol

from behavioral_model.runtime.matches import (
    Exact,
    FieldMatch,
    KeyField,
    Lpm,
    Optional_,
    Range,
    Ternary,
    prefix_mask,
)

__all__ = ["IndexedEntry", "MatchIndex", "ExactIndex", "LpmIndex", "ScanIndex"]


class IndexedEntry(Protocol):
    """What an index needs from a table entry."""

    matches: tuple[FieldMatch | None, ...]
    priority: int


class MatchIndex(Protocol):
    def add(self, entry: IndexedEntry) -> None: ...

    def remove(self, entry: IndexedEntry) -> None: ...

    def lookup(self, values: tuple[int, ...]) -> IndexedEntry | None: ...

    def clear(self) -> None: ...


class ExactIndex:
    """All fields exact: the value tuple itself is the dict key."""

    def __init__(self) -> None:
        self._entries: dict[tuple[int, ...], IndexedEntry] = {}

    @staticmethod
    def _key(entry: IndexedEntry) -> tuple[int, ...]:
        return tuple(m.value for m in entry.matches)  # type: ignore[union-attr]

    def add(self, entry: IndexedEntry) -> None:
        self._entries[self._key(entry)] = entry

    def remove(self, entry: IndexedEntry) -> None:
        del self._entries[self._key(entry)]

    def lookup(self, values: tuple[int, ...]) -> IndexedEntry | None:
        return self._entries.get(values)

    def clear(self) -> None:
        self._entries.clear()


class LpmIndex:
    """One LPM field at ``lpm_position``; every other field exact."""

    def __init__(self, keys: Sequence[KeyField], lpm_position: int) -> None:
        self._pos = lpm_position
        self._width = keys[lpm_position].width
        self._single = len(keys) == 1
        # prefix length -> {key: entry}; key is the masked LPM value for a one-field
        # table, else (masked LPM value, tuple of the other field values).
        self._by_length: dict[int, dict[object, IndexedEntry]] = {}
        # (mask, dict) pairs, longest prefix first; rebuilt when a length appears/vanishes.
        self._levels: list[tuple[int, dict[object, IndexedEntry]]] = []

    def _split(self, entry: IndexedEntry) -> tuple[int, object]:
        lpm = entry.matches[self._pos]
        length, value = (0, 0) if lpm is None else (lpm.prefix_len, lpm.value)  # type: ignore[union-attr]
        if self._single:
            return length, value
        rest = tuple(
            m.value  # type: ignore[union-attr]
            for i, m in enumerate(entry.matches)
            if i != self._pos
        )
        return length, (value, rest)

    def _rebuild_levels(self) -> None:
        self._levels = [
            (prefix_mask(length, self._width), self._by_length[length])
            for length in sorted(self._by_length, reverse=True)
        ]

    def add(self, entry: IndexedEntry) -> None:
        length, key = self._split(entry)
        level = self._by_length.get(length)
        if level is None:
            level = self._by_length[length] = {}
            level[key] = entry
            self._rebuild_levels()
        else:
            level[key] = entry

    def remove(self, entry: IndexedEntry) -> None:
        length, key = self._split(entry)
        level = self._by_length[length]
        del level[key]
        if not level:
            del self._by_length[length]
            self._rebuild_levels()

    def lookup(self, values: tuple[int, ...]) -> IndexedEntry | None:
        if self._single:
            value = values[0]
            for mask, level in self._levels:
                entry = level.get(value & mask)
                if entry is not None:
                    return entry
            return None
        pos = self._pos
        value = values[pos]
        rest = values[:pos] + values[pos + 1 :]
        for mask, level in self._levels:
            entry = level.get((value & mask, rest))
            if entry is not None:
                return entry
        return None

    def clear(self) -> None:
        self._by_length.clear()
        self._levels = []


# One compiled row of a ScanIndex: sort key, packed mask, packed value,
# range checks (position, low, high), and the entry itself.
_Row = tuple[tuple[int, int], int, int, tuple[tuple[int, int, int], ...], IndexedEntry]


class ScanIndex:
    """Priority-ordered scan; highest priority wins, ties go to the older entry."""

    def __init__(self, keys: Sequence[KeyField]) -> None:
        self._widths = tuple(k.width for k in keys)
        self._shifts = tuple(
            sum(self._widths[i + 1 :]) for i in range(len(self._widths))
        )
        self._full = tuple((1 << w) - 1 for w in self._widths)
        self._rows: list[_Row] = []
        self._sequence = itertools.count()

    def _compile(self, entry: IndexedEntry) -> _Row:
        mask = 0
        value = 0
        ranges: list[tuple[int, int, int]] = []
        for pos, match in enumerate(entry.matches):
            shift = self._shifts[pos]
            if match is None:
                continue
            if isinstance(match, Exact):
                mask |= self._full[pos] << shift
                value |= match.value << shift
            elif isinstance(match, Ternary):
                mask |= match.mask << shift
                value |= match.value << shift
            elif isinstance(match, Lpm):
                mask |= prefix_mask(match.prefix_len, self._widths[pos]) << shift
                value |= match.value << shift
            elif isinstance(match, Optional_):
                mask |= self._full[pos] << shift
                value |= match.value << shift  # type: ignore[operator]
            elif isinstance(match, Range):
                ranges.append((pos, match.low, match.high))
        return ((-entry.priority, next(self._sequence)), mask, value, tuple(ranges), entry)

    def add(self, entry: IndexedEntry) -> None:
        row = self._compile(entry)
        rows = self._rows
        # Insert after every row with a sort key <= this one (stable by sequence).
        lo, hi = 0, len(rows)
        key = row[0]
        while lo < hi:
            mid = (lo + hi) // 2
            if rows[mid][0] <= key:
                lo = mid + 1
            else:
                hi = mid
        rows.insert(lo, row)

    def remove(self, entry: IndexedEntry) -> None:
        for i, row in enumerate(self._rows):
            if row[4] is entry:
                del self._rows[i]
                return
        raise KeyError("entry not in index")

    def lookup(self, values: tuple[int, ...]) -> IndexedEntry | None:
        packed = 0
        for value, width in zip(values, self._widths, strict=True):
            packed = (packed << width) | value
        for _, mask, value, ranges, entry in self._rows:
            if packed & mask == value:
                if ranges:
                    for pos, low, high in ranges:
                        if not low <= values[pos] <= high:
                            break
                    else:
                        return entry
                    continue
                return entry
        return None

    def clear(self) -> None:
        self._rows.clear()
