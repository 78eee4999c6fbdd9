"""Choosing among overloads (spec 7.2.10): functions, extern functions and methods,
extern constructors, and controls, parsers and packages declared more than once under
one name (p4c's issue1334.p4, issue3379.p4). Overloads differ in arity or in parameter
names; a call that two fit is ambiguous (name the arguments to tell them apart)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from . import ast
from .errors import P4TypeError
from .scope import Scope


def pick_overload(decls: list[Any], call: ast.MethodCallExpr, name: str) -> Any:
    """The declaration among `decls` (each with `params`) that the arguments of `call` fit."""
    n = len(call.args)
    names = {a.name for a in call.args if a.name}
    fits = []
    for d in decls:
        required = [p for p in d.params if p.default is None and not p.annotation("optional")]
        if len(required) <= n <= len(d.params):
            if names and not names <= {p.name for p in d.params}:
                continue
            fits.append(d)
    if not fits:
        raise P4TypeError(f"no overload of '{name}' takes {n} arguments", call.loc)
    exact = [d for d in fits if len(d.params) == n] or fits
    if len(exact) > 1:
        hint = "the same argument names" if names else "name the arguments"
        raise P4TypeError(f"ambiguous call of {name}: {len(exact)} overloads take {n} "
                          f"arguments; {hint}", call.loc)
    return exact[0]


def block_overload(t: Any, args: list[ast.Argument], scope: Scope, node: ast.Node) -> Any:
    """The type of the control, parser or package `t` names that `args` instantiate: its
    overload (by constructor parameters, or a package's parameters) when it has several."""
    decls = [d for d in scope.lookup_all(t.name) if type(d) is type(t.decl)]
    if len(decls) < 2:
        return t
    shapes = [SimpleNamespace(decl=d, params=getattr(d, "constructor_params", d.params))
              for d in decls]
    call = ast.MethodCallExpr(func=ast.PathExpr(name=t.name), args=args, loc=node.loc)
    chosen = pick_overload(shapes, call, t.name).decl
    return type(t)(t.name, chosen, type_args=t.type_args)
