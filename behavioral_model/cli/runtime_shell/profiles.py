"""Action profiles and the tables that use them: ``act_prof_create_member``,
``act_prof_delete_member``, ``act_prof_modify_member``, ``act_prof_create_group``,
``act_prof_delete_group``, ``act_prof_add_member_to_group``,
``act_prof_remove_member_from_group``, ``act_prof_dump``, and ``table_indirect_add``,
``table_indirect_add_with_group``, ``table_indirect_modify``,
``table_indirect_modify_with_group``, ``table_indirect_delete``,
``table_indirect_set_default``, ``table_indirect_set_default_with_group``.

Member and group handles are client-side numbers from 0 per profile, as BMv2 gives
them; each stands for a P4Runtime member or group id (the lowest one the profile does
not use yet, since P4Runtime ids start at 1).
"""

from __future__ import annotations

from dataclasses import dataclass, field

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
from behavioral_model.cli.runtime_shell.show import action_text
from behavioral_model.cli.runtime_shell.syntax import number, split_arrow
from behavioral_model.cli.runtime_shell.tables import TableCommands

__all__ = ["ProfileCommands"]


@dataclass
class _Handles:
    """Client-side handle -> P4Runtime id, for the members or groups of a profile."""

    ids: dict[int, int] = field(default_factory=dict)
    next_handle: int = 0

    def add(self, object_id: int) -> int:
        handle = self.next_handle
        self.next_handle += 1
        self.ids[handle] = object_id
        return handle

    def id_of(self, handle_text: str, what: str) -> int:
        handle = number(handle_text, f"{what} handle")
        if handle not in self.ids:
            raise CommandError(f"no {what} with handle {handle}")
        return self.ids[handle]

    def handle_of(self, object_id: int) -> int | None:
        return next((h for h, i in self.ids.items() if i == object_id), None)


class ProfileCommands:
    def __init__(self, ctx: ShellContext, tables: TableCommands) -> None:
        self.ctx = ctx
        self.tables = tables
        self._members: dict[int, _Handles] = {}
        self._groups: dict[int, _Handles] = {}
        tables.describe_indirect = self.describe

    def describe(self, profile_id: int, action: p4runtime_pb2.TableAction) -> str:
        """``member H`` / ``group H`` by CLI handle (or P4Runtime id if it has none)."""
        if action.WhichOneof("type") == "action_profile_group_id":
            what, object_id, handles = ("group", action.action_profile_group_id,
                                        self._groups.get(profile_id, _Handles()))
        else:
            what, object_id, handles = ("member", action.action_profile_member_id,
                                        self._members.get(profile_id, _Handles()))
        handle = handles.handle_of(object_id)
        return f"{what} id {object_id}" if handle is None else f"{what} {handle}"

    def commands(self) -> list[Command]:
        return [
            Command("act_prof_create_member", "<profile> <action> [action params]",
                    "add a member to an action profile", self.create_member),
            Command("act_prof_modify_member", "<profile> <action> <member handle> "
                    "[action params]", "change a member's action", self.modify_member),
            Command("act_prof_delete_member", "<profile> <member handle>",
                    "delete a member", self.delete_member),
            Command("act_prof_create_group", "<profile>", "add an empty group",
                    self.create_group),
            Command("act_prof_delete_group", "<profile> <group handle>", "delete a group",
                    self.delete_group),
            Command("act_prof_add_member_to_group", "<profile> <member handle> "
                    "<group handle>", "put a member into a group", self.add_to_group),
            Command("act_prof_remove_member_from_group", "<profile> <member handle> "
                    "<group handle>", "take a member out of a group", self.remove_from_group),
            Command("act_prof_dump", "<profile>", "show a profile's members and groups",
                    self.dump),
            Command("table_indirect_add", "<table> <match fields> => <member handle> "
                    "[priority]", "add an entry that runs a member", self.indirect_add),
            Command("table_indirect_add_with_group", "<table> <match fields> => "
                    "<group handle> [priority]", "add an entry that runs a group",
                    self.indirect_add_with_group),
            Command("table_indirect_modify", "<table> <entry handle> <member handle>",
                    "point an entry at another member", self.indirect_modify),
            Command("table_indirect_modify_with_group", "<table> <entry handle> "
                    "<group handle>", "point an entry at a group",
                    self.indirect_modify_with_group),
            Command("table_indirect_delete", "<table> <entry handle>", "delete an entry",
                    self.tables.table_delete),
            Command("table_indirect_set_default", "<table> <member handle>",
                    "make a member the default action", self.indirect_set_default),
            Command("table_indirect_set_default_with_group", "<table> <group handle>",
                    "make a group the default action", self.indirect_set_default_with_group),
        ]

    # -- profiles ---------------------------------------------------------------------
    def _profile(self, name: str) -> p4info_pb2.ActionProfile:
        return self.ctx.helper.get("action_profiles", name)

    def _free_id(self, existing: list[int], handles: _Handles) -> int:
        used = set(existing) | set(handles.ids.values())
        return next(i for i in range(1, len(used) + 2) if i not in used)

    def _member_action(self, profile: p4info_pb2.ActionProfile, action: str,
                       params: list[str]) -> p4runtime_pb2.Action:
        table = self.ctx.helper.by_id(profile.table_ids[0])
        return self.tables.action(table, action, params)

    def create_member(self, words: list[str]) -> None:
        expect_args(words, 2, None, "act_prof_create_member <profile> <action> "
                    "[action params]")
        profile = self._profile(words[0])
        pid = profile.preamble.id
        handles = self._members.setdefault(pid, _Handles())
        existing = self.ctx.read(p4runtime_pb2.ActionProfileMember(action_profile_id=pid))
        member = p4runtime_pb2.ActionProfileMember(
            action_profile_id=pid,
            member_id=self._free_id([e.action_profile_member.member_id for e in existing],
                                    handles))
        member.action.CopyFrom(self._member_action(profile, words[1], words[2:]))
        self.ctx.write(INSERT, member)
        handle = handles.add(member.member_id)
        self.ctx.out(f"Member has been created with handle {handle}")

    def modify_member(self, words: list[str]) -> None:
        expect_args(words, 3, None, "act_prof_modify_member <profile> <action> "
                    "<member handle> [action params]")
        profile = self._profile(words[0])
        pid = profile.preamble.id
        member = p4runtime_pb2.ActionProfileMember(
            action_profile_id=pid,
            member_id=self._members.get(pid, _Handles()).id_of(words[2], "member"))
        member.action.CopyFrom(self._member_action(profile, words[1], words[3:]))
        self.ctx.write(MODIFY, member)
        self.ctx.out(f"Member {words[2]} modified")

    def delete_member(self, words: list[str]) -> None:
        expect_args(words, 2, 2, "act_prof_delete_member <profile> <member handle>")
        pid = self._profile(words[0]).preamble.id
        handles = self._members.get(pid, _Handles())
        member_id = handles.id_of(words[1], "member")
        self.ctx.write(DELETE, p4runtime_pb2.ActionProfileMember(action_profile_id=pid,
                                                                 member_id=member_id))
        del handles.ids[number(words[1], "member handle")]
        self.ctx.out(f"Member {words[1]} deleted")

    def create_group(self, words: list[str]) -> None:
        expect_args(words, 1, 1, "act_prof_create_group <profile>")
        profile = self._profile(words[0])
        pid = profile.preamble.id
        handles = self._groups.setdefault(pid, _Handles())
        existing = self.ctx.read(p4runtime_pb2.ActionProfileGroup(action_profile_id=pid))
        group = p4runtime_pb2.ActionProfileGroup(
            action_profile_id=pid, max_size=profile.max_group_size,
            group_id=self._free_id([e.action_profile_group.group_id for e in existing],
                                   handles))
        self.ctx.write(INSERT, group)
        self.ctx.out(f"Group has been created with handle {handles.add(group.group_id)}")

    def _group(self, profile_text: str, group_text: str) -> p4runtime_pb2.ActionProfileGroup:
        """The group as the device has it now (members and max_size)."""
        pid = self._profile(profile_text).preamble.id
        group_id = self._groups.get(pid, _Handles()).id_of(group_text, "group")
        found = self.ctx.read(p4runtime_pb2.ActionProfileGroup(action_profile_id=pid,
                                                               group_id=group_id))
        if not found:
            raise CommandError(f"group {group_text} is no longer on the device")
        return found[0].action_profile_group

    def delete_group(self, words: list[str]) -> None:
        expect_args(words, 2, 2, "act_prof_delete_group <profile> <group handle>")
        pid = self._profile(words[0]).preamble.id
        handles = self._groups.get(pid, _Handles())
        group_id = handles.id_of(words[1], "group")
        self.ctx.write(DELETE, p4runtime_pb2.ActionProfileGroup(action_profile_id=pid,
                                                                group_id=group_id))
        del handles.ids[number(words[1], "group handle")]
        self.ctx.out(f"Group {words[1]} deleted")

    def _change_group(self, words: list[str], add: bool) -> None:
        verb = "add_member_to_group" if add else "remove_member_from_group"
        expect_args(words, 3, 3, f"act_prof_{verb} <profile> <member handle> "
                    "<group handle>")
        group = self._group(words[0], words[2])
        member_id = self._members.get(group.action_profile_id, _Handles()).id_of(
            words[1], "member")
        members = [m for m in group.members if m.member_id != member_id]
        if add:
            members.append(p4runtime_pb2.ActionProfileGroup.Member(member_id=member_id,
                                                                   weight=1))
        elif len(members) == len(group.members):
            raise CommandError(f"member {words[1]} is not in group {words[2]}")
        del group.members[:]
        group.members.extend(members)
        self.ctx.write(MODIFY, group)
        self.ctx.out(f"Member {words[1]} {'added to' if add else 'removed from'} "
                     f"group {words[2]}")

    def add_to_group(self, words: list[str]) -> None:
        self._change_group(words, add=True)

    def remove_from_group(self, words: list[str]) -> None:
        self._change_group(words, add=False)

    def dump(self, words: list[str]) -> None:
        expect_args(words, 1, 1, "act_prof_dump <profile>")
        pid = self._profile(words[0]).preamble.id
        members = self._members.get(pid, _Handles())
        groups = self._groups.get(pid, _Handles())
        for e in self.ctx.read(p4runtime_pb2.ActionProfileMember(action_profile_id=pid)):
            m = e.action_profile_member
            self.ctx.out(f"member {members.handle_of(m.member_id)} (id {m.member_id}): "
                         f"{action_text(self.ctx.helper, m.action)}")
        for e in self.ctx.read(p4runtime_pb2.ActionProfileGroup(action_profile_id=pid)):
            g = e.action_profile_group
            inside = ", ".join(str(members.handle_of(m.member_id)) for m in g.members)
            self.ctx.out(f"group {groups.handle_of(g.group_id)} (id {g.group_id}): "
                         f"members [{inside}]")

    # -- indirect tables --------------------------------------------------------------
    def _table_profile(self, name: str) -> tuple[p4info_pb2.Table, int]:
        table = self.ctx.helper.table(name)
        if not table.implementation_id:
            raise CommandError(f"table {table.preamble.name} has no action profile: use "
                               "table_add")
        return table, table.implementation_id

    def _indirect_action(self, pid: int, handle: str, group: bool
                         ) -> p4runtime_pb2.TableAction:
        action = p4runtime_pb2.TableAction()
        if group:
            action.action_profile_group_id = self._groups.get(pid, _Handles()).id_of(
                handle, "group")
        else:
            action.action_profile_member_id = self._members.get(pid, _Handles()).id_of(
                handle, "member")
        return action

    def _indirect_add(self, words: list[str], group: bool) -> None:
        what = "group" if group else "member"
        expect_args(words, 3, None, f"table_indirect_add <table> <match fields> => "
                    f"<{what} handle> [priority]")
        table, pid = self._table_profile(words[0])
        keys, after = split_arrow(words[1:])
        if not after:
            raise CommandError(f"give the {what} handle after '=>'")
        entry = self.tables.match_entry(table, keys + after[1:])
        entry.action.CopyFrom(self._indirect_action(pid, after[0], group))
        self.ctx.write(INSERT, entry)
        self.ctx.out(f"Entry has been added with handle {self.tables.handle_of(entry)}")

    def indirect_add(self, words: list[str]) -> None:
        self._indirect_add(words, group=False)

    def indirect_add_with_group(self, words: list[str]) -> None:
        self._indirect_add(words, group=True)

    def _indirect_modify(self, words: list[str], group: bool) -> None:
        expect_args(words, 3, 3, "table_indirect_modify <table> <entry handle> <handle>")
        table, pid = self._table_profile(words[0])
        entry = self.tables.entry_of(table, words[1])
        entry.action.CopyFrom(self._indirect_action(pid, words[2], group))
        self.ctx.write(MODIFY, entry)
        self.ctx.out(f"Entry {words[1]} modified")

    def indirect_modify(self, words: list[str]) -> None:
        self._indirect_modify(words, group=False)

    def indirect_modify_with_group(self, words: list[str]) -> None:
        self._indirect_modify(words, group=True)

    def _indirect_default(self, words: list[str], group: bool) -> None:
        expect_args(words, 2, 2, "table_indirect_set_default <table> <handle>")
        table, pid = self._table_profile(words[0])
        entry = p4runtime_pb2.TableEntry(table_id=table.preamble.id, is_default_action=True)
        entry.action.CopyFrom(self._indirect_action(pid, words[1], group))
        self.ctx.write(MODIFY, entry)
        self.ctx.out(f"Default action of {table.preamble.name} set")

    def indirect_set_default(self, words: list[str]) -> None:
        self._indirect_default(words, group=False)

    def indirect_set_default_with_group(self, words: list[str]) -> None:
        self._indirect_default(words, group=True)
