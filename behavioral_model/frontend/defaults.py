"""Where a `...` (spec 8.26: the default value of a type) gets its type: the list or
key-value list around it, given the type of that list's context."""

from __future__ import annotations

from . import ast
from .types import HeaderUnionT, StackT, StructLike, TupleT, Type, TypeVar


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
