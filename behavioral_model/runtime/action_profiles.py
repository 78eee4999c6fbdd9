"""Action profiles and action selectors (v1model `action_profile`, `action_selector`).

A table implemented by a profile holds references instead of actions: a member (one
action with its data) or, with a selector, a group of members of which the data plane
picks one by hashing the table's `selector` key fields (P4Runtime spec 9.2).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .errors import (
    DuplicateEntryError,
    EntryNotFoundError,
    InvalidEntryError,
    TableFullError,
)
from .tables import ActionCall


@dataclass(frozen=True, slots=True)
class MemberRef:
    """A table entry's action: member `member_id` of the table's profile."""

    member_id: int
    name: str = "<member>"
    args: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class GroupRef:
    """A table entry's action: group `group_id` of the table's selector."""

    group_id: int
    name: str = "<group>"
    args: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class OneShotRef:
    """A P4Runtime one-shot action set: the members are held by the entry itself."""

    actions: tuple[tuple[ActionCall, int], ...]
    name: str = "<one-shot>"
    args: tuple[int, ...] = ()


@dataclass
class ActionProfile:
    """Members and (for a selector) groups of one profile instance."""

    name: str
    size: int
    with_selector: bool = False
    algorithm: str = "crc16"
    output_width: int = 0
    members: dict[int, ActionCall] = field(default_factory=dict)
    groups: dict[int, list[tuple[int, int]]] = field(default_factory=dict)
    max_group_size: int = 0

    # -- control plane --------------------------------------------------------------
    def add_member(self, member_id: int, action: ActionCall) -> None:
        if member_id in self.members:
            raise DuplicateEntryError(f"{self.name}: member {member_id} already exists")
        if len(self.members) >= self.size:
            raise TableFullError(f"{self.name}: profile is full ({self.size} members)")
        self.members[member_id] = action

    def modify_member(self, member_id: int, action: ActionCall) -> None:
        self._member(member_id)
        self.members[member_id] = action

    def delete_member(self, member_id: int) -> None:
        self._member(member_id)
        for gid, members in self.groups.items():
            if any(m == member_id for m, _ in members):
                raise InvalidEntryError(
                    f"{self.name}: member {member_id} is still in group {gid}")
        del self.members[member_id]

    def _member(self, member_id: int) -> ActionCall:
        action = self.members.get(member_id)
        if action is None:
            raise EntryNotFoundError(f"{self.name}: no member {member_id}")
        return action

    def set_group(self, group_id: int, members: list[tuple[int, int]], create: bool) -> None:
        if not self.with_selector:
            raise InvalidEntryError(f"{self.name} is an action profile without a selector")
        if create and group_id in self.groups:
            raise DuplicateEntryError(f"{self.name}: group {group_id} already exists")
        if not create and group_id not in self.groups:
            raise EntryNotFoundError(f"{self.name}: no group {group_id}")
        for member_id, weight in members:
            self._member(member_id)
            if weight < 1:
                raise InvalidEntryError(f"{self.name}: member weight must be >= 1")
        if self.max_group_size and sum(w for _, w in members) > self.max_group_size:
            raise InvalidEntryError(f"{self.name}: group exceeds max_group_size")
        self.groups[group_id] = list(members)

    def delete_group(self, group_id: int) -> None:
        if group_id not in self.groups:
            raise EntryNotFoundError(f"{self.name}: no group {group_id}")
        del self.groups[group_id]

    def reset(self) -> None:
        self.members.clear()
        self.groups.clear()

    # -- data plane -----------------------------------------------------------------
    def resolve(self, ref: object, hash_value: int) -> ActionCall | None:
        """The action a reference stands for; a group picks member `hash % members`
        (weights count as repeated members). None when it cannot be resolved."""
        if isinstance(ref, MemberRef):
            return self.members.get(ref.member_id)
        if isinstance(ref, GroupRef):
            members = self.groups.get(ref.group_id)
            if not members:
                return None
            expanded = [m for m, w in members for _ in range(w)]
            return self.members.get(expanded[hash_value % len(expanded)])
        if isinstance(ref, OneShotRef):
            expanded_calls = [a for a, w in ref.actions for _ in range(w)]
            if not expanded_calls:
                return None
            return expanded_calls[hash_value % len(expanded_calls)]
        if isinstance(ref, ActionCall):
            return ref
        return None
