"""The table commands of STF: ``add``, ``remove``, ``remove_all`` and ``setdefault``.

Besides writing entries, this keeps what later commands use to name them: the handles
given with ``add ... = NAME`` and the BMv2 entry handle numbers (entries of a table
numbered 0, 1, ... as added), for direct counters and meters.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from behavioral_model.frontend.errors import P4Error
from behavioral_model.runtime.matches import Exact, FieldMatch, MatchKind
from behavioral_model.runtime.state import DirectResource
from behavioral_model.runtime.tables import ActionCall, Table, TableEntry
from behavioral_model.stf import commands as cmd
from behavioral_model.stf.key_values import KeyValue, to_field_match
from behavioral_model.stf.resolve import (
    ActionParam,
    action_parameters,
    resolve_action,
    resolve_key_field,
    resolve_table,
)
from behavioral_model.stf.run_context import CommandFailed, RunContext

__all__ = ["EXPLICIT_PRIORITY_BASE", "TableCommands"]

# In an STF file the LARGER priority wins: p4c's runner (backends/bmv2/bmv2stf.py) hands
# simple_switch_CLI, where the smallest number wins, 10000 - p. Our tables also let the
# largest win, so STF priority p becomes runtime priority EXPLICIT_PRIORITY_BASE + p, and
# entries without a priority get IMPLICIT_PRIORITY_BASE - 1, - 2, ..., below every
# explicit one.
EXPLICIT_PRIORITY_BASE = 1 << 40
IMPLICIT_PRIORITY_BASE = 1 << 32


class TableCommands:
    """Writes table entries and remembers their handles."""

    def __init__(self, ctx: RunContext) -> None:
        self.ctx = ctx
        self._params: dict[str, tuple[ActionParam, ...]] | None = None
        self.handles: dict[str, tuple[Table, TableEntry]] = {}
        self.bmv2_handles: dict[str, list[TableEntry]] = {}
        self.implicit_priorities: dict[str, int] = {}

    def handlers(self) -> dict[type, Callable[[Any], None]]:
        return {
            cmd.AddEntry: self._add,
            cmd.RemoveEntry: self._remove,
            cmd.RemoveAll: self._remove_all,
            cmd.SetDefault: self._setdefault,
        }

    def _action_params(self) -> dict[str, tuple[ActionParam, ...]]:
        if self._params is None:
            self._params = action_parameters(self.ctx.program.checked)
        return self._params

    def _matches(
        self, table: Table, keys: Sequence[tuple[str, KeyValue]]
    ) -> tuple[FieldMatch | None, ...]:
        slots: list[FieldMatch | None] = [None] * len(table.keys)
        given: dict[int, str] = {}
        for name, value in keys:
            position = resolve_key_field(table, name)
            key = table.keys[position]
            if position in given:
                raise CommandFailed(f"key field '{key.name}' of table '{table.name}' is given "
                                    f"twice ('{given[position]}' and '{name}')")
            given[position] = name
            try:
                slots[position] = to_field_match(value, key.match_kind, key.width)
            except P4Error as error:
                raise CommandFailed(f"key field '{key.name}': {error.message}") from None
        for position, key in enumerate(table.keys):
            if position not in given and key.match_kind is MatchKind.EXACT:
                # p4c's runner writes 0 for exact fields the STF line leaves out.
                slots[position] = Exact(0)
                self.ctx.log(f"exact key field '{key.name}' not given: using 0")
        return tuple(slots)

    def _action(self, table: Table, name: str,
                args: Sequence[tuple[str, int]]) -> ActionCall:
        action = resolve_action(table, name)
        params = self._action_params().get(action, ())
        by_name = {p.name: p for p in params}
        values: dict[str, int] = {}
        for arg_name, value in args:
            param = by_name.get(arg_name)
            if param is None:
                known = ", ".join(p.name for p in params) or "none"
                raise CommandFailed(f"action '{action}' has no parameter '{arg_name}'; "
                                    f"its parameters: {known}")
            if arg_name in values:
                raise CommandFailed(f"parameter '{arg_name}' of action '{action}' is given twice")
            if not 0 <= value < (1 << param.width):
                raise CommandFailed(f"value {value} for parameter '{arg_name}' of action "
                                    f"'{action}' does not fit in {param.width} bits")
            values[arg_name] = value
        missing = [p.name for p in params if p.name not in values]
        if missing:
            raise CommandFailed(f"action '{action}' needs parameter(s) {', '.join(missing)}")
        return ActionCall(action, tuple(values[p.name] for p in params))

    def _action_text(self, action: ActionCall) -> str:
        params = self._action_params().get(action.name, ())
        args = ", ".join(f"{p.name}={v:#x}" for p, v in zip(params, action.args, strict=False))
        return f"{action.name}({args})"

    def _priority(self, table: Table, priority: int | None) -> int:
        if not table.needs_priority:
            if priority is not None:
                self.ctx.log(f"priority {priority} ignored: table '{table.name}' has no "
                             "ternary/range/optional field")
            return 0
        if priority is not None:
            return EXPLICIT_PRIORITY_BASE + priority
        rank = self.implicit_priorities.get(table.name, 0)
        self.implicit_priorities[table.name] = rank + 1
        return max(1, IMPLICIT_PRIORITY_BASE - 1 - rank)

    def _add(self, c: cmd.AddEntry) -> None:
        table = resolve_table(self.ctx.state, c.table)
        matches = self._matches(table, c.keys)
        action = self._action(table, c.action, c.args)
        priority = self._priority(table, c.priority)
        entry = table.insert(TableEntry(matches, action, priority))
        self.ctx.result.counts.entries += 1
        self.bmv2_handles.setdefault(table.name, []).append(entry)
        if c.handle is not None:
            self.handles[c.handle] = (table, entry)
        shown_priority = ""
        if priority:
            written = "none" if c.priority is None else c.priority
            shown_priority = f" priority {written} (runtime {priority})"
        self.ctx.log(f"add {table.name} {_matches_text(table, entry.matches)} -> "
                     f"{self._action_text(action)}{shown_priority}")

    def _remove(self, c: cmd.RemoveEntry) -> None:
        table = resolve_table(self.ctx.state, c.table)
        matches = table.canonical_matches(self._matches(table, c.keys))
        if not table.needs_priority or c.priority is not None:
            table.delete(matches, self._priority(table, c.priority))
            return
        found = [e for e in table.entries() if e.matches == matches and not e.is_const]
        if not found:
            raise CommandFailed(f"table '{table.name}': no entry with these key values")
        if len(found) > 1:
            raise CommandFailed(f"table '{table.name}': {len(found)} entries have these key "
                                "values; give the priority to choose one")
        table.delete(matches, found[0].priority)

    def _remove_all(self, c: cmd.RemoveAll) -> None:
        for table in self.ctx.state.tables.values():
            table.clear()
        self.handles.clear()
        self.bmv2_handles.clear()

    def _setdefault(self, c: cmd.SetDefault) -> None:
        table = resolve_table(self.ctx.state, c.table)
        action = self._action(table, c.action, c.args)
        table.set_default(action)
        self.ctx.log(f"setdefault {table.name} {self._action_text(action)}")

    def entry_for(self, resource: DirectResource, index: int | str) -> TableEntry:
        """The entry of ``resource``'s table named by a handle name or BMv2 number."""
        table = self.ctx.state.tables[resource.table]
        if isinstance(index, str):
            named = self.handles.get(index)
            if named is None:
                known = ", ".join(sorted(self.handles)) or "none"
                raise CommandFailed(f"no entry handle '{index}' (handles: {known})")
            owner, entry = named
            if owner is not table:
                raise CommandFailed(f"handle '{index}' names an entry of table '{owner.name}', "
                                    f"but '{resource.name}' belongs to table '{table.name}'")
        else:
            added = self.bmv2_handles.get(table.name, [])
            if not 0 <= index < len(added):
                raise CommandFailed(f"table '{table.name}' has no entry handle {index} "
                                    f"({len(added)} entries added)")
            entry = added[index]
        if table.find(entry.matches, entry.priority) is not entry:
            raise CommandFailed(f"the entry for '{index}' is no longer in table '{table.name}'")
        return entry


def _matches_text(table: Table, matches: Sequence[FieldMatch | None]) -> str:
    return " ".join(
        f"{key.name}={'*' if match is None else match}"
        for key, match in zip(table.keys, matches, strict=True)
    )
