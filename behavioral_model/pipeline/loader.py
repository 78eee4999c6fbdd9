"""Device state for a program: its tables (with const entries and default actions),
registers, counters and meters, named as p4c names them in P4Info."""

from __future__ import annotations

from typing import Any

from ..frontend import ast
from ..frontend.checker import CheckedProgram
from ..frontend.consteval import NotConstant, evaluate
from ..frontend.errors import P4TypeError
from ..frontend.naming import (
    BlockInstance,
    key_field_name,
    qualify,
    table_property_instance,
)
from ..frontend.types import BitT, EnumT, ErrorT, ExternT, Type, width_of
from ..runtime.action_profiles import ActionProfile
from ..runtime.externs import CounterArray, CounterKind, MeterArray, MeterKind, RegisterArray
from ..runtime.matches import Exact, KeyField, Lpm, MatchKind, Optional_, Range, Ternary
from ..runtime.state import DeviceState, DirectResource
from ..runtime.tables import ActionCall, Table, TableEntry
from .exprgen import strip

DEFAULT_TABLE_SIZE = 1024  # p4c's default when a table has no `size`
ANNOTATED_PRIORITY_BASE = 1 << 24


def key_width(t: Type) -> int:
    """Width of a table key or register cell; error and plain enums count as 32 bits."""
    width = width_of(t)
    if width is not None:
        return width
    if isinstance(strip(t), ErrorT | EnumT):
        return 32
    raise P4TypeError(f"cannot match on a value of type {t}", None)


class StateBuilder:
    def __init__(self, checked: CheckedProgram, instances: list[BlockInstance]) -> None:
        self.checked = checked
        self.instances = instances
        self.state = DeviceState()
        self.top = {id(d) for d in checked.program.decls}

    def build(self) -> DeviceState:
        for decl in self.checked.program.decls:
            if isinstance(decl, ast.InstantiationDecl):
                self._extern(decl, "")
        for inst in self.instances:
            self._block(inst)
        return self.state

    def _block(self, inst: BlockInstance) -> None:
        for local in getattr(inst.decl, "locals", []):
            if isinstance(local, ast.InstantiationDecl):
                self._extern(local, inst.path)
            elif isinstance(local, ast.ValueSetDecl):
                self.state.value_sets[qualify(inst.path, local)] = []
        for local in getattr(inst.decl, "locals", []):
            if isinstance(local, ast.TableDecl):
                self._table(local, inst)
        for child in inst.children:
            self._block(child)

    def action_name(self, decl: ast.ActionDecl, inst: BlockInstance) -> str:
        return qualify("" if id(decl) in self.top else inst.path, decl)

    def _extern(self, decl: ast.InstantiationDecl, prefix: str) -> None:
        t = decl.type_ref.resolved
        if not isinstance(t, ExternT):
            return
        self._extern_object(qualify(prefix, decl), t, decl.args)

    def _extern_object(self, name: str, t: ExternT, arguments: list[ast.Argument]) -> None:
        if t.name not in _STATEFUL_EXTERNS:
            # Nothing to build here (a call of an extern bm lacks is refused where it is
            # made); its arguments may be values this loader does not read, e.g. list<T>.
            return
        args = [_const(a.value) for a in arguments]
        if t.name in ("register", "Register"):  # v1model, PNA
            width = key_width(t.type_args[0]) if t.type_args else 32
            self.state.registers[name] = RegisterArray(name, int(args[0]), width)
        elif t.name in ("counter", "Counter"):
            self.state.counters[name] = CounterArray(name, int(args[0]), _counter_kind(args[1]))
        elif t.name in ("meter", "Meter"):
            self.state.meters[name] = MeterArray(name, int(args[0]), _meter_kind(args[1]))
        elif t.name in ("action_profile", "ActionProfile"):
            self.state.action_profiles[name] = ActionProfile(name, int(args[0]))
        elif t.name in ("action_selector", "ActionSelector"):
            algo = args[0][2] if isinstance(args[0], tuple) else str(args[0])
            # PNA's only algorithm is the target's default: bm's is crc32.
            algo = "crc32" if algo == "TARGET_DEFAULT" else algo
            self.state.action_profiles[name] = ActionProfile(
                name, int(args[1]), with_selector=True, algorithm=algo,
                output_width=int(args[2]))

    def _table(self, decl: ast.TableDecl, inst: BlockInstance) -> None:
        name = qualify(inst.path, decl)
        keys = [KeyField(key_field_name(k), MatchKind(k.match_kind), key_width(k.expr.type))
                for k in decl.keys if k.match_kind != "selector"]
        actions = [self.action_name(r.decl, inst) for r in decl.actions]
        default_only = [self.action_name(r.decl, inst) for r in decl.actions
                        if r.annotation("defaultonly")]
        table_only = [self.action_name(r.decl, inst) for r in decl.actions
                      if r.annotation("tableonly")]
        if decl.default_action is not None:
            ref = decl.default_action
            # Directional arguments are bound in the program (spec 14.2.1.3); only the
            # control-plane arguments are data of the default action.
            data_args = ref.args[len(_directional(ref.decl)):]
            default = ActionCall(self.action_name(ref.decl, inst),
                                 tuple(_param_value(a.value) for a in data_args))
        else:
            noaction = next((r for r in decl.actions if r.decl.name == "NoAction"), None)
            default_name = (self.action_name(noaction.decl, inst) if noaction
                            else "NoAction")
            if default_name not in actions:
                actions.append(default_name)
                default_only.append(default_name)
            default = ActionCall(default_name, ())
        size_prop = decl.property("size")
        size = int(_const(_bound(size_prop.value, inst))) if size_prop else DEFAULT_TABLE_SIZE
        table = Table(name, keys, actions, default, default_is_const=decl.default_action_const,
                      size=max(size, len(decl.entries)), const_entries=decl.entries_const,
                      default_only_actions=default_only, table_only_actions=table_only)
        impl = decl.property("implementation")
        found = table_property_instance(impl, inst.path, self.top) if impl else None
        if found is not None:
            table.implementation = found[0]
            if isinstance(impl.value, ast.ConstructorCallExpr):
                self._extern_object(found[0], found[1], found[2])
        entries = [self._entry(e, keys, inst) for e in decl.entries]
        if table.needs_priority:
            # Unannotated const entries rank by position, the first listed winning, as
            # p4c numbers them for BMv2 (1, 2, ... with the smallest winning).
            for i, entry in enumerate(entries):
                if entry.priority == 0:
                    entry.priority = ANNOTATED_PRIORITY_BASE - (i + 1)
        if entries:
            # `entries = {...}` without const is initial content the control plane may
            # change (P4Runtime: modifiable); `const entries` may not be changed.
            table.load_const_entries(entries, const=decl.entries_const)
        self.state.tables[name] = table
        for prop, store, kind_of in (("counters", self.state.direct_counters, _counter_kind),
                                     ("meters", self.state.direct_meters, _meter_kind)):
            p = decl.property(prop)
            found = table_property_instance(p, inst.path, self.top) if p else None
            if found is not None and found[2]:
                rname = found[0]
                kind = kind_of(_const(found[2][0].value))
                store[rname] = DirectResource(rname, name, str(kind))

    def _entry(self, e: ast.EntryDecl, keys: list[KeyField], inst: BlockInstance) -> TableEntry:
        elems = (e.keyset.elems if isinstance(e.keyset, ast.ListExpr) and len(keys) != 1
                 or (isinstance(e.keyset, ast.ListExpr) and len(e.keyset.elems) == 1)
                 else [e.keyset])
        matches = tuple(_match(x, k) for x, k in zip(elems, keys, strict=True))
        ref = e.action
        args = tuple(_param_value(a.value) for a in ref.args[len(_directional(ref.decl)):])
        priority = int(_const(e.priority)) if e.priority is not None else 0
        ann = e.annotation("priority")
        if ann is not None and ann.args:
            # p4c hands `@priority(N)` to BMv2 as is, where the smallest number wins;
            # our tables let the largest win (P4Runtime), so the order is mirrored.
            priority = ANNOTATED_PRIORITY_BASE - int(_const(ann.args[0]))
        return TableEntry(matches, ActionCall(self.action_name(ref.decl, inst), args), priority)


def _directional(decl: ast.ActionDecl) -> list[ast.Parameter]:
    return [p for p in decl.params if p.direction]


def _bound(e: ast.Expression, inst: BlockInstance) -> ast.Expression:
    """`e`, or the argument its instance gives when `e` names a constructor parameter of
    the block (`control C()(int size)` instantiated as `C(1024)`)."""
    params = getattr(inst.decl, "constructor_params", [])
    if not (isinstance(e, ast.PathExpr) and any(p is e.decl for p in params)):
        return e
    args = getattr(inst.inst, "args", [])
    index = next(i for i, p in enumerate(params) if p is e.decl)
    named = {a.name: a.value for a in args if a.name}
    if e.decl.name in named:
        return named[e.decl.name]
    if index < len(args) and args[index].name is None:
        return args[index].value
    default = e.decl.default
    if default is None:
        raise P4TypeError(f"not supported by bm's target: {e.name}, a constructor parameter "
                          "given no argument bm can see", e.loc)
    return default


#: The externs whose state the loader builds from their constructor arguments.
_STATEFUL_EXTERNS = frozenset({"register", "Register", "counter", "Counter", "meter", "Meter",
                               "action_profile", "ActionProfile", "action_selector",
                               "ActionSelector"})


def _const(e: ast.Expression) -> Any:
    try:
        return evaluate(e)
    except NotConstant:
        raise P4TypeError("expected a compile-time constant", e.loc) from None


def _param_value(e: ast.Expression) -> int:
    v = _const(e)
    if isinstance(v, bool):
        return int(v)
    if isinstance(v, int):
        t = strip(e.type)
        if isinstance(t, BitT) and v < 0:
            v &= (1 << t.width) - 1
        return v
    raise P4TypeError("action data must be an integer constant", e.loc)


def _match(e: ast.Expression, key: KeyField) -> Any:
    width_mask = (1 << key.width) - 1
    if isinstance(e, ast.DontCareExpr | ast.DefaultExpr):
        return None
    if isinstance(e, ast.MaskExpr):
        value, m = _param_value(e.value) & width_mask, _param_value(e.mask) & width_mask
        if key.match_kind is MatchKind.LPM:
            plen = bin(m).count("1")
            return Lpm(value & m, plen)
        return Ternary(value & m, m)
    if isinstance(e, ast.RangeExpr):
        return Range(_param_value(e.low), _param_value(e.high))
    value = _param_value(e) & width_mask
    kind = key.match_kind
    if kind is MatchKind.EXACT:
        return Exact(value)
    if kind is MatchKind.LPM:
        return Lpm(value, key.width)
    if kind is MatchKind.TERNARY:
        return Ternary(value, width_mask)
    if kind is MatchKind.RANGE:
        return Range(value, value)
    return Optional_(value)


def _counter_kind(v: Any) -> CounterKind:
    # v1model's CounterType.packets, PNA's PNA_CounterType_t.PACKETS
    name = v[2] if isinstance(v, tuple) else str(v)
    return CounterKind(name.lower())


def _meter_kind(v: Any) -> MeterKind:
    # v1model's MeterType.packets, PNA's PNA_MeterType_t.PACKETS
    name = v[2] if isinstance(v, tuple) else str(v)
    return MeterKind(name.lower())


def build_state(checked: CheckedProgram, instances: list[BlockInstance]) -> DeviceState:
    return StateBuilder(checked, instances).build()
