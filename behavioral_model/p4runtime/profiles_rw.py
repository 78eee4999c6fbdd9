"""``ActionProfileMember`` and ``ActionProfileGroup`` over ``runtime.action_profiles``,
and the indirect actions of table entries: member and group references and one-shot
action sets (P4Runtime spec, "ActionProfileMember & ActionProfileGroup", "One Shot
Action Selector Programming").

Rules, checked before anything changes:

* ids: ``action_profile_id`` must name a profile of the P4Info (0: INVALID_ARGUMENT,
  unknown: NOT_FOUND); member and group ids are non-zero (INVALID_ARGUMENT).
* members: INSERT and MODIFY need an action of the profile's tables (INVALID_ARGUMENT,
  PERMISSION_DENIED for a ``@defaultonly`` one); a duplicate id is ALREADY_EXISTS, a
  full profile RESOURCE_EXHAUSTED, an unknown id NOT_FOUND. A member still in a group
  or referenced by a table entry cannot be deleted (FAILED_PRECONDITION).
* groups (selectors only, else INVALID_ARGUMENT): members must exist (NOT_FOUND), appear
  once, weigh >= 1 (INVALID_ARGUMENT; with ``sum_of_members`` semantics at most
  ``max_member_weight``). ``max_size`` is fixed at INSERT (a MODIFY with another one is
  INVALID_ARGUMENT); with a P4Info ``max_group_size`` it must be 1..max_group_size
  (INVALID_ARGUMENT). A group larger than its ``max_size`` (members or weights, as the
  semantics say) is RESOURCE_EXHAUSTED. A group referenced by a table entry cannot be
  deleted (FAILED_PRECONDITION).
* watch ports: this target has no port liveness, so a member or one-shot action with a
  watch port is UNIMPLEMENTED.
* one shots: a table entry's ``action_profile_action_set`` needs a selector, at least
  one action (each an action of the table, weight >= 1) and a profile not programmed
  with members and groups; conversely members and groups are refused while one-shot
  entries exist (INVALID_ARGUMENT, the spec's "exclusively one or the other"). Size
  rules as for groups, against the P4Info ``max_group_size`` (INVALID_ARGUMENT). Reads
  return the set as written.
* the data plane expands a group's weights into a list, so the total weight of one
  group or one-shot set is capped at :data:`MAX_GROUP_WEIGHT` (RESOURCE_EXHAUSTED).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from google.rpc import code_pb2
from p4.v1 import p4runtime_pb2

from behavioral_model.runtime.action_profiles import (
    ActionProfile,
    GroupRef,
    MemberRef,
    OneShotRef,
)
from behavioral_model.runtime.tables import ActionCall, Table

from .context import PipelineContext
from .entrydata import OneShotAction, TableActionData, params_of
from .errors import (
    P4RTError,
    already_exists,
    failed_precondition,
    invalid,
    not_found,
    resource_exhausted,
    unimplemented,
)
from .p4info_index import ActionProfileInfo, TableInfo
from .values import check_scope, decode_action, encode_action

__all__ = [
    "MAX_GROUP_WEIGHT", "write_member", "write_group", "read_members", "read_groups",
    "decode_indirect_action", "encode_indirect_action", "IndirectRef",
]

Update = p4runtime_pb2.Update
IndirectRef = MemberRef | GroupRef | OneShotRef

#: Largest total weight of one group or one-shot action set this target takes.
MAX_GROUP_WEIGHT = 4096


def _profile(ctx: PipelineContext, profile_id: int) -> tuple[ActionProfileInfo,
                                                             ActionProfile]:
    info = ctx.index.action_profile(profile_id)
    return info, ctx.state.action_profiles[info.name]


def _tables(ctx: PipelineContext, info: ActionProfileInfo) -> Iterator[Table]:
    for table_id in info.table_ids:
        yield ctx.state.tables[ctx.index.tables[table_id].name]


def _referenced(ctx: PipelineContext, info: ActionProfileInfo, ref: IndirectRef) -> bool:
    return any(entry.action == ref for table in _tables(ctx, info)
               for entry in table.entries())


def _has_one_shots(ctx: PipelineContext, info: ActionProfileInfo,
                   prof: ActionProfile) -> bool:
    if prof.members or prof.groups:
        return False  # one shots and members/groups never coexist
    return any(isinstance(entry.action, OneShotRef) for table in _tables(ctx, info)
               for entry in table.entries())


def _check_watch(watch: int, watch_port: bytes, what: str) -> None:
    if watch or watch_port:
        raise unimplemented(f"{what}: watch ports are not supported by this target (it "
                            "has no port liveness); leave watch_port empty")


def _check_weights(info: ActionProfileInfo, weights: list[int], what: str) -> None:
    for weight in weights:
        if weight < 1:
            raise invalid(f"{what}: weight {weight} is not valid (must be >= 1)")
        if info.sum_of_members and info.max_member_weight and \
                weight > info.max_member_weight:
            raise invalid(f"{what}: weight {weight} exceeds max_member_weight "
                          f"{info.max_member_weight}")
    if sum(weights) > MAX_GROUP_WEIGHT:
        raise resource_exhausted(f"{what}: total weight {sum(weights)} exceeds this "
                                 f"target's maximum of {MAX_GROUP_WEIGHT}")


def _group_size(info: ActionProfileInfo, weights: list[int]) -> int:
    return len(weights) if info.sum_of_members else sum(weights)


# -- members -----------------------------------------------------------------------------

def write_member(ctx: PipelineContext, kind: int,
                 m: p4runtime_pb2.ActionProfileMember) -> None:
    info, prof = _profile(ctx, m.action_profile_id)
    what = f"action profile '{info.name}'"
    if m.member_id == 0:
        raise invalid(f"{what}: member id 0 is not valid")
    if kind == Update.DELETE:
        if m.member_id not in prof.members:
            raise not_found(f"{what}: no member {m.member_id}")
        for gid, members in prof.groups.items():
            if any(mid == m.member_id for mid, _ in members):
                raise failed_precondition(f"{what}: member {m.member_id} is in group {gid};"
                                          " remove it from the group first")
        if _referenced(ctx, info, MemberRef(m.member_id)):
            raise failed_precondition(f"{what}: member {m.member_id} is referenced by a "
                                      "table entry")
        prof.delete_member(m.member_id)
        return
    if not m.HasField("action"):
        raise invalid(f"{what}: member {m.member_id} needs an action")
    check_scope(info, m.action.action_id, False, what)
    call = decode_action(ctx.index, m.action.action_id, params_of(m.action))
    if kind == Update.INSERT:
        if m.member_id in prof.members:
            raise already_exists(f"{what}: member {m.member_id} already exists")
        if len(prof.members) >= prof.size:
            raise resource_exhausted(f"{what} is full ({prof.size} members)")
        if _has_one_shots(ctx, info, prof):
            raise invalid(f"{what} is programmed with one-shot action sets; members and "
                          "groups cannot be mixed with them")
        prof.add_member(m.member_id, call)
    else:
        if m.member_id not in prof.members:
            raise not_found(f"{what}: no member {m.member_id}")
        prof.modify_member(m.member_id, call)


def read_members(ctx: PipelineContext, want: p4runtime_pb2.ActionProfileMember,
                 new: Callable[[], p4runtime_pb2.ActionProfileMember]) -> None:
    if want.action_profile_id == 0:
        if want.member_id:
            raise invalid("reading a member id needs its action_profile_id")
        infos = list(ctx.index.action_profiles.values())
    else:
        infos = [ctx.index.action_profile(want.action_profile_id)]
    for info in infos:
        prof = ctx.state.action_profiles[info.name]
        if want.member_id:
            call = prof.members.get(want.member_id)
            items = [] if call is None else [(want.member_id, call)]
        else:
            items = list(prof.members.items())
        for member_id, call in items:
            out = new()
            out.action_profile_id = info.id
            out.member_id = member_id
            encode_action(ctx.index, call, out.action)


# -- groups ------------------------------------------------------------------------------

def write_group(ctx: PipelineContext, kind: int,
                g: p4runtime_pb2.ActionProfileGroup) -> None:
    info, prof = _profile(ctx, g.action_profile_id)
    what = f"action selector '{info.name}'"
    if not info.with_selector:
        raise invalid(f"action profile '{info.name}' has no selector: it has no groups")
    if g.group_id == 0:
        raise invalid(f"{what}: group id 0 is not valid")
    key = (info.name, g.group_id)
    sizes = ctx.extras.group_max_size
    if kind == Update.DELETE:
        if g.group_id not in prof.groups:
            raise not_found(f"{what}: no group {g.group_id}")
        if _referenced(ctx, info, GroupRef(g.group_id)):
            raise failed_precondition(f"{what}: group {g.group_id} is referenced by a "
                                      "table entry")
        prof.delete_group(g.group_id)
        sizes.pop(key, None)
        return
    what = f"{what}: group {g.group_id}"
    if kind == Update.INSERT:
        if g.group_id in prof.groups:
            raise already_exists(f"{what} already exists")
        if _has_one_shots(ctx, info, prof):
            raise invalid(f"{what}: the selector is programmed with one-shot action sets;"
                          " members and groups cannot be mixed with them")
        if g.max_size < 0:
            raise invalid(f"{what}: max_size cannot be negative")
        if info.max_group_size and not 0 < g.max_size <= info.max_group_size:
            raise invalid(f"{what}: max_size must be in 1..{info.max_group_size} (the "
                          f"selector's max_group_size), got {g.max_size}")
    else:
        if g.group_id not in prof.groups:
            raise not_found(f"{what}: no such group")
        if g.max_size != sizes.get(key, 0):
            raise invalid(f"{what}: max_size cannot change (it is "
                          f"{sizes.get(key, 0)})")
    members: list[tuple[int, int]] = []
    seen: set[int] = set()
    for mem in g.members:
        if mem.member_id in seen:
            raise invalid(f"{what}: member {mem.member_id} is listed twice (use its "
                          "weight instead)")
        seen.add(mem.member_id)
        _check_watch(mem.watch, mem.watch_port, f"{what}: member {mem.member_id}")
        members.append((mem.member_id, mem.weight))
    _check_weights(info, [w for _, w in members], what)
    for member_id, _ in members:
        if member_id not in prof.members:
            raise not_found(f"{what}: no member {member_id} in the selector")
    size = _group_size(info, [w for _, w in members])
    if g.max_size and size > g.max_size:
        raise resource_exhausted(f"{what}: size {size} exceeds its max_size {g.max_size}")
    prof.set_group(g.group_id, members, create=kind == Update.INSERT)
    if kind == Update.INSERT:
        sizes[key] = g.max_size


def read_groups(ctx: PipelineContext, want: p4runtime_pb2.ActionProfileGroup,
                new: Callable[[], p4runtime_pb2.ActionProfileGroup]) -> None:
    if want.action_profile_id == 0:
        if want.group_id:
            raise invalid("reading a group id needs its action_profile_id")
        infos = [i for i in ctx.index.action_profiles.values() if i.with_selector]
    else:
        info = ctx.index.action_profile(want.action_profile_id)
        if not info.with_selector:
            raise invalid(f"action profile '{info.name}' has no selector: it has no "
                          "groups")
        infos = [info]
    for info in infos:
        prof = ctx.state.action_profiles[info.name]
        if want.group_id:
            found = prof.groups.get(want.group_id)
            items = [] if found is None else [(want.group_id, found)]
        else:
            items = list(prof.groups.items())
        for group_id, members in items:
            out = new()
            out.action_profile_id = info.id
            out.group_id = group_id
            out.max_size = ctx.extras.group_max_size.get((info.name, group_id), 0)
            for member_id, weight in members:
                out.members.add(member_id=member_id, weight=weight)


# -- table entries of indirect tables ----------------------------------------------------

def decode_indirect_action(ctx: PipelineContext, table: TableInfo,
                           ta: TableActionData) -> IndirectRef:
    """The reference a table entry of an indirect table holds."""
    info = table.profile
    assert info is not None
    prof = ctx.state.action_profiles[info.name]
    what = f"table '{table.name}'"
    which = ta.which
    if which == "action_profile_member_id":
        if ta.ref_id not in prof.members:
            raise not_found(f"{what}: no member {ta.ref_id} in '{info.name}'")
        return MemberRef(ta.ref_id)
    if which == "action_profile_group_id":
        if not info.with_selector:
            raise invalid(f"{what}: '{info.name}' is an action profile without selector; "
                          "entries refer to members")
        if ta.ref_id not in prof.groups:
            raise not_found(f"{what}: no group {ta.ref_id} in '{info.name}'")
        return GroupRef(ta.ref_id)
    if which == "action_profile_action_set":
        return _decode_one_shot(ctx, table, info, prof, ta.action_set)
    if which == "action":
        raise invalid(f"{what} is implemented by '{info.name}': its entries take a member "
                      "id, a group id or a one-shot action set, not an action")
    raise invalid(f"{what}: the entry's action is not set")


def _decode_one_shot(ctx: PipelineContext, table: TableInfo, info: ActionProfileInfo,
                     prof: ActionProfile, shots: list[OneShotAction]) -> OneShotRef:
    what = f"table '{table.name}': one-shot action set"
    if not info.with_selector:
        raise invalid(f"{what}: '{info.name}' is an action profile without selector")
    if not shots:
        raise invalid(f"{what} is empty")
    if prof.members or prof.groups:
        raise invalid(f"{what}: '{info.name}' is programmed with members and groups; "
                      "one-shot action sets cannot be mixed with them")
    weights = [s.weight for s in shots]
    _check_weights(info, weights, what)
    if info.max_group_size and _group_size(info, weights) > info.max_group_size:
        raise invalid(f"{what}: size {_group_size(info, weights)} exceeds the selector's "
                      f"max_group_size {info.max_group_size}")
    calls: list[tuple[ActionCall, int]] = []
    for shot in shots:
        _check_watch(shot.watch, shot.watch_port, what)
        if not shot.has_action:
            raise invalid(f"{what}: an ActionProfileAction has no action")
        check_scope(table, shot.action_id, False, f"table '{table.name}'")
        calls.append((decode_action(ctx.index, shot.action_id, shot.params), shot.weight))
    return OneShotRef(tuple(calls))


def encode_indirect_action(ctx: PipelineContext, ref: object,
                           out: p4runtime_pb2.TableAction) -> None:
    if isinstance(ref, MemberRef):
        out.action_profile_member_id = ref.member_id
    elif isinstance(ref, GroupRef):
        out.action_profile_group_id = ref.group_id
    elif isinstance(ref, OneShotRef):
        out.action_profile_action_set.SetInParent()
        for call, weight in ref.actions:
            shot = out.action_profile_action_set.action_profile_actions.add(weight=weight)
            encode_action(ctx.index, call, shot.action)
    else:
        raise P4RTError(code_pb2.INTERNAL, f"unknown indirect action {ref!r}")
