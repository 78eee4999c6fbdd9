"""Control-plane names of program objects, with p4c's conventions.

A table, action or extern instance declared inside a control is named after the block
instance that holds it: `MyIngress.ipv6_lpm` for the control `MyIngress` given to the
package, `MyIngress.sub.t` for a control `sub` instantiated inside it. Top-level actions
and instances keep their bare name. An `@name` annotation replaces the local part; a
leading `.` in `@name(".x")` makes the name absolute (`x`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from . import ast
from .printer import expr_text


@dataclass
class BlockInstance:
    """One instantiated parser or control: its declaration and its name prefix."""

    decl: Any
    path: str
    children: list[BlockInstance] = field(default_factory=list)
    # For nested instances: the InstantiationDecl that created it, else None.
    inst: ast.InstantiationDecl | None = None


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
        t = local.type_ref.resolved
        decl = getattr(t, "decl", None)
        if isinstance(decl, ast.ControlDecl | ast.ParserDecl):
            child = BlockInstance(decl, qualify(inst.path, local), inst=local)
            _children(child)
            inst.children.append(child)
