"""P4Info of a checked v1model program, as p4c's `--p4runtime-files x.p4info.txtpb` writes it.

    info = generate_p4info(program.checked)
    write_p4info(info, "router.p4info.txtpb")     # .txtpb/.txt text, .bin/.pb binary, .json

A controller that looks objects up by name works unchanged against this P4Info and p4c's
for the same program: names, aliases, ids, member ids and the order of entities follow p4c.

How p4c sees the program when it writes P4Info (after its front end) and what we mirror:

* Nested parser/control instances are inlined into the package's blocks, their objects
  named after the instance path (`MyIngress.sub.t`); instances never applied vanish.
* Tables never applied are removed, and so are actions nothing refers to. Extern
  instances stay even when unused. A table without `default_action` gets
  `default_action = NoAction()` and, unless listed, `@defaultonly NoAction`.
* Top-level actions used by a control are copied into it, ahead of its own actions,
  keeping their bare names. A top-level action only called from another action's body is
  inlined there, so it is not part of the control.
* Entities are emitted in p4c's traversal order (top-level extern instances, then the
  package's blocks in order: their actions and digests, then their tables and extern
  instances in declaration order); p4c does not sort them.

Ids and aliases: see `p4info_ids`. Type specs and annotations: see `p4info_types`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from google.protobuf import json_format, text_format
from p4.config.v1 import p4info_pb2

from . import ast
from .checker import CheckedProgram
from .consteval import NotConstant, evaluate
from .naming import BlockInstance, block_instances, key_field_name, qualify
from .p4info_ids import (
    ACTION,
    ACTION_PROFILE,
    CONTROLLER_HEADER,
    COUNTER,
    DIGEST,
    DIRECT_COUNTER,
    DIRECT_METER,
    METER,
    REGISTER,
    TABLE,
    VALUE_SET,
    P4InfoError,
    SymbolTable,
    member_ids,
)
from .p4info_types import (
    TypeSpecs,
    add_annotations,
    add_doc,
    encode,
    int_annotation,
    new_type_name,
    set_preamble,
    string_annotation,
    type_display_name,
    type_width,
)
from .types import BitT, BoolT, EnumT, ExternT, HeaderT, NewT, StructT, Type, strip_newtype

__all__ = ["P4InfoError", "generate_p4info", "p4info_text", "write_p4info", "TEXT_HEADER"]

TEXT_HEADER = "# proto-file: p4/config/v1/p4info.proto\n# proto-message: p4.config.v1.P4Info\n\n"
DEFAULT_TABLE_SIZE = 1024  # v1model's default table size in p4c
ARCH = "v1model"

_MATCH_TYPES = {
    "exact": p4info_pb2.MatchField.EXACT,
    "lpm": p4info_pb2.MatchField.LPM,
    "ternary": p4info_pb2.MatchField.TERNARY,
    "range": p4info_pb2.MatchField.RANGE,
    "optional": p4info_pb2.MatchField.OPTIONAL,
}
_COUNTER_UNITS = {
    "packets": p4info_pb2.CounterSpec.PACKETS,
    "bytes": p4info_pb2.CounterSpec.BYTES,
    "packets_and_bytes": p4info_pb2.CounterSpec.BOTH,
}
_METER_UNITS = {
    "packets": p4info_pb2.MeterSpec.PACKETS,
    "bytes": p4info_pb2.MeterSpec.BYTES,
}
_PROFILE_ANNOTATIONS = ("max_group_size", "selector_size_semantics", "max_member_weight")
_EXTERN_KINDS = {
    "counter": COUNTER, "direct_counter": DIRECT_COUNTER, "meter": METER,
    "direct_meter": DIRECT_METER, "register": REGISTER, "action_profile": ACTION_PROFILE,
    "action_selector": ACTION_PROFILE,
}


# ---------------------------------------------------------------------------------------
# Public API


def generate_p4info(checked: CheckedProgram) -> p4info_pb2.P4Info:
    """The P4Info message of a checked v1model program; raises P4InfoError (a P4Error,
    with the source location) for constructs P4Runtime cannot describe."""
    return _Generator(checked).run()


def p4info_text(p4info: p4info_pb2.P4Info) -> str:
    """Protobuf text format with p4c's two-line header."""
    return TEXT_HEADER + text_format.MessageToString(p4info)


def write_p4info(p4info: p4info_pb2.P4Info, path: str | Path) -> None:
    """Write by suffix: `.txtpb`/`.txt` text, `.bin`/`.pb` binary, `.json` JSON."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix in (".txtpb", ".txt"):
        path.write_text(p4info_text(p4info))
    elif suffix in (".bin", ".pb"):
        path.write_bytes(p4info.SerializeToString())
    elif suffix == ".json":
        path.write_text(json_format.MessageToJson(p4info) + "\n")
    else:
        raise ValueError(f"{path}: unknown P4Info format; use .txtpb, .txt, .bin, .pb or .json")


# ---------------------------------------------------------------------------------------
# The program as p4c's P4Info generator sees it


@dataclass
class _Item:
    """A table, action, extern instance or value set of a block, with its owner instance."""

    decl: Any
    inst: BlockInstance | None  # None for top-level declarations
    name: str


@dataclass
class _Block:
    """One parser/control of the package with its nested instances inlined."""

    inst: BlockInstance
    locals: list[tuple[Any, BlockInstance]] = field(default_factory=list)
    actions: list[_Item] = field(default_factory=list)
    tables: list[_Item] = field(default_factory=list)
    value_sets: list[_Item] = field(default_factory=list)
    extern_calls: list[ast.MethodCallExpr] = field(default_factory=list)

    @property
    def is_control(self) -> bool:
        return isinstance(self.inst.decl, ast.ControlDecl)


_SKIP_FIELDS = frozenset({"loc", "type", "decl", "resolved", "target"})


def _nodes(node: Any) -> Iterator[ast.Node]:
    """`node` and everything below it, in source order (not following resolved links)."""
    if isinstance(node, ast.Node):
        yield node
        for f in dataclasses.fields(node):
            if f.name not in _SKIP_FIELDS:
                yield from _nodes(getattr(node, f.name))
    elif isinstance(node, list | tuple):
        for x in node:
            yield from _nodes(x)


def _child_of(inst: BlockInstance, call: ast.MethodCallExpr) -> BlockInstance | None:
    """The nested instance `call` applies, if it is `sub.apply(...)` of a child of `inst`."""
    target = call.target
    if target is None or target.kind != "apply":
        return None
    receiver = target.receiver
    decl = getattr(receiver, "decl", None)
    for child in inst.children:
        if child.inst is decl:
            return child
    return None


def _block_nodes(inst: BlockInstance) -> Iterator[tuple[ast.Node, BlockInstance]]:
    """Nodes of a block's body (parser states or control apply), nested applies inlined."""
    decl = inst.decl
    roots: list[Any] = decl.states if isinstance(decl, ast.ParserDecl) else [decl.body]
    for node in _nodes(roots):
        yield node, inst
        if isinstance(node, ast.MethodCallExpr):
            child = _child_of(inst, node)
            if child is not None:
                yield from _block_nodes(child)


def _referenced_decl(node: ast.Node) -> Any:
    if isinstance(node, ast.PathExpr):
        return node.decl
    if isinstance(node, ast.ActionRef):
        return node.decl
    return None


# ---------------------------------------------------------------------------------------


class _Generator:
    def __init__(self, checked: CheckedProgram) -> None:
        self.checked = checked
        self.program = checked.program
        self.top = {id(d) for d in self.program.decls}
        self.info = p4info_pb2.P4Info()
        self.types = TypeSpecs(self.info, checked.error_members)
        self.symbols = SymbolTable()
        self.no_action = next((d for d in self.program.decls
                               if isinstance(d, ast.ActionDecl) and d.name == "NoAction"), None)
        self.blocks: list[_Block] = []
        self.top_instances: list[_Item] = []
        self.digest_names: dict[int, str] = {}
        self.auto_digests = 0
        self.emitted_actions: set[int] = set()
        self.emitted_digests: set[int] = set()
        self.profile_tables: dict[str, set[str]] = {}

    # -- driver ---------------------------------------------------------------------
    def run(self) -> p4info_pb2.P4Info:
        self._analyze()
        self._collect_symbols()
        self.symbols.assign()
        self._emit()
        self._check_duplicates()
        return self.info

    # -- analysis: what p4c keeps, in its order -------------------------------------
    def _analyze(self) -> None:
        for decl in self.program.decls:
            if (isinstance(decl, ast.InstantiationDecl) and decl is not self.checked.main
                    and isinstance(decl.type_ref.resolved, ExternT)):
                self.top_instances.append(_Item(decl, None, qualify("", decl)))
        for inst in block_instances(self.checked.package_blocks):
            block = _Block(inst)
            self._flatten(inst, block.locals)
            if block.is_control:
                self._analyze_control(block)
            else:
                self._analyze_parser(block)
            self.blocks.append(block)

    def _flatten(self, inst: BlockInstance, out: list[tuple[Any, BlockInstance]]) -> None:
        """Locals of `inst` in order, applied nested instances inlined in their place."""
        applied = {id(child) for node, _ in _block_nodes(inst)
                   if isinstance(node, ast.MethodCallExpr)
                   and (child := _child_of(inst, node)) is not None}
        children = {id(c.inst): c for c in inst.children}
        for local in getattr(inst.decl, "locals", []):
            child = children.get(id(local))
            if child is not None:
                if id(child) in applied:
                    self._flatten(child, out)
                continue
            out.append((local, inst))

    def _name(self, decl: Any, inst: BlockInstance | None) -> str:
        if inst is None or id(decl) in self.top:
            return qualify("", decl)
        return qualify(inst.path, decl)

    def _analyze_parser(self, block: _Block) -> None:
        used = {(id(_referenced_decl(n)), id(i)) for n, i in _block_nodes(block.inst)
                if isinstance(_referenced_decl(n), ast.ValueSetDecl)}
        for decl, inst in block.locals:
            if isinstance(decl, ast.ValueSetDecl) and (id(decl), id(inst)) in used:
                block.value_sets.append(_Item(decl, inst, self._name(decl, inst)))

    def _analyze_control(self, block: _Block) -> None:
        body = list(_block_nodes(block.inst))
        used_tables = {(id(_referenced_decl(n)), id(i)) for n, i in body
                       if isinstance(_referenced_decl(n), ast.TableDecl)}
        for decl, inst in block.locals:
            if isinstance(decl, ast.TableDecl) and (id(decl), id(inst)) in used_tables:
                block.tables.append(_Item(decl, inst, self._name(decl, inst)))

        # Actions: referenced by a used table or from the body, then through calls.
        local_used: set[tuple[int, int]] = set()
        globals_: list[ast.ActionDecl] = []
        work: list[tuple[ast.ActionDecl, BlockInstance]] = []

        def use(action: Any, inst: BlockInstance, localize: bool) -> None:
            if not isinstance(action, ast.ActionDecl):
                return
            if id(action) in self.top:
                if localize and all(g is not action for g in globals_):
                    globals_.append(action)
                return
            key = (id(action), id(inst))
            if key not in local_used:
                local_used.add(key)
                work.append((action, inst))

        for item in block.tables:
            for ref in self._table_action_refs(item.decl):
                use(ref.decl, item.inst, True)
        for node, inst in body:
            use(_referenced_decl(node), inst, True)
        while work:
            action, inst = work.pop()
            for node in _nodes(action.body):
                use(_referenced_decl(node), inst, False)
        block.actions = [_Item(g, None, self._name(g, None)) for g in globals_]
        block.actions += [_Item(d, i, self._name(d, i)) for d, i in block.locals
                          if isinstance(d, ast.ActionDecl) and (id(d), id(i)) in local_used]

        # Extern function calls: in action bodies (called actions inlined), then the body.
        for item in block.actions:
            self._action_calls(item.decl, block.extern_calls, [])
        for node, _ in body:
            if isinstance(node, ast.MethodCallExpr) and node.target is not None \
                    and node.target.kind == "extern_function":
                block.extern_calls.append(node)

    def _action_calls(self, action: ast.ActionDecl, out: list[ast.MethodCallExpr],
                      stack: list[int]) -> None:
        if id(action) in stack:
            return
        stack.append(id(action))
        for node in _nodes(action.body):
            if not isinstance(node, ast.MethodCallExpr) or node.target is None:
                continue
            if node.target.kind == "extern_function":
                out.append(node)
            elif node.target.kind == "action" and isinstance(node.target.decl, ast.ActionDecl):
                self._action_calls(node.target.decl, out, stack)
        stack.pop()

    def _table_action_refs(self, table: ast.TableDecl) -> list[ast.ActionRef]:
        """The action list as p4c's front end leaves it (`@defaultonly NoAction` added)."""
        refs = list(table.actions)
        if table.default_action is None and not any(r.name == "NoAction" for r in refs):
            if self.no_action is None:
                raise P4InfoError("declaration of the action NoAction not found; did you "
                                  "include core.p4?", table.loc)
            refs.append(ast.ActionRef(
                name="NoAction", decl=self.no_action, loc=table.loc,
                annotations=[ast.Annotation(name="defaultonly", loc=table.loc)]))
        return refs

    def _default_action(self, table: ast.TableDecl) -> ast.ActionRef:
        if table.default_action is not None:
            return table.default_action
        assert self.no_action is not None
        return ast.ActionRef(name="NoAction", decl=self.no_action, loc=table.loc)

    # -- symbols ----------------------------------------------------------------------
    def _collect_symbols(self) -> None:
        for item in self.top_instances:
            self._collect_instance(item)
        for block in self.blocks:
            for item in block.actions:
                self.symbols.add(ACTION, item.name, item.decl)
            for call in block.extern_calls:
                name = self._digest_name(call)
                if name is not None:
                    self.symbols.add(DIGEST, name, loc=call.loc)
            for item in block.value_sets:
                self.symbols.add(VALUE_SET, item.name, item.decl)
        for block in self.blocks:
            tables = {(id(t.decl), id(t.inst)): t for t in block.tables}
            for decl, inst in block.locals:
                if isinstance(decl, ast.TableDecl):
                    item = tables.get((id(decl), id(inst)))
                    if item is not None:
                        self.symbols.add(TABLE, item.name, decl)
                        self._collect_table_properties(item)
                elif isinstance(decl, ast.InstantiationDecl):
                    self._collect_instance(_Item(decl, inst, self._name(decl, inst)))
        for decl in self.program.decls:
            if isinstance(decl, ast.HeaderDecl) and decl.annotation("controller_header"):
                self.symbols.add(CONTROLLER_HEADER, self._type_name(decl), decl)

    def _collect_instance(self, item: _Item) -> None:
        t = item.decl.type_ref.resolved
        if isinstance(t, ExternT) and t.name in _EXTERN_KINDS:
            self.symbols.add(_EXTERN_KINDS[t.name], item.name, item.decl)

    def _collect_table_properties(self, item: _Item) -> None:
        table: ast.TableDecl = item.decl
        for prop_name, expected, kind in (
                ("implementation", ("action_profile", "action_selector"), ACTION_PROFILE),
                ("counters", ("direct_counter",), DIRECT_COUNTER),
                ("meters", ("direct_meter",), DIRECT_METER)):
            ref = self._property_instance(item, prop_name, expected)
            if ref is None:
                continue
            name, _, in_place = ref
            if in_place:
                self.symbols.add(kind, name, loc=table.property(prop_name).loc)
            if kind == ACTION_PROFILE:
                self.profile_tables.setdefault(name, set()).add(item.name)

    def _property_instance(self, item: _Item, prop_name: str, expected: tuple[str, ...],
                           ) -> tuple[str, Any, bool] | None:
        """(name, the instance's decl or constructor call, built in place) of a table
        property naming an extern instance."""
        table: ast.TableDecl = item.decl
        prop = table.property(prop_name)
        if prop is None:
            return None
        value = prop.value
        if isinstance(value, ast.ConstructorCallExpr):
            t = value.type_ref.resolved
            ann = prop.annotation("name")
            if ann is None:
                raise P4InfoError(
                    f"table '{item.name}' has an anonymous table property '{prop_name}' "
                    "with no @name annotation, which P4Runtime does not support", prop.loc)
            name = string_annotation(prop, "name") or ""
            result: tuple[str, Any, bool] = (name.lstrip("."), value, True)
        elif isinstance(value, ast.PathExpr) and isinstance(value.decl, ast.InstantiationDecl):
            t = value.decl.type_ref.resolved
            result = (self._name(value.decl, item.inst), value.decl, False)
        else:
            raise P4InfoError(f"table '{item.name}': property '{prop_name}' must name an "
                              f"extern instance of type {' or '.join(expected)}", prop.loc)
        if not isinstance(t, ExternT) or t.name not in expected:
            raise P4InfoError(f"table '{item.name}': property '{prop_name}' expects "
                              f"{' or '.join(expected)}, got {t}", prop.loc)
        return result

    def _digest_name(self, call: ast.MethodCallExpr) -> str | None:
        if call.target.name != "digest" or len(call.args) != 2:
            return None
        if id(call) in self.digest_names:
            return self.digest_names[id(call)]
        t = self._digest_type(call)
        if isinstance(t, StructT | HeaderT) or getattr(t, "decl", None) is not None:
            name = type_display_name(t)
        else:
            name = f"digest_{self.auto_digests}"
            self.auto_digests += 1
        self.digest_names[id(call)] = name
        return name

    def _digest_type(self, call: ast.MethodCallExpr) -> Type:
        t = call.target.bindings.get("T")
        return t if t is not None else call.args[1].value.type

    def _type_name(self, decl: ast.Declaration) -> str:
        name = decl.display_name()
        return name[1:] if name.startswith(".") else name

    # -- emission -----------------------------------------------------------------------
    def _emit(self) -> None:
        for item in self.top_instances:
            self._emit_instance(item)
        for block in self.blocks:
            if block.is_control:
                for item in block.actions:
                    self._emit_action(item)
                for call in block.extern_calls:
                    self.types.touch()
                    self._emit_digest(call)
            else:
                for item in block.value_sets:
                    self._emit_value_set(item)
        for block in self.blocks:
            tables = {(id(t.decl), id(t.inst)): t for t in block.tables}
            for decl, inst in block.locals:
                if isinstance(decl, ast.TableDecl):
                    item = tables.get((id(decl), id(inst)))
                    if item is not None:
                        self._emit_table(item)
                elif isinstance(decl, ast.InstantiationDecl):
                    self._emit_instance(_Item(decl, inst, self._name(decl, inst)))
        for decl in self.program.decls:
            if isinstance(decl, ast.HeaderDecl) and decl.annotation("controller_header"):
                self._emit_controller_header(decl)
        self._emit_pkg_info()

    # actions
    def _emit_action(self, item: _Item) -> None:
        decl: ast.ActionDecl = item.decl
        if decl.annotation("hidden"):
            return
        action_id = self.symbols.id(ACTION, item.name)
        if action_id in self.emitted_actions:
            return
        self.emitted_actions.add(action_id)
        action = self.info.actions.add()
        set_preamble(action.preamble, action_id, item.name, self.symbols.alias(item.name), decl)
        params = [p for p in decl.params if not p.direction]
        for p, pid in zip(params, member_ids(params), strict=True):
            param = action.params.add()
            param.id = pid
            param.name = p.name
            add_annotations(param, p)
            add_doc(param, p)
            t = p.type_ref.resolved
            base = strip_newtype(t)
            if not isinstance(base, BitT | BoolT | EnumT):
                raise P4InfoError(f"action parameter '{p.name}' has type {t}; P4Runtime needs "
                                  "bit<>, int<>, bool, a new type or a serializable enum",
                                  p.loc)
            if not (isinstance(t, EnumT) and t.underlying is None):
                param.bitwidth = type_width(t, p.loc)
            self.types.touch()
            self.types.spec(t, p.loc)
            if isinstance(t, NewT):
                param.type_name.name = new_type_name(t) or ""
            elif isinstance(t, EnumT) and t.underlying is None:
                param.type_name.name = type_display_name(t)

    # digests
    def _emit_digest(self, call: ast.MethodCallExpr) -> None:
        name = self._digest_name(call)
        if name is None:
            return
        digest_id = self.symbols.id(DIGEST, name)
        if digest_id in self.emitted_digests:
            return
        self.emitted_digests.add(digest_id)
        spec = self.types.spec(self._digest_type(call), call.loc)
        digest = self.info.digests.add()
        set_preamble(digest.preamble, digest_id, name, self.symbols.alias(name), None)
        digest.type_spec.CopyFrom(spec)

    # value sets
    def _emit_value_set(self, item: _Item) -> None:
        decl: ast.ValueSetDecl = item.decl
        size = self._const_int(decl.size, "value_set size")
        vs = self.info.value_sets.add()
        set_preamble(vs.preamble, self.symbols.id(VALUE_SET, item.name), item.name,
                     self.symbols.alias(item.name), decl)
        vs.size = size
        t = decl.elem_type.resolved
        if isinstance(t, BitT):
            match = vs.match.add()
            match.id = 1
            match.bitwidth = t.width
            match.match_type = p4info_pb2.MatchField.EXACT
        elif isinstance(t, StructT):
            fields = getattr(t.decl, "fields", None) or []
            for f, fid in zip(fields, member_ids(fields), strict=True):
                ft = f.type_ref.resolved
                if not isinstance(ft, BitT):
                    raise P4InfoError(f"value_set '{item.name}': field '{f.name}' must be "
                                      f"bit<W> for P4Runtime, not {ft}", f.loc or decl.loc)
                match = vs.match.add()
                match.id = fid
                match.name = f.name
                match.bitwidth = ft.width
                self._value_set_match_type(f, match, item.name)
                add_annotations(match, f, skip=("match",))
                add_doc(match, f)
        elif isinstance(t, EnumT) and t.underlying is not None:
            for i, m in enumerate(t.members, start=1):
                match = vs.match.add()
                match.id = i
                match.name = m
                match.bitwidth = t.underlying.width
                match.match_type = p4info_pb2.MatchField.EXACT
        else:
            raise P4InfoError(f"value_set '{item.name}': P4Runtime needs a bit<W>, a struct of "
                              f"bit<W> fields or a serializable enum, not {t}", decl.loc)

    def _value_set_match_type(self, f: ast.StructField, match: Any, vs_name: str) -> None:
        ann = f.annotation("match")
        if ann is None:
            match.match_type = p4info_pb2.MatchField.EXACT
            return
        kind = ann.args[0].name if ann.args and isinstance(ann.args[0], ast.PathExpr) else None
        if kind is None or kind == "selector" or kind not in self.checked.match_kinds:
            raise P4InfoError(f"value_set '{vs_name}': unsupported @match on field "
                              f"'{f.name}'", ann.loc)
        if kind in _MATCH_TYPES:
            match.match_type = _MATCH_TYPES[kind]
        else:
            match.other_match_type = kind

    # tables
    def _emit_table(self, item: _Item) -> None:
        decl: ast.TableDecl = item.decl
        if decl.annotation("hidden"):
            return
        self.types.touch()
        table = self.info.tables.add()
        set_preamble(table.preamble, self.symbols.id(TABLE, item.name), item.name,
                     self.symbols.alias(item.name), decl)
        size_prop = decl.property("size")
        size = self._const_int(size_prop.value, "table size") if size_prop else 0
        table.size = size or DEFAULT_TABLE_SIZE
        self._emit_match_fields(table, decl)
        for ref in self._table_action_refs(decl):
            aref = table.action_refs.add()
            aref.id = self.symbols.id(ACTION, self._name(ref.decl, item.inst))
            add_annotations(aref, ref)
            table_only, default_only = ref.annotation("tableonly"), ref.annotation("defaultonly")
            if table_only and default_only:
                raise P4InfoError(f"table '{item.name}': action '{ref.name}' cannot be both "
                                  "@tableonly and @defaultonly", ref.loc)
            if table_only:
                aref.scope = p4info_pb2.ActionRef.TABLE_ONLY
            elif default_only:
                aref.scope = p4info_pb2.ActionRef.DEFAULT_ONLY
        default = self._default_action(decl)
        default_id = self.symbols.id(ACTION, self._name(default.decl, item.inst))
        if decl.default_action is not None and decl.default_action_const:
            table.const_default_action_id = default_id
        table.initial_default_action.action_id = default_id
        params = [p for p in default.decl.params if not p.direction]
        values = default.args[len(default.decl.params) - len(params):]
        for p, pid, arg in zip(params, member_ids(params), values, strict=False):
            argument = table.initial_default_action.arguments.add()
            argument.param_id = pid
            argument.value = encode(self._const_int(arg.value, "default action argument"),
                                    type_width(p.type_ref.resolved, arg.value.loc))
        if decl.entries_const:
            table.is_const_table = True
        if decl.entries:
            table.has_initial_entries = True
        self._emit_table_properties(table, item)

    def _emit_match_fields(self, table: Any, decl: ast.TableDecl) -> None:
        for key, kid in zip(decl.keys, member_ids(decl.keys), strict=True):
            if key.match_kind == "selector":
                continue
            t = key.expr.type
            field_ = table.match_fields.add()
            field_.id = kid
            field_.name = key_field_name(key)
            add_annotations(field_, key)
            add_doc(field_, key)
            self.types.spec(t, key.loc)
            field_.bitwidth = type_width(t, key.loc)
            if key.match_kind in _MATCH_TYPES:
                field_.match_type = _MATCH_TYPES[key.match_kind]
            else:
                field_.other_match_type = key.match_kind
            type_name = new_type_name(t)
            if type_name:
                field_.type_name.name = type_name

    def _emit_table_properties(self, table: Any, item: _Item) -> None:
        decl: ast.TableDecl = item.decl
        impl = self._property_instance(item, "implementation",
                                       ("action_profile", "action_selector"))
        if impl is not None:
            name, source, in_place = impl
            table.implementation_id = self.symbols.id(ACTION_PROFILE, name)
            if in_place:
                prop = decl.property("implementation")
                self._emit_action_profile(name, source.type_ref.resolved, source.args, prop)
        for prop_name, expected, kind in (("counters", "direct_counter", DIRECT_COUNTER),
                                          ("meters", "direct_meter", DIRECT_METER)):
            ref = self._property_instance(item, prop_name, (expected,))
            if ref is None:
                continue
            name, source, in_place = ref
            rid = self.symbols.id(kind, name)
            table.direct_resource_ids.append(rid)
            annotated = decl.property(prop_name) if in_place else source
            args = self._ctor_args(source.type_ref.resolved, source.args, source)
            unit = self._enum_member(args.get("type"), source)
            table_id = self.symbols.id(TABLE, item.name)
            if kind == DIRECT_COUNTER:
                dc = self.info.direct_counters.add()
                set_preamble(dc.preamble, rid, name, self.symbols.alias(name), annotated)
                dc.spec.unit = _COUNTER_UNITS.get(unit, p4info_pb2.CounterSpec.UNSPECIFIED)
                dc.direct_table_id = table_id
            else:
                dm = self.info.direct_meters.add()
                set_preamble(dm.preamble, rid, name, self.symbols.alias(name), annotated)
                dm.spec.unit = _METER_UNITS.get(unit, p4info_pb2.MeterSpec.UNSPECIFIED)
                dm.direct_table_id = table_id
        timeout = decl.property("support_timeout")
        if timeout is not None:
            if not isinstance(timeout.value, ast.BoolLiteral):
                raise P4InfoError(f"table '{item.name}': support_timeout must be true or "
                                  "false", timeout.loc)
            if timeout.value.value:
                table.idle_timeout_behavior = p4info_pb2.Table.NOTIFY_CONTROL

    # extern instances
    def _emit_instance(self, item: _Item) -> None:
        decl: ast.InstantiationDecl = item.decl
        t = decl.type_ref.resolved
        if not isinstance(t, ExternT):
            return
        self.types.touch()
        if decl.annotation("hidden"):
            return
        if t.name in ("action_profile", "action_selector"):
            self._emit_action_profile(item.name, t, decl.args, decl)
            return
        if t.name not in ("counter", "meter", "register"):
            return
        args = self._ctor_args(t, decl.args, decl)
        size = self._const_int(args["size"], f"{t.name} size")
        rid = self.symbols.id(_EXTERN_KINDS[t.name], item.name)
        alias = self.symbols.alias(item.name)
        if t.name == "counter":
            counter = self.info.counters.add()
            set_preamble(counter.preamble, rid, item.name, alias, decl)
            unit = self._enum_member(args.get("type"), decl)
            counter.spec.unit = _COUNTER_UNITS.get(unit, p4info_pb2.CounterSpec.UNSPECIFIED)
            counter.size = size
        elif t.name == "meter":
            meter = self.info.meters.add()
            set_preamble(meter.preamble, rid, item.name, alias, decl)
            unit = self._enum_member(args.get("type"), decl)
            meter.spec.unit = _METER_UNITS.get(unit, p4info_pb2.MeterSpec.UNSPECIFIED)
            meter.size = size
        else:
            spec = self.types.spec(t.type_args[0], decl.loc)
            register = self.info.registers.add()
            set_preamble(register.preamble, rid, item.name, alias, decl)
            register.type_spec.CopyFrom(spec)
            register.size = size

    def _emit_action_profile(self, name: str, t: ExternT, args: list[ast.Argument],
                             annotated: Any) -> None:
        values = self._ctor_args(t, args, annotated)
        profile = self.info.action_profiles.add()
        set_preamble(profile.preamble, self.symbols.id(ACTION_PROFILE, name), name,
                     self.symbols.alias(name), annotated, skip=_PROFILE_ANNOTATIONS)
        for table_name in sorted(self.profile_tables.get(name, ())):
            profile.table_ids.append(self.symbols.id(TABLE, table_name))
        profile.size = self._const_int(values["size"], "action profile size")
        if t.name != "action_selector":
            return
        profile.with_selector = True
        max_group = int_annotation(annotated, "max_group_size")
        if max_group is not None:
            profile.max_group_size = max_group
        semantics = string_annotation(annotated, "selector_size_semantics")
        weight = int_annotation(annotated, "max_member_weight")
        if semantics == "sum_of_members":
            profile.sum_of_members.SetInParent()
            if weight is not None:
                profile.sum_of_members.max_member_weight = weight
        elif semantics == "sum_of_weights":
            profile.sum_of_weights.SetInParent()
        elif semantics is not None:
            ann = annotated.annotation("selector_size_semantics")
            raise P4InfoError(f"action selector '{name}': @selector_size_semantics must be "
                              "\"sum_of_weights\" or \"sum_of_members\"", ann.loc)

    # controller headers
    def _emit_controller_header(self, decl: ast.HeaderDecl) -> None:
        if decl.annotation("hidden"):
            return
        controller_name = string_annotation(decl, "controller_header") or ""
        cpm = self.info.controller_packet_metadata.add()
        set_preamble(cpm.preamble, self.symbols.id(CONTROLLER_HEADER, self._type_name(decl)),
                     controller_name, controller_name, decl)
        for f, fid in zip(decl.fields, member_ids(decl.fields), strict=True):
            if f.annotation("hidden"):
                continue
            ft = f.type_ref.resolved
            base = strip_newtype(ft)
            if not (isinstance(base, BitT) or (isinstance(base, EnumT)
                                                and base.underlying is not None)):
                raise P4InfoError(f"controller header '{controller_name}': field '{f.name}' "
                                  f"has type {ft}; P4Runtime needs bit<>, int<>, a new type "
                                  "or a serializable enum", f.loc or decl.loc)
            md = cpm.metadata.add()
            md.id = fid
            md.name = f.name
            add_annotations(md, f)
            md.bitwidth = type_width(ft, f.loc)
            self.types.touch()
            self.types.spec(ft, f.loc)
            type_name = new_type_name(ft)
            if type_name:
                md.type_name.name = type_name

    def _emit_pkg_info(self) -> None:
        pkg = self.info.pkg_info
        pkg.arch = ARCH
        main = self.checked.main
        if main is None:
            return
        for ann in main.annotations:
            if ann.name == "pkginfo":
                self._pkginfo_fields(ann, pkg)
        add_annotations(pkg, main, skip=("pkginfo",))
        add_doc(pkg, main)

    def _pkginfo_fields(self, ann: ast.Annotation, pkg: Any) -> None:
        import re

        body = ann.body or ""
        for key, value in re.findall(r'(\w+)\s*=\s*"((?:[^"\\]|\\.)*)"', body):
            if key in ("name", "version", "organization", "contact", "url", "arch"):
                setattr(pkg, key, value)

    # -- helpers ------------------------------------------------------------------------
    def _ctor_args(self, t: ExternT, args: list[ast.Argument], where: Any,
                   ) -> dict[str, ast.Expression]:
        """Constructor arguments of an extern instance by parameter name."""
        decl = t.decl
        ctors = [m for m in getattr(decl, "methods", []) if m.return_type is None]
        ctor = next((c for c in ctors if len(c.params) == len(args)), None)
        if ctor is None:
            raise P4InfoError(f"no constructor of {t.name} takes {len(args)} arguments",
                              getattr(where, "loc", None))
        out: dict[str, ast.Expression] = {}
        for i, a in enumerate(args):
            out[a.name if a.name else ctor.params[i].name] = a.value
        return out

    def _enum_member(self, e: ast.Expression | None, where: Any) -> str | None:
        if e is None:
            return None
        if isinstance(e, ast.MemberExpr):
            return e.member
        try:
            value = evaluate(e)
        except NotConstant:
            value = None
        if isinstance(value, tuple):
            return str(value[-1])
        raise P4InfoError("expected a CounterType/MeterType constant", e.loc or where.loc)

    def _const_int(self, e: ast.Expression, what: str) -> int:
        try:
            value = evaluate(e)
        except NotConstant:
            raise P4InfoError(f"{what} must be a compile-time constant", e.loc) from None
        if isinstance(value, bool):
            return int(value)
        if not isinstance(value, int):
            raise P4InfoError(f"{what} must be an integer constant", e.loc)
        return value

    def _check_duplicates(self) -> None:
        groups = [("table", self.info.tables), ("action", self.info.actions),
                  ("action profile", self.info.action_profiles),
                  ("counter", self.info.counters), ("direct counter", self.info.direct_counters),
                  ("meter", self.info.meters), ("direct meter", self.info.direct_meters),
                  ("controller packet metadata", self.info.controller_packet_metadata),
                  ("value set", self.info.value_sets), ("register", self.info.registers),
                  ("digest", self.info.digests)]
        for what, entities in groups:
            seen: set[str] = set()
            for e in entities:
                if e.preamble.name in seen:
                    raise P4InfoError(f"name '{e.preamble.name}' is used for multiple {what} "
                                      "objects in the P4Info message", self.checked.program.loc)
                seen.add(e.preamble.name)
