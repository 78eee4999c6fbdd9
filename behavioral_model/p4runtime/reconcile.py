"""RECONCILE_AND_COMMIT: carry the forwarding state of the old pipeline over to the new.

What is kept: the entries and default action of every table that exists in both
programs with the same name, key (field names, widths, match kinds), priority rule,
actions (names and parameter widths) and implementation; the members and groups of
action profiles/selectors with the same name, kind, size and actions (an entry that
refers to a member or group of a profile not kept is dropped); multicast groups and
clone sessions; the cells of counters, meters and registers with the same name and
size; value sets with the same name and match fields; the configuration of digests
with the same name. State of anything else is dropped (and said so in the log). Runs
with the target lock held, right after the new pipeline was swapped in, so no packet
sees the gap.
"""

from __future__ import annotations

import logging

from behavioral_model.runtime.action_profiles import GroupRef, MemberRef
from behavioral_model.runtime.digests import DigestConfig
from behavioral_model.runtime.errors import RuntimeStateError
from behavioral_model.runtime.externs import CounterCell, TrTcmMeter
from behavioral_model.runtime.tables import TableEntry

from .context import PipelineContext
from .p4info_index import ActionProfileInfo, P4InfoIndex, TableInfo

__all__ = ["reconcile"]

log = logging.getLogger("behavioral_model.p4runtime")


def _table_shape(index: P4InfoIndex, info: TableInfo) -> tuple[object, ...]:
    actions = []
    for action_id in sorted(info.scopes, key=lambda a: index.actions[a].name):
        action = index.actions[action_id]
        actions.append((action.name, tuple(p.bitwidth for p in action.params),
                        info.scopes[action_id]))
    fields = tuple((f.name, f.bitwidth, f.kind, f.position) for f in info.fields)
    profile = info.profile.name if info.profile is not None else None
    return fields, tuple(actions), info.needs_priority, profile


def _profile_shape(index: P4InfoIndex, info: ActionProfileInfo) -> tuple[object, ...]:
    actions = sorted((index.actions[a].name, tuple(p.bitwidth for p in
                                                   index.actions[a].params), scope)
                     for a, scope in info.scopes.items())
    return info.with_selector, info.size, tuple(actions)


def _copy_profiles(old: PipelineContext, new: PipelineContext) -> set[str]:
    """Copy the members and groups of the profiles both pipelines have in the same
    shape; returns the names of the profiles kept."""
    kept: set[str] = set()
    old_profiles = {p.name: p for p in old.index.action_profiles.values()}
    for info in new.index.action_profiles.values():
        before = old_profiles.get(info.name)
        if before is None or _profile_shape(old.index, before) != \
                _profile_shape(new.index, info):
            continue
        src = old.state.action_profiles[info.name]
        dst = new.state.action_profiles[info.name]
        dst.members.update(src.members)
        for gid, members in src.groups.items():
            dst.groups[gid] = list(members)
        kept.add(info.name)
    for key, size in old.extras.group_max_size.items():
        if key[0] in kept:
            new.extras.group_max_size[key] = size
    return kept


def reconcile(old: PipelineContext, new: PipelineContext) -> list[str]:
    """Copy what can be kept from ``old`` into ``new``; returns what was dropped."""
    dropped: list[str] = []
    profiles = _copy_profiles(old, new)
    dropped.extend(f"action profile {p.name}" for p in old.index.action_profiles.values()
                   if p.name not in profiles and (
                       old.state.action_profiles[p.name].members or
                       old.state.action_profiles[p.name].groups))
    old_tables = {t.name: t for t in old.index.tables.values()}
    for info in new.index.tables.values():
        before = old_tables.get(info.name)
        if before is None:
            continue
        if _table_shape(old.index, before) != _table_shape(new.index, info):
            if old.state.tables[info.name].entries():
                dropped.append(f"table {info.name} (changed)")
            continue
        _copy_table(old, new, info.name, info.profile is None or
                    info.profile.name in profiles)
    for name in old_tables.keys() - {t.name for t in new.index.tables.values()}:
        if old.state.tables[name].entries():
            dropped.append(f"table {name} (gone)")
    _copy_pre(old, new)
    _copy_externs(old, new)
    _copy_value_sets_and_digests(old, new)
    if dropped:
        log.info("RECONCILE_AND_COMMIT dropped the state of: %s", ", ".join(dropped))
    return dropped


def _copy_table(old: PipelineContext, new: PipelineContext, name: str,
                refs_kept: bool) -> None:
    src, dst = old.state.tables[name], new.state.tables[name]
    for entry in src.entries():
        if entry.is_const:
            continue
        if not refs_kept and isinstance(entry.action, (MemberRef, GroupRef)):
            log.warning("reconcile: table %s: entry dropped with its action profile", name)
            continue
        copy = TableEntry(entry.matches, entry.action, entry.priority,
                          idle_timeout_ns=entry.idle_timeout_ns,
                          last_hit_ns=entry.last_hit_ns,
                          direct_counter=CounterCell(entry.direct_counter.packets,
                                                     entry.direct_counter.bytes),
                          direct_meter=(TrTcmMeter(entry.direct_meter.config)
                                        if entry.direct_meter is not None else None))
        try:
            dst.insert(copy)
        except RuntimeStateError as err:
            log.warning("reconcile: table %s: entry not kept: %s", name, err)
            continue
        key = (name, copy.matches, copy.priority)
        if key in old.extras.entry_meta:
            new.extras.entry_meta[key] = old.extras.entry_meta[key]
    if src.default_action != dst.default_action and not dst.default_is_const:
        try:
            dst.set_default(src.default_action)
        except RuntimeStateError as err:
            log.warning("reconcile: table %s: default action not kept: %s", name, err)
    if name in old.extras.default_meta:
        new.extras.default_meta[name] = old.extras.default_meta[name]


def _copy_pre(old: PipelineContext, new: PipelineContext) -> None:
    for gid, replicas in old.state.pre.groups().items():
        new.state.pre.create_group(gid, replicas)
    for sid, session in old.state.pre.clone_sessions().items():
        new.state.pre.create_clone_session(sid, session)
    new.extras.mc_meta.update(old.extras.mc_meta)
    new.extras.clone_ports.update(old.extras.clone_ports)


def _copy_externs(old: PipelineContext, new: PipelineContext) -> None:
    for name, counter in new.state.counters.items():
        prev = old.state.counters.get(name)
        if prev is not None and prev.size == counter.size:
            for i in range(counter.size):
                counter.write(i, *prev.read(i))
    for name, register in new.state.registers.items():
        rprev = old.state.registers.get(name)
        if rprev is not None and rprev.size == register.size and \
                rprev.width == register.width:
            for i in range(register.size):
                register.write(i, rprev.read(i))
    for name, meter in new.state.meters.items():
        mprev = old.state.meters.get(name)
        if mprev is not None and mprev.size == meter.size:
            for i in range(meter.size):
                config = mprev.get_config(i)
                if config is not None:
                    meter.set_config(i, config)


def _copy_value_sets_and_digests(old: PipelineContext, new: PipelineContext) -> None:
    old_vs = {v.name: v for v in old.index.value_sets.values()}
    for info in new.index.value_sets.values():
        prev = old_vs.get(info.name)
        if prev is None or [(f.name, f.bitwidth, f.kind) for f in prev.fields] != \
                [(f.name, f.bitwidth, f.kind) for f in info.fields]:
            continue
        new.state.value_sets[info.name][:] = old.state.value_sets[info.name]
        if info.name in old.extras.vs_members:
            new.extras.vs_members[info.name] = old.extras.vs_members[info.name]
    new_digests = {d.name: d for d in new.index.digests.values()}
    for digest_id, config in old.extras.digest_configs.items():
        dinfo = new_digests.get(old.index.digests[digest_id].name)
        if dinfo is not None:
            new.extras.digest_configs[dinfo.id] = config
            new.state.digests.configure(dinfo.name, DigestConfig(
                config.max_list_size, config.max_timeout_ns, config.ack_timeout_ns))
