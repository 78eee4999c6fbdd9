"""Which arguments of an inlined parser/control application may be bound by reference.

P4 passes arguments by copy-in/copy-out (spec 6.8): an `in` or `inout` parameter starts
as a copy of its argument, an `out` one uninitialized (headers invalid), and `out` and
`inout` parameters are copied back, left to right, when the callee returns. Binding a
header/struct/stack parameter to the argument itself (no copies: the common
`sub.apply(hdr, meta)` costs nothing per packet) behaves the same unless the storage
is reachable another way during the call. A parser or control body sees only its own
parameters and locals, so that can only happen through another argument of the same
call that overlaps it, one of the two being written. Actions and functions may also
reach their control's parameters and locals: their composite arguments are copied.
"""

from __future__ import annotations

from typing import Any

from ..frontend import ast
from ..frontend.consteval import NotConstant, evaluate

ANY = object()  # a run-time index (or a stack's next/last): may be any element


def storage_path(e: ast.Expression | None) -> tuple[int, tuple[Any, ...]] | None:
    """(id of the root declaration, field names and indexes from it) of an l-value;
    None for a value that is not stored anywhere (a literal, a call's result...)."""
    parts: list[Any] = []
    node = e
    while True:
        if isinstance(node, ast.MemberExpr):
            parts.append(ANY if node.member in ("next", "last") else node.member)
            node = node.base
        elif isinstance(node, ast.IndexExpr):
            try:
                parts.append(evaluate(node.index))
            except NotConstant:
                parts.append(ANY)
            node = node.base
        elif isinstance(node, ast.SliceExpr):
            parts.clear()  # bits of a field: the whole field counts
            node = node.base
        else:
            break
    if not isinstance(node, ast.PathExpr) or node.decl is None:
        return None
    return id(node.decl), tuple(reversed(parts))


def _overlap(a: tuple[int, tuple[Any, ...]], b: tuple[int, tuple[Any, ...]]) -> bool:
    if a[0] != b[0]:
        return False
    return all(x == y or x is ANY or y is ANY for x, y in zip(a[1], b[1], strict=False))


def by_reference(params: list[ast.Parameter], args: list[Any]) -> set[int]:
    """Indexes of the parameters of a parser/control application that may be bound to
    their argument directly: no other argument overlaps theirs where either is written."""
    paths = [storage_path(a) if isinstance(a, ast.Expression) else None for a in args]
    written = [p.direction in ("out", "inout") for p in params]
    safe = set()
    for i, path in enumerate(paths):
        if path is None or not any(
                other is not None and j != i and (written[i] or written[j])
                and _overlap(path, other) for j, other in enumerate(paths)):
            safe.add(i)
    return safe
