"""Lists meeting their type: `{a, b}` and `{f = a}` given the type of their context
(spec 8.11-8.13, 8.18), and where a `...` (spec 8.26: the default value of a type) in
them gets its type."""

from __future__ import annotations

from typing import Any

from . import ast
from .errors import P4TypeError
from .scope import Scope
from .types import (
    DontCareT,
    HeaderUnionT,
    StackT,
    StructLike,
    TupleT,
    Type,
    TypeVar,
    has_default_value,
)


def holds_dots(e: ast.Expression) -> bool:
    """`...`, or a list or key-value list with one somewhere inside."""
    if isinstance(e, ast.DefaultValueExpr):
        return True
    if isinstance(e, ast.ListExpr):
        return any(holds_dots(x) for x in e.elems)
    if isinstance(e, ast.StructInitExpr):
        return any(holds_dots(x) for _, x in e.fields)
    return False


def element_types(t: Type | None, count: int) -> list[Type | None]:
    """The types that a list of `count` elements given type `t` gives its elements, in
    order (None where `t` gives none)."""
    if isinstance(t, TupleT):
        types: list[Type | None] = list(t.elems)
    elif isinstance(t, StackT) and not isinstance(t.elem, TypeVar):
        types = [t.elem] * t.size
    elif isinstance(t, StructLike) and not isinstance(t, HeaderUnionT):
        types = [ft for _, ft in t.fields]
    else:
        types = []
    return (types + [None] * count)[:count]


class ListInitMixin:
    """ExprChecker's typing of lists against the type their context gives."""

    check: Any  # ExprChecker.check
    coerce: Any  # ExprChecker.coerce

    def _dots_need_a_type(self, expr: ast.Expression, expected: Type | None) -> None:
        """A list ending in `...` takes its type from its context, which must give one."""
        elems = expr.elems if isinstance(expr, ast.ListExpr) else \
            [e for _, e in expr.fields]
        if elems and isinstance(elems[-1], ast.DefaultValueExpr) and (
                expected is None or isinstance(expected, TypeVar | DontCareT)):
            raise P4TypeError(f"...: no default value for type {expected or 'unknown'}",
                              elems[-1].loc)

    def _check_element(self, e: ast.Expression, scope: Scope, expected: Type | None,
                       last: bool) -> None:
        """An element of a list or key-value list; a `...` there stands for the rest
        and must come last (p4c: "... must be the last element")."""
        if isinstance(e, ast.DefaultValueExpr):
            if not last:
                raise P4TypeError("... must be the last element", e.loc)
            e.type = DontCareT()  # typed with the rest when the list meets its type
            return
        self.check(e, scope, expected if holds_dots(e) else None)

    def _init_fits(self, expr: ast.Expression, target: Type) -> bool:
        if isinstance(expr, ast.ListExpr):
            if isinstance(target, TupleT):
                elems = target.elems
            elif isinstance(target, StackT) and not isinstance(target.elem, TypeVar):
                # `H[2] s = {h0, {1, 2}}` (spec 8.18): one value per element.
                elems = (target.elem,) * target.size
            elif isinstance(target, StructLike) and not isinstance(target, HeaderUnionT):
                elems = tuple(t for _, t in target.fields)
            else:
                return False
            given = [e for e in expr.elems if not isinstance(e, ast.DefaultValueExpr)]
            if len(given) > len(elems) or (len(given) == len(expr.elems)
                                           and len(elems) != len(expr.elems)):
                raise P4TypeError(
                    f"initializer has {len(expr.elems)} elements, {target} has {len(elems)}",
                    expr.loc)
            for e, t in zip(given, elems, strict=False):
                self.coerce(e, t)
            if len(given) < len(expr.elems):
                self._default_rest(expr.elems[-1], elems[len(given):])
            return True
        assert isinstance(expr, ast.StructInitExpr)
        if not isinstance(target, StructLike):
            return False
        names = [n for n, _ in expr.fields if n != "..."]
        wanted = [n for n, _ in target.fields]
        dots = len(names) < len(expr.fields)
        if (sorted(names) != sorted(wanted) and not dots) or not set(names) <= set(wanted):
            raise P4TypeError(
                f"initializer fields {names} do not match the fields of {target}", expr.loc)
        if dots:
            self._default_rest(expr.fields[-1][1], [t for n, t in target.fields
                                                    if n not in names])
        for name, e in expr.fields[:len(names)]:
            ft = target.field_type(name)
            assert ft is not None
            self.coerce(e, ft)
        return True

    def _default_rest(self, dots: ast.Expression, rest: list[Type]) -> None:
        """The trailing `...` of a list stands for default values of types `rest`."""
        for t in rest:
            if not has_default_value(t):
                raise P4TypeError(f"...: no default value for type {t}", dots.loc)
        dots.type = TupleT(tuple(rest))
