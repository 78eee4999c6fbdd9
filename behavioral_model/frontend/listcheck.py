"""Where bm takes `list<T>` (spec 7.2.11): as the type of an extern constructor's
parameter and as the target of a cast of a list expression, `(list<T>){a, b}`, the
forms p4c's list*.p4 samples use. Anywhere else (variables, fields, other parameters,
type arguments, return types) bm refuses it: p4c rejects most of those places too
(its p4_16_errors), and bm would have nothing to run them with."""

from __future__ import annotations

from collections.abc import Iterable

from . import ast
from .errors import P4TypeError
from .naming import iter_nodes


def check_list_types(decls: Iterable[ast.Node]) -> None:
    """Raise on the first `list<T>` outside the places the module docstring names."""
    decls = list(decls)
    allowed: set[int] = set()
    for node in iter_nodes(decls):
        roots: list[ast.Node] = []
        if isinstance(node, ast.ExternDecl):
            roots = [p.type_ref for m in node.methods if m.return_type is None
                     for p in m.params]
        elif isinstance(node, ast.CastExpr) and isinstance(node.expr, ast.ListExpr):
            roots = [node.type_ref]
        allowed.update(id(n) for n in iter_nodes(roots) if isinstance(n, ast.ListTypeRef))
    for node in iter_nodes(decls):
        if isinstance(node, ast.ListTypeRef) and id(node) not in allowed:
            raise P4TypeError("list<T> is supported only as the type of an extern "
                              "constructor parameter and in a cast of a list, "
                              "(list<T>){...}", node.loc)
