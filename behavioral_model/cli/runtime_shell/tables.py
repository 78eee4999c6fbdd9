"""Table commands: ``table_add``, ``table_set_default``, ``table_reset_default``,
``table_modify``, ``table_delete``, ``table_clear``, ``table_dump``,
``table_num_entries``, ``show_tables``, ``show_actions``, ``table_info``.

P4Runtime names entries by their match key; BMv2's CLI by a handle number. The
handles live here, client-side, numbered per table from 0 as BMv2 numbers them: an
entry gets one when this CLI adds it, or when a dump first shows it.
"""

from __future__ import annotations

from collections.abc import Callable

from p4.config.v1 import p4info_pb2
from p4.v1 import p4runtime_pb2

from behavioral_model.cli.runtime_shell.context import (
    DELETE,
    INSERT,
    MODIFY,
    Command,
    CommandError,
    ShellContext,
    expect_args,
)
from behavioral_model.cli.runtime_shell.show import (
    action_line,
    action_text,
    match_lines,
    table_line,
)
from behavioral_model.cli.runtime_shell.syntax import (
    match_value,
    needs_priority,
    split_arrow,
    to_p4rt_priority,
    value,
)

__all__ = ["TableCommands", "entry_key"]

EntryKey = tuple[int, int, tuple[tuple[int, str, tuple[int, ...]], ...]]


def entry_key(entry: p4runtime_pb2.TableEntry) -> EntryKey:
    """What identifies an entry (table, priority, match), with values as numbers so
    that padded and canonical byte strings compare equal."""
    fields = []
    for m in sorted(entry.match, key=lambda m: m.field_id):
        kind = m.WhichOneof("field_match_type") or ""
        part = getattr(m, kind)
        numbers = tuple(int.from_bytes(v, "big") if isinstance(v, bytes) else int(v)
                        for _, v in part.ListFields())
        fields.append((m.field_id, kind, numbers))
    return entry.table_id, entry.priority, tuple(fields)


def _describe_by_id(profile_id: int, action: p4runtime_pb2.TableAction) -> str:
    which = action.WhichOneof("type")
    return f"{which} {getattr(action, which)}"


class TableCommands:
    def __init__(self, ctx: ShellContext) -> None:
        self.ctx = ctx
        self._handles: dict[int, dict[int, p4runtime_pb2.TableEntry]] = {}
        self._by_key: dict[EntryKey, int] = {}
        self._next: dict[int, int] = {}
        # How a member or group action is shown: ProfileCommands, which owns their
        # handles, replaces this with one that shows the handle.
        self.describe_indirect: Callable[[int, p4runtime_pb2.TableAction], str] = (
            _describe_by_id)

    def commands(self) -> list[Command]:
        return [
            Command("table_add", "<table> <action> <match fields> => <action params> "
                    "[priority]", "add an entry to a table", self.table_add),
            Command("table_set_default", "<table> <action> <action params>",
                    "set a table's default action", self.table_set_default),
            Command("table_reset_default", "<table>",
                    "give a table back the program's default action",
                    self.table_reset_default),
            Command("table_modify", "<table> <action> <entry handle> <action params>",
                    "change the action of an entry", self.table_modify),
            Command("table_delete", "<table> <entry handle>", "delete an entry",
                    self.table_delete),
            Command("table_clear", "<table>", "delete every entry of a table",
                    self.table_clear),
            Command("table_dump", "<table>", "show a table's entries and default action",
                    self.table_dump),
            Command("table_num_entries", "<table>", "number of entries in a table",
                    self.table_num_entries),
            Command("show_tables", "", "list the tables", self.show_tables),
            Command("show_actions", "", "list the actions", self.show_actions),
            Command("table_info", "<table>", "a table's key and actions", self.table_info),
        ]

    # -- handles ----------------------------------------------------------------------
    def handle_of(self, entry: p4runtime_pb2.TableEntry) -> int:
        """The entry's handle, given now if it has none."""
        key = entry_key(entry)
        handle = self._by_key.get(key)
        if handle is None:
            handle = self._next.get(entry.table_id, 0)
            self._next[entry.table_id] = handle + 1
            self._by_key[key] = handle
            probe = p4runtime_pb2.TableEntry()
            probe.CopyFrom(entry)
            for name in ("action", "counter_data", "meter_config", "time_since_last_hit",
                         "meter_counter_data", "idle_timeout_ns", "metadata"):
                probe.ClearField(name)
            self._handles.setdefault(entry.table_id, {})[handle] = probe
        return handle

    def forget(self, entry: p4runtime_pb2.TableEntry) -> None:
        handle = self._by_key.pop(entry_key(entry), None)
        if handle is not None:
            self._handles.get(entry.table_id, {}).pop(handle, None)

    def entry_of(self, table: p4info_pb2.Table, handle_text: str) -> p4runtime_pb2.TableEntry:
        """A copy of the match key (no action) of the entry with this handle."""
        handle = value(handle_text, "entry handle")
        found = self._handles.get(table.preamble.id, {}).get(handle)
        if found is None:
            raise CommandError(f"table {table.preamble.name} has no entry with handle "
                               f"{handle} (known to this CLI: added here or shown by "
                               "table_dump)")
        entry = p4runtime_pb2.TableEntry()
        entry.CopyFrom(found)
        return entry

    # -- building entries -------------------------------------------------------------
    def match_entry(self, table: p4info_pb2.Table, words: list[str]
                    ) -> p4runtime_pb2.TableEntry:
        """An entry with the key written in ``words`` (one per field; a trailing
        priority for tables with ternary, range or optional fields)."""
        fields = list(table.match_fields)
        priority = 0
        if needs_priority(table):
            if len(words) != len(fields) + 1:
                raise CommandError(f"table {table.preamble.name} needs {len(fields)} key "
                                   "value(s) and a priority")
            priority = to_p4rt_priority(words[-1])
            words = words[:-1]
        elif len(words) != len(fields):
            raise CommandError(f"table {table.preamble.name} needs {len(fields)} key "
                               f"value(s), got {len(words)}")
        match = {}
        for field, text in zip(fields, words, strict=True):
            written = match_value(text, field)
            if written is not None:
                match[field.name] = written
        return self.ctx.helper.table_entry(table.preamble.name, match, priority=priority)

    def action(self, table: p4info_pb2.Table, name: str,
               words: list[str]) -> p4runtime_pb2.Action:
        helper = self.ctx.helper
        info = helper.action(name)
        if info.preamble.id not in {ref.id for ref in table.action_refs}:
            raise CommandError(f"action {info.preamble.name} is not an action of table "
                               f"{table.preamble.name}")
        if len(words) != len(info.params):
            raise CommandError(f"action {info.preamble.name} needs {len(info.params)} "
                               f"parameter(s), got {len(words)}")
        params = {p.name: value(w, f"parameter '{p.name}'", p.bitwidth)
                  for p, w in zip(info.params, words, strict=True)}
        return helper.action_msg(info.preamble.name, params)

    # -- commands ---------------------------------------------------------------------
    def table_add(self, words: list[str]) -> None:
        expect_args(words, 2, None, "table_add <table> <action> <match fields> => "
                    "<action params> [priority]")
        table = self.ctx.helper.table(words[0])
        keys, params = split_arrow(words[2:])
        if needs_priority(table) and len(keys) == len(table.match_fields) and params:
            keys = keys + params[-1:]  # BMv2 writes the priority after the parameters
            params = params[:-1]
        entry = self.match_entry(table, keys)
        entry.action.action.CopyFrom(self.action(table, words[1], params))
        self.ctx.write(INSERT, entry)
        self._added(table, entry)

    def _added(self, table: p4info_pb2.Table, entry: p4runtime_pb2.TableEntry) -> None:
        out = self.ctx.out
        out(f"Adding entry to table {table.preamble.name}")
        for line in match_lines(table, entry):
            out(line)
        if entry.action.HasField("action"):
            out(f"  action: {action_text(self.ctx.helper, entry.action.action)}")
        out(f"Entry has been added with handle {self.handle_of(entry)}")

    def table_set_default(self, words: list[str]) -> None:
        expect_args(words, 2, None, "table_set_default <table> <action> <action params>")
        table = self.ctx.helper.table(words[0])
        entry = p4runtime_pb2.TableEntry(table_id=table.preamble.id, is_default_action=True)
        entry.action.action.CopyFrom(self.action(table, words[1], words[2:]))
        self.ctx.write(MODIFY, entry)
        self.ctx.out(f"Setting default action of {table.preamble.name}: "
                     f"{action_text(self.ctx.helper, entry.action.action)}")

    def table_reset_default(self, words: list[str]) -> None:
        expect_args(words, 1, 1, "table_reset_default <table>")
        table = self.ctx.helper.table(words[0])
        self.ctx.write(MODIFY, p4runtime_pb2.TableEntry(table_id=table.preamble.id,
                                                        is_default_action=True))
        self.ctx.out(f"Resetting default action of {table.preamble.name}")

    def table_modify(self, words: list[str]) -> None:
        expect_args(words, 3, None, "table_modify <table> <action> <entry handle> "
                    "<action params>")
        table = self.ctx.helper.table(words[0])
        entry = self.entry_of(table, words[2])
        entry.action.action.CopyFrom(self.action(table, words[1], words[3:]))
        self.ctx.write(MODIFY, entry)
        self.ctx.out(f"Modifying entry {words[2]} of {table.preamble.name}: "
                     f"{action_text(self.ctx.helper, entry.action.action)}")

    def table_delete(self, words: list[str]) -> None:
        expect_args(words, 2, 2, "table_delete <table> <entry handle>")
        table = self.ctx.helper.table(words[0])
        entry = self.entry_of(table, words[1])
        self.ctx.write(DELETE, entry)
        self.forget(entry)
        self.ctx.out(f"Deleting entry {words[1]} from {table.preamble.name}")

    def _entries(self, table: p4info_pb2.Table) -> list[p4runtime_pb2.TableEntry]:
        found = self.ctx.read(p4runtime_pb2.TableEntry(table_id=table.preamble.id))
        return [e.table_entry for e in found if not e.table_entry.is_default_action]

    def table_clear(self, words: list[str]) -> None:
        expect_args(words, 1, 1, "table_clear <table>")
        table = self.ctx.helper.table(words[0])
        entries = self._entries(table)
        for entry in entries:
            entry.ClearField("action")
        if entries:
            self.ctx.write(DELETE, *entries)
        for entry in entries:
            self.forget(entry)
        self.ctx.out(f"Deleted {len(entries)} entries from {table.preamble.name}")

    def table_num_entries(self, words: list[str]) -> None:
        expect_args(words, 1, 1, "table_num_entries <table>")
        self.ctx.out(str(len(self._entries(self.ctx.helper.table(words[0])))))

    def table_dump(self, words: list[str]) -> None:
        expect_args(words, 1, 1, "table_dump <table>")
        table = self.ctx.helper.table(words[0])
        out = self.ctx.out
        entries = self._entries(table)
        out(f"{table.preamble.name}: {len(entries)} entries")
        for entry in sorted(entries, key=self.handle_of):
            out(f"entry {self.handle_of(entry)}:")
            for line in match_lines(table, entry):
                out(line)
            out(f"  action: {self._entry_action(table, entry)}")
        default = self.ctx.read(p4runtime_pb2.TableEntry(table_id=table.preamble.id,
                                                         is_default_action=True))
        if default:
            out(f"default: {self._entry_action(table, default[0].table_entry)}")

    def _entry_action(self, table: p4info_pb2.Table,
                      entry: p4runtime_pb2.TableEntry) -> str:
        which = entry.action.WhichOneof("type")
        if which == "action":
            return action_text(self.ctx.helper, entry.action.action)
        if which is None:
            return "(none)"
        return self.describe_indirect(table.implementation_id, entry.action)

    def show_tables(self, words: list[str]) -> None:
        expect_args(words, 0, 0, "show_tables")
        for table in sorted(self.ctx.helper.p4info.tables, key=lambda t: t.preamble.name):
            self.ctx.out(table_line(table))

    def show_actions(self, words: list[str]) -> None:
        expect_args(words, 0, 0, "show_actions")
        for action in sorted(self.ctx.helper.p4info.actions, key=lambda a: a.preamble.name):
            self.ctx.out(action_line(action))

    def table_info(self, words: list[str]) -> None:
        expect_args(words, 1, 1, "table_info <table>")
        table = self.ctx.helper.table(words[0])
        self.ctx.out(table_line(table))
        self.ctx.out("*" * 72)
        for ref in table.action_refs:
            self.ctx.out(action_line(self.ctx.helper.by_id(ref.id)))
