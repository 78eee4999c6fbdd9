"""Control-plane names of program objects, with p4c's conventions.

A table, action or extern instance declared inside a control is named after the block
instance that holds it: `MyIngress.ipv6_lpm` for the control `MyIngress` given to the
package, `MyIngress.sub.t` for a control `sub` instantiated inside it. Top-level actions
and instances keep their bare name. An `@name` annotation replaces the local part; a
leading `.` in `@name(".x")` makes the name absolute (`x`).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field, fields
from typing import Any

from . import ast
from .printer import expr_text


@dataclass
class BlockInstance:
    """One instantiated parser or control: its declaration and its name prefix."""

    decl: Any
    path: str
    children: list[BlockInstance] = field(default_factory=list)
    # What created a nested instance: its InstantiationDecl, for a direct invocation
    # (`Ctl.apply(...)` without an instance, spec 15.1) the call expression, for an
    # instance built in a constructor argument (`C(D()) c;`) the ConstructorCallExpr;
    # else None.
    inst: Any = None
    # Constructor parameters of parser/control type (`control C()(D d)`, spec 15.2) ->
    # the instance given as argument: `d.apply()` applies it, under its own name.
    bound: dict[int, BlockInstance] = field(default_factory=dict)

    def applied(self, receiver: Any) -> BlockInstance | None:
        """The instance `receiver.apply(...)` runs, when the receiver is an instance
        declared in this block or one of its block-typed constructor parameters."""
        decl = getattr(receiver, "decl", None)
        if isinstance(decl, ast.Parameter):
            return self.bound.get(id(decl))
        return next((c for c in self.children if c.inst is decl), None)

    def applied_by(self, call: ast.MethodCallExpr) -> BlockInstance | None:
        """The instance the apply `call` in this block runs: a direct invocation's own
        (`Ctl.apply(...)`), else its receiver's (``applied``)."""
        if direct_invocation(call):
            return next((c for c in self.children if c.inst is call), None)
        return self.applied(call.target.receiver)


def qualify(prefix: str, decl: ast.Declaration) -> str:
    """Fully-qualified control-plane name of `decl` declared in block `prefix`."""
    local = decl.display_name()
    if local.startswith("."):
        return local[1:]
    return f"{prefix}.{local}" if prefix else local


def key_field_name(key: ast.KeyElement) -> str:
    """P4Info match-field name: the key's `@name`, else the key expression's text."""
    ann = key.annotation("name")
    if ann and ann.args and isinstance(ann.args[0], ast.StringLiteral):
        return ann.args[0].value
    return expr_text(key.expr)


def table_property_instance(prop: ast.TableProperty, block_path: str, top: set[int]
                            ) -> tuple[str, Any, list[ast.Argument]] | None:
    """The extern instance a table property (`counters`, `meters`, `implementation`)
    names or builds in place: its control-plane name, type and constructor arguments.
    An in-place instance is named by the property's `@name` (as in P4Info)."""
    value = prop.value
    if isinstance(value, ast.ConstructorCallExpr):
        ann = prop.annotation("name")
        if ann is None or not ann.args or not isinstance(ann.args[0], ast.StringLiteral):
            return None
        return ann.args[0].value.lstrip("."), value.type_ref.resolved, value.args
    if isinstance(value, ast.PathExpr) and isinstance(value.decl, ast.InstantiationDecl):
        decl = value.decl
        prefix = "" if id(decl) in top else block_path
        return qualify(prefix, decl), decl.type_ref.resolved, decl.args
    return None


def block_instances(package_blocks: list[Any]) -> list[BlockInstance]:
    """Instances of the package's blocks (in package order) and of nested blocks."""
    out = []
    for decl in package_blocks:
        if decl is None:
            continue
        inst = BlockInstance(decl, decl.display_name())
        _children(inst)
        out.append(inst)
    return out


def _children(inst: BlockInstance) -> None:
    for local in getattr(inst.decl, "locals", []):
        if not isinstance(local, ast.InstantiationDecl):
            continue
        decl = getattr(local.type_ref.resolved, "decl", None)
        if isinstance(decl, ast.ControlDecl | ast.ParserDecl):
            child = BlockInstance(decl, qualify(inst.path, local), inst=local)
            _bind(child, local.args, inst)
            _children(child)
            inst.children.append(child)
    for call in _direct_invocations(inst.decl):
        decl = call.target.decl
        child = BlockInstance(decl, f"{inst.path}.{decl.display_name()}", inst=call)
        _children(child)
        inst.children.append(child)


def _bind(child: BlockInstance, args: list[ast.Argument], parent: BlockInstance) -> None:
    """Bind the block-typed constructor parameters of `child` to the instances its
    arguments name or build (the latter become children of `parent`, as p4c's
    MoveConstructors declares them there, named by `instance_name`)."""
    params = getattr(child.decl, "constructor_params", [])
    for p, a in zip(params, args, strict=False):
        value = a.value
        if isinstance(value, ast.ConstructorCallExpr):
            decl = getattr(value.type_ref.resolved, "decl", None)
            if not isinstance(decl, ast.ControlDecl | ast.ParserDecl):
                continue
            built = BlockInstance(decl, f"{parent.path}.{value.instance_name}", inst=value)
            _bind(built, value.args, parent)
            _children(built)
            parent.children.append(built)
            child.bound[id(p)] = built
        elif isinstance(value, ast.PathExpr):
            found = parent.applied(value)
            if found is not None:
                child.bound[id(p)] = found


def constructor_arguments(decl: ast.InstantiationDecl) -> list[ast.ConstructorCallExpr]:
    """Parser/control instances built in `decl`'s arguments, innermost first (the order
    in which p4c's MoveConstructors names them)."""
    out: list[ast.ConstructorCallExpr] = []

    def visit(args: list[ast.Argument]) -> None:
        for a in args:
            if isinstance(a.value, ast.ConstructorCallExpr):
                visit(a.value.args)
                if isinstance(getattr(a.value.type_ref.resolved, "decl", None),
                              ast.ControlDecl | ast.ParserDecl):
                    out.append(a.value)

    visit(decl.args)
    return out


def _direct_invocations(decl: Any) -> list[ast.MethodCallExpr]:
    """Calls `Ctl.apply(...)` / `Prs.apply(...)` naming a type, not an instance."""
    found: list[ast.MethodCallExpr] = []
    roots: list[Any] = [getattr(decl, "body", None)]
    roots += [s for s in getattr(decl, "states", [])]
    roots += [d for d in getattr(decl, "locals", []) if isinstance(d, ast.ActionDecl)]
    for node in iter_nodes(roots):
        if isinstance(node, ast.MethodCallExpr) and node.target is not None \
                and node.target.kind == "apply":
            if direct_invocation(node):
                found.append(node)
    return found


def direct_invocation(call: ast.MethodCallExpr) -> bool:
    """True when `call` applies a parser/control type directly, without an instance."""
    recv = call.target.receiver
    if isinstance(recv, ast.TypeNameExpr):
        return True
    return isinstance(recv, ast.PathExpr) and isinstance(
        recv.decl, ast.ControlDecl | ast.ParserDecl)


def iter_nodes(root: Any) -> Iterator[ast.Node]:
    """Every syntax node below `root` (a node or a list of nodes), depth first."""
    stack = [root]
    while stack:
        item = stack.pop()
        if isinstance(item, list | tuple):
            stack.extend(reversed(item))
        elif isinstance(item, ast.Node):
            yield item
            for f in fields(item):
                if f.name in ("loc", "type", "decl", "resolved", "target"):
                    continue
                stack.append(getattr(item, f.name))
