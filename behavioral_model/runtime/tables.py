"""Match-action tables: entries, validation and fast lookup.

Semantics follow the P4Runtime spec and BMv2:

* A table whose key has a ternary, range or optional field *needs priorities*: every
  entry has ``priority >= 1`` and on overlap the **highest priority number wins**
  (ties: the entry inserted first). Other tables take ``priority == 0``.
* A table with one LPM field (others exact) picks the longest matching prefix.
* A field left out of an entry (``None`` in ``matches``) is a wildcard; exact fields
  are mandatory. Don't-care spellings are folded to ``None`` (``canonical_match``).
* An entry's identity is ``(matches, priority)``: inserting it twice raises
  :class:`DuplicateEntryError`.

``lookup`` is the per-packet call: exact tables do one dict lookup; LPM and priority
tables also memoise results per value tuple in a cache that any mutation clears.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from behavioral_model.runtime.errors import (
    ConstViolationError,
    DuplicateEntryError,
    EntryNotFoundError,
    InvalidEntryError,
    TableFullError,
)
from behavioral_model.runtime.externs import CounterCell, TrTcmMeter
from behavioral_model.runtime.match_index import (
    ExactIndex,
    IndexedEntry,
    LpmIndex,
    MatchIndex,
    ScanIndex,
)
from behavioral_model.runtime.matches import (
    PRIORITY_MATCH_KINDS,
    FieldMatch,
    KeyField,
    MatchKind,
    canonical_match,
)
from behavioral_model.runtime.naming import resolve_name

__all__ = [
    "ActionCall",
    "TableEntry",
    "Table",
    "LOOKUP_CACHE_LIMIT",
]

# The lookup cache is dropped wholesale once it holds this many value tuples, so a
# flood of distinct keys cannot grow memory without bound.
LOOKUP_CACHE_LIMIT = 65536


class _LookupCache(dict):  # type: ignore[type-arg]
    """Key values -> the matching entry or None, filled as keys are looked up: a
    repeated key is one dict lookup in C; a new one asks the index (``__missing__``).
    Emptied whenever the table's entries change, and when it reaches
    LOOKUP_CACHE_LIMIT keys."""

    __slots__ = ("index",)

    def __init__(self, index: MatchIndex) -> None:
        super().__init__()
        self.index = index

    def __missing__(self, values: tuple[int, ...]) -> IndexedEntry | None:
        entry = self.index.lookup(values)
        if len(self) >= LOOKUP_CACHE_LIMIT:
            self.clear()
        self[values] = entry
        return entry


@dataclass(frozen=True, slots=True)
class ActionCall:
    """An action and its argument values, in the action's parameter order."""

    name: str
    args: tuple[int, ...] = ()


@dataclass(eq=False, slots=True)
class TableEntry:
    """One table entry plus the mutable per-entry data the pipeline and server use.

    ``matches`` has one slot per key field in key order (``None`` = wildcard).
    ``direct_counter`` is counted by the executor on a hit when the table has a
    direct counter; ``direct_meter`` is None until the control plane configures it
    (an unconfigured direct meter marks GREEN). Times are in nanoseconds.
    ``last_hit_ns`` is the device-clock time of the last hit (or of the insertion, set
    by the P4Runtime server); the pipeline updates it only in tables with
    ``support_timeout = true``.
    """

    matches: tuple[FieldMatch | None, ...]
    action: ActionCall
    priority: int = 0
    is_const: bool = False
    idle_timeout_ns: int = 0
    last_hit_ns: int = 0
    direct_counter: CounterCell = field(default_factory=CounterCell)
    direct_meter: TrTcmMeter | None = None


class Table:
    """A match-action table with control-plane mutation and per-packet lookup."""

    def __init__(
        self,
        name: str,
        keys: Sequence[KeyField],
        action_names: Sequence[str],
        default_action: ActionCall,
        default_is_const: bool = False,
        size: int = 1024,
        const_entries: bool = False,
        *,
        default_only_actions: Iterable[str] = (),
        table_only_actions: Iterable[str] = (),
    ) -> None:
        self.name = name
        self.keys: tuple[KeyField, ...] = tuple(keys)
        self.action_names: tuple[str, ...] = tuple(action_names)
        self.default_only_actions = frozenset(default_only_actions)
        self.table_only_actions = frozenset(table_only_actions)
        self.default_is_const = default_is_const
        self.size = size
        self.const_entries = const_entries
        # Name of the action profile/selector implementing this table, if any.
        self.implementation: str | None = None
        self.needs_priority = any(k.match_kind in PRIORITY_MATCH_KINDS for k in self.keys)
        self._initial_default = default_action
        self.default_action = default_action
        self._entries: dict[tuple[tuple[FieldMatch | None, ...], int], TableEntry] = {}
        self._index = self._make_index()
        self._cache: _LookupCache | None = None
        # lookup_fn(values) is lookup(values) as generated pipelines call it: a bound C
        # method (the exact index's dict.get, or the cache's __getitem__, which asks the
        # index only on a miss), so a lookup that hits costs no Python call.
        self.lookup_fn: Callable[[tuple[int, ...]], TableEntry | None]
        if isinstance(self._index, ExactIndex):
            self.lookup_fn = self._index.get  # type: ignore[assignment]
        else:
            self._cache = _LookupCache(self._index)
            self.lookup_fn = self._cache.__getitem__
        if default_action.name not in self.action_names:
            raise ValueError(
                f"table '{name}': default action '{default_action.name}' is not one of "
                f"its actions {list(self.action_names)}"
            )

    def _make_index(self) -> MatchIndex:
        kinds = [k.match_kind for k in self.keys]
        lpm_positions = [i for i, kind in enumerate(kinds) if kind is MatchKind.LPM]
        if self.needs_priority:
            return ScanIndex(self.keys)
        if len(lpm_positions) > 1:
            raise ValueError(
                f"table '{self.name}': more than one LPM key field needs a ternary, "
                "range or optional field too (priorities)"
            )
        if lpm_positions:
            return LpmIndex(self.keys, lpm_positions[0])
        return ExactIndex()

    # -- per-packet ---------------------------------------------------------------

    def lookup(self, values: tuple[int, ...]) -> TableEntry | None:
        """The entry matching the key ``values`` (one int per key field, already
        truncated to width), or None on a miss (the caller runs ``default_action``)."""
        return self.lookup_fn(values)

    # -- control plane -------------------------------------------------------------

    def __len__(self) -> int:
        return len(self._entries)

    def entries(self) -> list[TableEntry]:
        """All entries (const ones included) in insertion order."""
        return list(self._entries.values())

    def key_position(self, field_name: str) -> int:
        """Index of the key field called ``field_name`` or ending in ``.field_name``."""
        names = [k.name for k in self.keys]
        resolved = resolve_name(field_name, names, f"key field of table '{self.name}'")
        return names.index(resolved)

    def build_matches(
        self, by_field: Mapping[str, FieldMatch | None]
    ) -> tuple[FieldMatch | None, ...]:
        """A ``matches`` tuple from ``{field name: match}``; omitted fields are None."""
        slots: list[FieldMatch | None] = [None] * len(self.keys)
        for name, match in by_field.items():
            slots[self.key_position(name)] = match
        return tuple(slots)

    def canonical_matches(
        self, matches: Sequence[FieldMatch | None]
    ) -> tuple[FieldMatch | None, ...]:
        """Validate ``matches`` against the key; return them with wildcards folded."""
        if len(matches) != len(self.keys):
            raise InvalidEntryError(
                f"table '{self.name}': expected {len(self.keys)} match fields, "
                f"got {len(matches)}"
            )
        return tuple(
            canonical_match(key, match) for key, match in zip(self.keys, matches, strict=True)
        )

    def _check_priority(self, priority: int) -> None:
        if self.needs_priority:
            if priority < 1:
                raise InvalidEntryError(
                    f"table '{self.name}' has ternary/range/optional fields: "
                    f"entries need a priority >= 1, got {priority}"
                )
        elif priority != 0:
            raise InvalidEntryError(
                f"table '{self.name}' has only exact/lpm fields: priority must be 0, "
                f"got {priority}"
            )

    def _check_entry_action(self, action: ActionCall) -> None:
        if self.implementation is not None:
            # Entries of a profile-implemented table name members/groups, which the
            # profile checks; a direct action is not allowed there (P4Runtime 9.2).
            if isinstance(action, ActionCall):
                raise InvalidEntryError(
                    f"table '{self.name}' is implemented by '{self.implementation}': its "
                    "entries refer to members or groups, not actions"
                )
            return
        if action.name not in self.action_names:
            raise InvalidEntryError(
                f"table '{self.name}': action '{action.name}' is not one of "
                f"{list(self.action_names)}"
            )
        if action.name in self.default_only_actions:
            raise InvalidEntryError(
                f"table '{self.name}': action '{action.name}' is @defaultonly"
            )

    def _identity(
        self, matches: Sequence[FieldMatch | None], priority: int
    ) -> tuple[tuple[FieldMatch | None, ...], int]:
        return self.canonical_matches(matches), priority

    def _mutated(self) -> None:
        if self._cache is not None:
            self._cache.clear()

    def insert(self, entry: TableEntry) -> TableEntry:
        """Add ``entry`` (its matches are stored in canonical form) and return it."""
        if self.const_entries and not entry.is_const:
            raise ConstViolationError(
                f"table '{self.name}' has const entries; it cannot be written at runtime"
            )
        if not self.keys:
            raise InvalidEntryError(
                f"table '{self.name}' has no key; only its default action can be set"
            )
        identity = self._identity(entry.matches, entry.priority)
        self._check_priority(entry.priority)
        self._check_entry_action(entry.action)
        if identity in self._entries:
            raise DuplicateEntryError(
                f"table '{self.name}': an entry with these matches and priority "
                f"{entry.priority} already exists"
            )
        if len(self._entries) >= self.size:
            raise TableFullError(f"table '{self.name}' is full ({self.size} entries)")
        entry.matches = identity[0]
        self._entries[identity] = entry
        self._index.add(entry)
        self._mutated()
        return entry

    def load_const_entries(self, entries: Sequence[TableEntry], const: bool = True) -> None:
        """Insert the entries declared in the P4 source, marking them const.

        When the table needs priorities and none of the entries carries one, the
        priorities are assigned ``len(entries)`` down to 1 so the first listed wins.
        """
        if self.needs_priority and all(e.priority == 0 for e in entries):
            for i, entry in enumerate(entries):
                entry.priority = len(entries) - i
        for entry in entries:
            entry.is_const = const
            self.insert(entry)

    def find(
        self, matches: Sequence[FieldMatch | None], priority: int = 0
    ) -> TableEntry | None:
        """The stored entry with exactly these matches and priority, or None."""
        return self._entries.get(self._identity(matches, priority))

    def _existing(self, matches: Sequence[FieldMatch | None], priority: int) -> TableEntry:
        entry = self.find(matches, priority)
        if entry is None:
            raise EntryNotFoundError(
                f"table '{self.name}': no entry with these matches and priority {priority}"
            )
        if entry.is_const or self.const_entries:
            raise ConstViolationError(f"table '{self.name}': entry is const")
        return entry

    def modify(self, entry: TableEntry) -> TableEntry:
        """Change the action and idle timeout of the stored entry with the same key
        (its counter and meter state are kept; a given ``direct_meter`` replaces the
        stored one). Returns the stored entry."""
        stored = self._existing(entry.matches, entry.priority)
        self._check_entry_action(entry.action)
        stored.action = entry.action
        stored.idle_timeout_ns = entry.idle_timeout_ns
        if entry.direct_meter is not None:
            stored.direct_meter = entry.direct_meter
        return stored

    def delete(self, matches: Sequence[FieldMatch | None], priority: int = 0) -> TableEntry:
        """Remove and return the entry with these matches and priority."""
        entry = self._existing(matches, priority)
        del self._entries[(entry.matches, entry.priority)]
        self._index.remove(entry)
        self._mutated()
        return entry

    def set_default(self, action: ActionCall) -> None:
        """Replace the action run on a miss."""
        if self.default_is_const:
            raise ConstViolationError(f"table '{self.name}': the default action is const")
        if action.name not in self.action_names:
            raise InvalidEntryError(
                f"table '{self.name}': action '{action.name}' is not one of "
                f"{list(self.action_names)}"
            )
        if action.name in self.table_only_actions:
            raise InvalidEntryError(
                f"table '{self.name}': action '{action.name}' is @tableonly"
            )
        self.default_action = action

    def clear(self) -> None:
        """Delete every runtime-written entry; const entries stay."""
        kept = [e for e in self._entries.values() if e.is_const]
        self._entries.clear()
        self._index.clear()
        for entry in kept:
            self._entries[(entry.matches, entry.priority)] = entry
            self._index.add(entry)
        self._mutated()

    def reset(self) -> None:
        """Back to the loaded program: runtime entries deleted, default action
        restored, const entries' counters, meters and hit times zeroed."""
        self.clear()
        self.default_action = self._initial_default
        for entry in self._entries.values():
            entry.direct_counter = CounterCell()
            entry.direct_meter = None
            entry.last_hit_ns = 0
