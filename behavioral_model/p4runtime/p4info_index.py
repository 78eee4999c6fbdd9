"""The P4Info of the running pipeline, indexed by id and bound to the device state.

P4Runtime messages name objects by P4Info id; the runtime state names them by their
full P4 name (``RouterIngress.ipv6_lpm``), which is also their P4Info name. Building a
:class:`P4InfoIndex` checks that every table, action, extern and value set of the
P4Info exists in the state with the same shape (match fields, widths, sizes), so a
P4Info from p4c can drive our target as long as it describes the same program;
otherwise :class:`P4InfoMismatch` says what differs.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

from p4.config.v1 import p4info_pb2

from behavioral_model.runtime.matches import MatchKind
from behavioral_model.runtime.state import DeviceState
from behavioral_model.runtime.tables import ActionCall

from .codec import decode_uint
from .errors import P4RTError, invalid, not_found
from .packet_io import ControllerHeader, controller_header

__all__ = [
    "P4InfoMismatch", "P4InfoIndex", "MatchFieldInfo", "ActionInfo", "TableInfo",
    "ExternInfo", "DirectInfo", "DigestInfo", "ValueSetInfo", "ActionProfileInfo",
    "MATCH_KINDS",
]

log = logging.getLogger("behavioral_model.p4runtime")
MF = p4info_pb2.MatchField
MATCH_KINDS: dict[int, MatchKind] = {
    MF.EXACT: MatchKind.EXACT, MF.LPM: MatchKind.LPM, MF.TERNARY: MatchKind.TERNARY,
    MF.RANGE: MatchKind.RANGE, MF.OPTIONAL: MatchKind.OPTIONAL,
}


class P4InfoMismatch(ValueError):
    """The P4Info does not describe the program (or uses something we cannot run)."""


@dataclass(frozen=True)
class MatchFieldInfo:
    id: int
    name: str
    bitwidth: int
    kind: MatchKind
    position: int  # index in the runtime key (tables) or in the packed value (value sets)


@dataclass(frozen=True)
class ParamInfo:
    id: int
    name: str
    bitwidth: int


@dataclass
class ActionInfo:
    id: int
    name: str
    params: list[ParamInfo]
    params_by_id: dict[int, ParamInfo] = field(default_factory=dict)


@dataclass
class ActionProfileInfo:
    """An action profile or selector: its P4Info shape and the actions its members may
    run (those of its tables, minus ``@defaultonly`` ones; ``scopes`` holds the scope
    of every action of its tables, as for a table)."""

    id: int
    name: str
    table_ids: tuple[int, ...]
    with_selector: bool
    size: int
    max_group_size: int
    sum_of_members: bool  # selector_size_semantics; default (unset) is sum_of_weights
    max_member_weight: int
    scopes: dict[int, int] = field(default_factory=dict)


@dataclass
class TableInfo:
    id: int
    name: str
    fields: list[MatchFieldInfo]
    fields_by_id: dict[int, MatchFieldInfo]
    scopes: dict[int, int]  # action id -> ActionRef scope
    const_default_id: int
    is_const: bool
    needs_priority: bool
    implementation_id: int
    supports_timeout: bool
    initial_default: ActionCall
    direct_counter_id: int = 0
    direct_meter_id: int = 0
    profile: ActionProfileInfo | None = None  # the implementation, if any


@dataclass(frozen=True)
class ExternInfo:
    """An indexed counter, meter or register."""

    id: int
    name: str
    size: int
    width: int = 0  # registers: value bitwidth
    #: registers: how values travel as P4Data: "bit", "int", "bool", "enum"
    #: (serializable enum) or the unsupported type_spec kind
    data_kind: str = "bit"


@dataclass(frozen=True)
class DirectInfo:
    id: int
    name: str
    table_id: int


@dataclass
class DigestInfo:
    id: int
    name: str
    type_spec: object


@dataclass
class ValueSetInfo:
    id: int
    name: str
    size: int
    fields: list[MatchFieldInfo]
    fields_by_id: dict[int, MatchFieldInfo]

    @property
    def width(self) -> int:
        return sum(f.bitwidth for f in self.fields)


class P4InfoIndex:
    """Lookups by id, raising P4RTError (NOT_FOUND / INVALID_ARGUMENT) for bad ids."""

    def __init__(self, p4info: p4info_pb2.P4Info, state: DeviceState) -> None:
        self.p4info = p4info
        self.actions: dict[int, ActionInfo] = {}
        self.action_ids: dict[str, int] = {}
        self.tables: dict[int, TableInfo] = {}
        self.counters: dict[int, ExternInfo] = {}
        self.meters: dict[int, ExternInfo] = {}
        self.registers: dict[int, ExternInfo] = {}
        self.direct_counters: dict[int, DirectInfo] = {}
        self.direct_meters: dict[int, DirectInfo] = {}
        self.digests: dict[int, DigestInfo] = {}
        self.digest_by_runtime_name: dict[str, DigestInfo] = {}
        self.value_sets: dict[int, ValueSetInfo] = {}
        self.action_profiles: dict[int, ActionProfileInfo] = {}
        self.packet_in: ControllerHeader | None = controller_header(p4info, "packet_in")
        self.packet_out: ControllerHeader | None = controller_header(p4info, "packet_out")
        problems: list[str] = []
        self._index_actions()
        for t in p4info.tables:
            self._index_table(t, state, problems)
        self._index_externs(state, problems)
        self._index_profiles(state, problems)
        self._index_value_sets(state, problems)
        for d in p4info.digests:
            info = DigestInfo(d.preamble.id, d.preamble.name, d.type_spec)
            self.digests[info.id] = info
            self.digest_by_runtime_name[info.name] = info
            which = d.type_spec.WhichOneof("type_spec")
            if which in ("struct", "header"):
                type_name = getattr(d.type_spec, which).name
                self.digest_by_runtime_name.setdefault(type_name, info)
        if problems:
            raise P4InfoMismatch("the P4Info does not match the P4 program: "
                                 + "; ".join(problems[:8])
                                 + (f" (and {len(problems) - 8} more)"
                                    if len(problems) > 8 else ""))

    # -- building -----------------------------------------------------------------------
    def _index_actions(self) -> None:
        for a in self.p4info.actions:
            params = [ParamInfo(p.id, p.name, p.bitwidth) for p in a.params]
            info = ActionInfo(a.preamble.id, a.preamble.name, params,
                              {p.id: p for p in params})
            self.actions[info.id] = info
            self.action_ids[info.name] = info.id

    def _index_table(self, t: p4info_pb2.Table, state: DeviceState,
                     problems: list[str]) -> None:
        name = t.preamble.name
        table = state.tables.get(name)
        if table is None:
            problems.append(f"no table '{name}' in the program")
            return
        key_names = [k.name for k in table.keys]
        fields: list[MatchFieldInfo] = []
        for mf in t.match_fields:
            kind = MATCH_KINDS.get(mf.match_type)
            if kind is None:
                problems.append(f"table '{name}': match field '{mf.name}' has an "
                                "unsupported match type")
                continue
            if mf.name not in key_names:
                problems.append(f"table '{name}': no key field '{mf.name}'")
                continue
            pos = key_names.index(mf.name)
            key = table.keys[pos]
            if key.width != mf.bitwidth or key.match_kind is not kind:
                problems.append(f"table '{name}': key field '{mf.name}' is "
                                f"{key.match_kind.value} bit<{key.width}> in the program, "
                                f"{kind.value} bit<{mf.bitwidth}> in the P4Info")
                continue
            fields.append(MatchFieldInfo(mf.id, mf.name, mf.bitwidth, kind, pos))
        if len(fields) != len(t.match_fields):
            return
        if len(fields) != len(table.keys):
            problems.append(f"table '{name}': the program's key has {len(table.keys)} "
                            f"fields, the P4Info {len(fields)}")
            return
        scopes: dict[int, int] = {}
        for ref in t.action_refs:
            action = self.actions.get(ref.id)
            if action is None:
                problems.append(f"table '{name}': unknown action id {ref.id}")
            elif action.name not in table.action_names:
                problems.append(f"table '{name}': action '{action.name}' is not one of "
                                "its actions in the program")
            else:
                scopes[ref.id] = ref.scope
        initial = table.default_action
        ida = t.initial_default_action
        if ida.action_id in self.actions:
            action = self.actions[ida.action_id]
            try:
                args = {a.param_id: a.value for a in ida.arguments}
                initial = ActionCall(action.name, tuple(
                    decode_uint(args[p.id], p.bitwidth, p.name) if p.id in args else 0
                    for p in action.params))
            except P4RTError:
                pass
        info = TableInfo(
            id=t.preamble.id, name=name, fields=fields,
            fields_by_id={f.id: f for f in fields}, scopes=scopes,
            const_default_id=t.const_default_action_id, is_const=t.is_const_table,
            needs_priority=table.needs_priority, implementation_id=t.implementation_id,
            supports_timeout=t.idle_timeout_behavior == p4info_pb2.Table.NOTIFY_CONTROL,
            initial_default=initial)
        self.tables[info.id] = info

    def _index_externs(self, state: DeviceState, problems: list[str]) -> None:
        for c in self.p4info.counters:
            arr = state.counters.get(c.preamble.name)
            if arr is None or arr.size != c.size:
                problems.append(f"counter '{c.preamble.name}' missing or of another size")
                continue
            self.counters[c.preamble.id] = ExternInfo(c.preamble.id, c.preamble.name, c.size)
        for m in self.p4info.meters:
            marr = state.meters.get(m.preamble.name)
            if marr is None or marr.size != m.size:
                problems.append(f"meter '{m.preamble.name}' missing or of another size")
                continue
            self.meters[m.preamble.id] = ExternInfo(m.preamble.id, m.preamble.name, m.size)
        for r in self.p4info.registers:
            rarr = state.registers.get(r.preamble.name)
            if rarr is None or rarr.size != r.size:
                problems.append(f"register '{r.preamble.name}' missing or of another size")
                continue
            spec = r.type_spec
            kind = spec.WhichOneof("type_spec") or "none"
            if kind == "bitstring":
                kind = "int" if spec.bitstring.WhichOneof("type_spec") == "int" else "bit"
            elif kind == "serializable_enum":
                kind = "enum"
            self.registers[r.preamble.id] = ExternInfo(
                r.preamble.id, r.preamble.name, r.size, rarr.width, kind)
        tables_by_name = {t.name: t for t in self.tables.values()}
        for dc in self.p4info.direct_counters:
            self._bind_direct(dc, state.direct_counters, tables_by_name, "counter", problems)
        for dm in self.p4info.direct_meters:
            self._bind_direct(dm, state.direct_meters, tables_by_name, "meter", problems)

    def _bind_direct(self, msg: p4info_pb2.DirectCounter | p4info_pb2.DirectMeter,
                     resources: dict, tables_by_name: dict[str, TableInfo], kind: str,
                     problems: list[str]) -> None:
        name = msg.preamble.name
        res = resources.get(name)
        table = self.tables.get(msg.direct_table_id)
        if table is None:
            problems.append(f"direct {kind} '{name}': no table with id "
                            f"{msg.direct_table_id}")
            return
        if res is None or res.table != table.name:
            # e.g. a direct counter built in place in the table property: the data plane
            # does not maintain it, but its per-entry cells can still be written and read.
            log.warning("direct %s '%s' of table '%s' is not maintained by the data plane",
                        kind, name, table.name)
        info = DirectInfo(msg.preamble.id, name, table.id)
        if kind == "counter":
            self.direct_counters[info.id] = info
            table.direct_counter_id = info.id
        else:
            self.direct_meters[info.id] = info
            table.direct_meter_id = info.id

    def _index_profiles(self, state: DeviceState, problems: list[str]) -> None:
        for p in self.p4info.action_profiles:
            name = p.preamble.name
            prof = state.action_profiles.get(name)
            if prof is None:
                problems.append(f"no action profile/selector '{name}' in the program")
                continue
            if prof.with_selector != p.with_selector or prof.size != p.size:
                problems.append(f"action profile '{name}': size {prof.size}"
                                f"{', selector' if prof.with_selector else ''} in the "
                                f"program, size {p.size}"
                                f"{', selector' if p.with_selector else ''} in the P4Info")
                continue
            info = ActionProfileInfo(
                p.preamble.id, name, tuple(p.table_ids), p.with_selector, p.size,
                p.max_group_size, p.WhichOneof("selector_size_semantics") == "sum_of_members",
                p.sum_of_members.max_member_weight)
            scopes: dict[int, int] | None = None
            for table_id in info.table_ids:
                table = self.tables.get(table_id)
                if table is None or state.tables[table.name].implementation != name:
                    problems.append(f"action profile '{name}': table id {table_id} is not "
                                    "one of its tables in the program")
                    continue
                table.profile = info
                scopes = dict(table.scopes) if scopes is None else {
                    a: s for a, s in scopes.items() if table.scopes.get(a) == s}
            info.scopes = scopes or {}
            self.action_profiles[info.id] = info
        for table in self.tables.values():
            implementation = state.tables[table.name].implementation
            if table.implementation_id and table.profile is None:
                problems.append(f"table '{table.name}': implementation id "
                                f"{table.implementation_id} is no action profile of it")
            elif implementation is not None and not table.implementation_id:
                problems.append(f"table '{table.name}' is implemented by '{implementation}'"
                                " in the program, but has no implementation in the P4Info")

    def _index_value_sets(self, state: DeviceState, problems: list[str]) -> None:
        for vs in self.p4info.value_sets:
            name = vs.preamble.name
            if name not in state.value_sets:
                problems.append(f"no value set '{name}' in the program")
                continue
            fields = []
            for pos, m in enumerate(vs.match):
                kind = MATCH_KINDS.get(m.match_type)
                if kind is None:
                    problems.append(f"value set '{name}': unsupported match type")
                    break
                fields.append(MatchFieldInfo(m.id, m.name, m.bitwidth, kind, pos))
            else:
                self.value_sets[vs.preamble.id] = ValueSetInfo(
                    vs.preamble.id, name, vs.size, fields, {f.id: f for f in fields})

    # -- lookups ------------------------------------------------------------------------
    def table(self, table_id: int) -> TableInfo:
        info = self.tables.get(table_id)
        if info is None:
            raise _bad_id("table", table_id)
        return info

    def action(self, action_id: int) -> ActionInfo:
        info = self.actions.get(action_id)
        if info is None:
            raise _bad_id("action", action_id)
        return info

    def counter(self, counter_id: int) -> ExternInfo:
        return _lookup(self.counters, counter_id, "counter")

    def meter(self, meter_id: int) -> ExternInfo:
        return _lookup(self.meters, meter_id, "meter")

    def register(self, register_id: int) -> ExternInfo:
        return _lookup(self.registers, register_id, "register")

    def digest(self, digest_id: int) -> DigestInfo:
        return _lookup(self.digests, digest_id, "digest")

    def value_set(self, value_set_id: int) -> ValueSetInfo:
        return _lookup(self.value_sets, value_set_id, "value set")

    def action_profile(self, profile_id: int) -> ActionProfileInfo:
        return _lookup(self.action_profiles, profile_id, "action profile")

    def direct_counter_table(self, table_id: int) -> TableInfo:
        table = self.table(table_id)
        if not table.direct_counter_id:
            raise invalid(f"table '{table.name}' has no direct counter")
        return table

    def direct_meter_table(self, table_id: int) -> TableInfo:
        table = self.table(table_id)
        if not table.direct_meter_id:
            raise invalid(f"table '{table.name}' has no direct meter")
        return table


def _bad_id(what: str, object_id: int) -> P4RTError:
    if object_id == 0:
        return invalid(f"{what} id 0 is not valid here")
    return not_found(f"no {what} with id {object_id} (0x{object_id:08x}) in the P4Info")


def _lookup(objects: dict, object_id: int, what: str):  # type: ignore[no-untyped-def]
    info = objects.get(object_id)
    if info is None:
        raise _bad_id(what, object_id)
    return info
