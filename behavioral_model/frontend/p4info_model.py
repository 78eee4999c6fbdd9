"""The program as p4c's P4Info generator sees it, after p4c's front end.

* Nested parser/control instances are inlined into the package's blocks in place of their
  declaration, their objects named after the instance path (`MyIngress.sub.t`); nested
  instances never applied are removed with everything in them.
* Tables never applied are removed, and so are actions nothing refers to. Extern
  instances stay even when unused.
* A table without `default_action` gets `default_action = NoAction()` and, unless it lists
  NoAction, `@defaultonly NoAction` at the end of its actions.
* Top-level actions a control refers to (from a table or its apply block) are copied into
  it ahead of its own actions, in order of first reference, keeping their bare names.
  One called only from another action's body is inlined there instead, so it does not
  belong to the control.
* Each user of an action (a table, or one call in the apply block) gets its own copy of
  it under the same name; p4c's RemoveActionParameters then binds the directional
  parameters of a table's copy and every parameter of a called copy. P4Info lists the
  first copy: a table's (tables come before the apply block) with its directionless
  parameters, else, for an action only ever called directly, one without parameters.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from . import ast
from .checker import CheckedProgram
from .consteval import NotConstant, evaluate
from .naming import BlockInstance, block_instances, constructor_arguments, qualify
from .p4info_ids import P4InfoError
from .p4info_types import string_annotation
from .types import ExternT, StackT


@dataclass
class Item:
    """A table, action, extern instance or value set with the instance that holds it."""

    decl: Any
    inst: BlockInstance | None  # None for top-level declarations
    name: str
    # An action only called directly in its control (no table lists it): P4Info lists
    # it without parameters (see the module docstring).
    direct_only: bool = False


@dataclass
class Block:
    """One parser/control given to the package, nested instances inlined."""

    inst: BlockInstance
    locals: list[tuple[Any, BlockInstance]] = field(default_factory=list)
    actions: list[Item] = field(default_factory=list)  # localized top-level ones first
    tables: list[Item] = field(default_factory=list)  # applied ones, in declaration order
    value_sets: list[Item] = field(default_factory=list)  # used ones
    extern_calls: list[ast.MethodCallExpr] = field(default_factory=list)

    @property
    def is_control(self) -> bool:
        return isinstance(self.inst.decl, ast.ControlDecl)


@dataclass
class PropertyInstance:
    """An extern instance a table property names or builds in place."""

    name: str
    type: ExternT
    args: list[ast.Argument]
    annotated: ast.Annotated  # the instance declaration, or the property when in place
    in_place: bool


_SKIP_FIELDS = frozenset({"loc", "type", "decl", "resolved", "target"})


def nodes(node: Any) -> Iterator[ast.Node]:
    """`node` and everything below it in source order (not following resolved links)."""
    if isinstance(node, ast.Node):
        yield node
        for f in dataclasses.fields(node):
            if f.name not in _SKIP_FIELDS:
                yield from nodes(getattr(node, f.name))
    elif isinstance(node, list | tuple):
        for x in node:
            yield from nodes(x)


def referenced_decl(node: ast.Node) -> Any:
    """The declaration a name or table action reference resolves to, else None."""
    if isinstance(node, ast.PathExpr | ast.ActionRef):
        return node.decl
    return None


def _child_of(inst: BlockInstance, call: ast.MethodCallExpr) -> BlockInstance | None:
    """The nested instance `call` applies in block `inst`: a child of `inst`, or the
    instance bound to one of its parser/control constructor parameters."""
    target = call.target
    if target is None or target.kind != "apply":
        return None
    # A direct invocation (`Ctl.apply()`) is keyed by its call, an instance by its decl.
    direct = next((c for c in inst.children if c.inst is call), None)
    return direct if direct is not None else inst.applied(target.receiver)


def block_nodes(inst: BlockInstance) -> Iterator[tuple[ast.Node, BlockInstance]]:
    """Nodes of a block's body (parser states or apply block), nested applies inlined."""
    decl = inst.decl
    roots: list[Any] = decl.states if isinstance(decl, ast.ParserDecl) else [decl.body]
    for node in nodes(roots):
        yield node, inst
        if isinstance(node, ast.MethodCallExpr):
            child = _child_of(inst, node)
            if child is not None:
                yield from block_nodes(child)


def instance_type(decl: ast.InstantiationDecl) -> Any:
    """The type of an extern instance P4Info can describe: not an array of them (p4c's
    externArray1.p4), which has no P4Runtime form in bm yet."""
    t = decl.type_ref.resolved
    if isinstance(t, StackT):
        raise P4InfoError(f"P4Info of an array of extern instances ('{decl.name}', {t}) is "
                          "not supported by bm yet", decl.loc)
    return t


def const_int(e: ast.Expression, what: str) -> int:
    try:
        value = evaluate(e)
    except NotConstant:
        raise P4InfoError(f"{what} must be a compile-time constant", e.loc) from None
    if isinstance(value, bool):
        return int(value)
    if not isinstance(value, int):
        raise P4InfoError(f"{what} must be an integer constant", e.loc)
    return value


def ctor_args(t: ExternT, args: list[ast.Argument], where: Any) -> dict[str, ast.Expression]:
    """Constructor arguments of an extern instance by parameter name."""
    ctors = [m for m in getattr(t.decl, "methods", []) if m.return_type is None]
    ctor = next((c for c in ctors if len(c.params) == len(args)), None)
    if ctor is None:
        raise P4InfoError(f"no constructor of {t.name} takes {len(args)} arguments",
                          getattr(where, "loc", None))
    return {a.name or ctor.params[i].name: a.value for i, a in enumerate(args)}


def enum_member(e: ast.Expression | None, where: Any) -> str | None:
    """Member name of an enum constant argument such as `CounterType.packets`."""
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


def type_name(decl: ast.Declaration) -> str:
    """Control-plane name of a type declaration (its `@name`, without a leading dot)."""
    name = decl.display_name()
    return name[1:] if name.startswith(".") else name


class ProgramModel:
    """Blocks, tables, actions and extern instances p4c gives P4Runtime, in its order."""

    def __init__(self, checked: CheckedProgram) -> None:
        self.checked = checked
        self.program = checked.program
        self.top = {id(d) for d in self.program.decls}
        self.no_action = next((d for d in self.program.decls
                               if isinstance(d, ast.ActionDecl) and d.name == "NoAction"), None)
        self.top_instances: list[Item] = []
        self.blocks: list[Block] = []
        for decl in self.program.decls:
            if (isinstance(decl, ast.InstantiationDecl) and decl is not checked.main
                    and isinstance(decl.type_ref.resolved, ExternT)):
                self.top_instances.append(Item(decl, None, qualify("", decl)))
        for inst in block_instances(checked.package_blocks):
            block = Block(inst)
            self._flatten(inst, block.locals)
            if block.is_control:
                self._analyze_control(block)
            else:
                self._analyze_parser(block)
            self.blocks.append(block)

    def name(self, decl: Any, inst: BlockInstance | None) -> str:
        if inst is None or id(decl) in self.top:
            return qualify("", decl)
        return qualify(inst.path, decl)

    def controller_headers(self) -> list[ast.HeaderDecl]:
        return [d for d in self.program.decls
                if isinstance(d, ast.HeaderDecl) and d.annotation("controller_header")]

    # -- tables -----------------------------------------------------------------------
    def table_action_refs(self, table: ast.TableDecl) -> list[ast.ActionRef]:
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

    def default_action(self, table: ast.TableDecl) -> ast.ActionRef:
        if table.default_action is not None:
            return table.default_action
        if self.no_action is None:
            raise P4InfoError("declaration of the action NoAction not found; did you "
                              "include core.p4?", table.loc)
        return ast.ActionRef(name="NoAction", decl=self.no_action, loc=table.loc)

    def property_instance(self, item: Item, prop_name: str,
                          expected: tuple[str, ...]) -> PropertyInstance | None:
        """The extern instance table property `prop_name` names or builds, if present."""
        table: ast.TableDecl = item.decl
        prop = table.property(prop_name)
        if prop is None:
            return None
        value = prop.value
        if isinstance(value, ast.ConstructorCallExpr):
            if prop.annotation("name") is None:
                raise P4InfoError(
                    f"table '{item.name}' has an anonymous table property '{prop_name}' "
                    "with no @name annotation, which P4Runtime does not support", prop.loc)
            name = (string_annotation(prop, "name") or "").lstrip(".")
            t, args, annotated, in_place = value.type_ref.resolved, value.args, prop, True
        elif isinstance(value, ast.PathExpr) and isinstance(value.decl, ast.InstantiationDecl):
            decl = value.decl
            name = self.name(decl, item.inst)
            t, args, annotated, in_place = decl.type_ref.resolved, decl.args, decl, False
        else:
            raise P4InfoError(f"table '{item.name}': property '{prop_name}' must name an "
                              f"extern instance of type {' or '.join(expected)}", prop.loc)
        if not isinstance(t, ExternT) or t.name not in expected:
            raise P4InfoError(f"table '{item.name}': property '{prop_name}' expects "
                              f"{' or '.join(expected)}, got {t}", prop.loc)
        return PropertyInstance(name, t, args, annotated, in_place)

    # -- analysis -----------------------------------------------------------------------
    def _flatten(self, inst: BlockInstance, out: list[tuple[Any, BlockInstance]]) -> None:
        """Locals of `inst` in order, applied nested instances inlined in their place
        (one applied through another's constructor parameter included; one built in a
        constructor argument comes just before the instance it is given to)."""
        applied = {id(child) for node, where in block_nodes(inst)
                   if isinstance(node, ast.MethodCallExpr)
                   and (child := _child_of(where, node)) is not None}
        children = {id(c.inst): c for c in inst.children}
        for local in getattr(inst.decl, "locals", []):
            child = children.get(id(local))
            if child is None:
                out.append((local, inst))
                continue
            for built in constructor_arguments(local):
                if id(children[id(built)]) in applied:
                    self._flatten(children[id(built)], out)
            if id(child) in applied:
                self._flatten(child, out)
        for child in inst.children:
            if isinstance(child.inst, ast.MethodCallExpr):
                self._flatten(child, out)

    def _analyze_parser(self, block: Block) -> None:
        used = {(id(referenced_decl(n)), id(i)) for n, i in block_nodes(block.inst)
                if isinstance(referenced_decl(n), ast.ValueSetDecl)}
        for decl, inst in block.locals:
            if isinstance(decl, ast.ValueSetDecl) and (id(decl), id(inst)) in used:
                block.value_sets.append(Item(decl, inst, self.name(decl, inst)))

    def _analyze_control(self, block: Block) -> None:
        body = list(block_nodes(block.inst))
        applied = {(id(referenced_decl(n)), id(i)) for n, i in body
                   if isinstance(referenced_decl(n), ast.TableDecl)}
        block.tables = [Item(d, i, self.name(d, i)) for d, i in block.locals
                        if isinstance(d, ast.TableDecl) and (id(d), id(i)) in applied]

        local_used: set[tuple[int, int]] = set()
        localized: list[ast.ActionDecl] = []
        work: list[tuple[ast.ActionDecl, BlockInstance]] = []

        def use(action: Any, inst: BlockInstance, localize: bool) -> None:
            if not isinstance(action, ast.ActionDecl):
                return
            if id(action) in self.top:
                if localize and all(a is not action for a in localized):
                    localized.append(action)
                return
            if (id(action), id(inst)) not in local_used:
                local_used.add((id(action), id(inst)))
                work.append((action, inst))

        def key(action: Any, inst: BlockInstance) -> tuple[int, int]:
            return id(action), 0 if id(action) in self.top else id(inst)

        in_tables: set[tuple[int, int]] = set()
        called: set[tuple[int, int]] = set()
        for item in block.tables:
            assert item.inst is not None
            for ref in self.table_action_refs(item.decl):
                use(ref.decl, item.inst, True)
                in_tables.add(key(ref.decl, item.inst))
        for node, inst in body:
            use(referenced_decl(node), inst, True)
            if isinstance(node, ast.MethodCallExpr) and node.target is not None \
                    and node.target.kind == "action":
                called.add(key(node.target.decl, inst))
        direct_only = called - in_tables
        while work:
            action, inst = work.pop()
            for node in nodes(action.body):
                use(referenced_decl(node), inst, False)
        block.actions = [Item(a, None, self.name(a, None), (id(a), 0) in direct_only)
                         for a in localized]
        block.actions += [Item(d, i, self.name(d, i), (id(d), id(i)) in direct_only)
                          for d, i in block.locals
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
        for node in nodes(action.body):
            if not isinstance(node, ast.MethodCallExpr) or node.target is None:
                continue
            if node.target.kind == "extern_function":
                out.append(node)
            elif node.target.kind == "action" and isinstance(node.target.decl, ast.ActionDecl):
                self._action_calls(node.target.decl, out, stack)
        stack.pop()
