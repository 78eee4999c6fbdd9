"""Lookup structures behind a table: one per table shape, all with the same interface.

* :class:`ExactIndex` - every key field is exact: a single dict lookup.
* :class:`LpmIndex` - one LPM field, the others exact: one dict per prefix length in
  use, tried from the longest length to the shortest.
* :class:`ScanIndex` - anything with ternary/range/optional fields: all mask-style
  fields are packed into one integer; entries are grouped by packed mask and found by
  one dict probe per mask (tuple space search), range entries are scanned by priority.

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
        # lookup as a bound C method (the dict's own get), for callers that want no
        # Python call per lookup
        self.get = self._entries.get

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
    """Highest priority wins, ties go to the older entry.

    Entries without range fields are grouped by their packed mask (tuple space search):
    a lookup masks the key once per distinct mask and probes a dict, visiting groups in
    order of their best priority and stopping once no group can beat the match found.
    Entries with range fields are scanned in priority order.
    """

    def __init__(self, keys: Sequence[KeyField]) -> None:
        self._widths = tuple(k.width for k in keys)
        self._shifts = tuple(
            sum(self._widths[i + 1 :]) for i in range(len(self._widths))
        )
        self._full = tuple((1 << w) - 1 for w in self._widths)
        self._groups: dict[int, dict[int, list[_Row]]] = {}
        self._order: list[tuple[tuple[int, int], int, dict[int, list[_Row]]]] = []
        self._dirty = False
        self._range_rows: list[_Row] = []
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

    @staticmethod
    def _insert_sorted(rows: list[_Row], row: _Row) -> None:
        lo, hi = 0, len(rows)
        key = row[0]
        while lo < hi:
            mid = (lo + hi) // 2
            if rows[mid][0] <= key:
                lo = mid + 1
            else:
                hi = mid
        rows.insert(lo, row)

    def add(self, entry: IndexedEntry) -> None:
        row = self._compile(entry)
        if row[3]:
            self._insert_sorted(self._range_rows, row)
            return
        by_value = self._groups.setdefault(row[1], {})
        self._insert_sorted(by_value.setdefault(row[2], []), row)
        self._dirty = True

    def remove(self, entry: IndexedEntry) -> None:
        for i, row in enumerate(self._range_rows):
            if row[4] is entry:
                del self._range_rows[i]
                return
        for mask, by_value in self._groups.items():
            for value, rows in by_value.items():
                for i, row in enumerate(rows):
                    if row[4] is entry:
                        del rows[i]
                        if not rows:
                            del by_value[value]
                        if not by_value:
                            del self._groups[mask]
                        self._dirty = True
                        return
        raise KeyError("entry not in index")

    def _rebuild_order(self) -> None:
        order = []
        for mask, by_value in self._groups.items():
            best = min(rows[0][0] for rows in by_value.values())
            order.append((best, mask, by_value))
        order.sort(key=lambda g: g[0])
        self._order = order
        self._dirty = False

    def lookup(self, values: tuple[int, ...]) -> IndexedEntry | None:
        packed = 0
        for value, width in zip(values, self._widths, strict=True):
            packed = (packed << width) | value
        if self._dirty:
            self._rebuild_order()
        best: _Row | None = None
        for group_best, mask, by_value in self._order:
            if best is not None and best[0] <= group_best:
                break
            rows = by_value.get(packed & mask)
            if rows and (best is None or rows[0][0] < best[0]):
                best = rows[0]
        for row in self._range_rows:
            if best is not None and best[0] <= row[0]:
                break
            if packed & row[1] == row[2]:
                for pos, low, high in row[3]:
                    if not low <= values[pos] <= high:
                        break
                else:
                    best = row
                    break
        return best[4] if best is not None else None

    def clear(self) -> None:
        self._groups.clear()
        self._order = []
        self._dirty = False
        self._range_rows.clear()
