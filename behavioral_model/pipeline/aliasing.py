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

For the same reason (and a function declared at top level sees only its own
parameters too), an argument of a control application or of a top-level function call
that is a variable of the caller (a Python local of the generated code) may be the
parameter itself, whatever its type (``direct_bindings``): no copy in, no copy out,
which is most of the cost of a small control or function applied several times. The
same holds for a scalar field of a struct variable of the caller (``meta.qp_index``,
``direct_field``): the callee reads and writes the field in place. Only fields reached
through structs qualify: a header on the way may be a shared zero (values.py) that must
not be written.
"""

from __future__ import annotations

from typing import Any

from ..frontend import ast
from ..frontend.consteval import NotConstant, evaluate
from ..frontend.naming import BlockInstance, iter_nodes
from ..frontend.types import BitT, BoolT, EnumT, StructT, strip_newtype

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


def direct_bindings(params: list[ast.Parameter], args: list[Any], body: Any) -> set[int]:
    """Indexes of the parameters of an inlined control or top-level function (``body``:
    its declaration or body) that may be bound to their argument, a variable of the
    caller or a scalar field of one (``direct_field``), itself: ``inout`` ones (the
    caller sees the writes at once instead of at the copy-out, which nothing can tell
    apart: the callee reaches the variable through no other name) and ``in`` scalars
    the callee never writes. No other argument may overlap it where either is
    written."""
    safe = by_reference(params, args)
    out = set()
    for i, (p, a) in enumerate(zip(params, args, strict=False)):
        if i not in safe:
            continue
        scalar = isinstance(strip_newtype(p.type_ref.resolved), BitT | BoolT | EnumT)
        if isinstance(a, ast.PathExpr):
            if not isinstance(a.decl, ast.VariableDecl | ast.Parameter):
                continue
        elif not (scalar and direct_field(a)):
            continue
        if p.direction == "inout" or (
                p.direction == "in" and scalar and not _may_write(body, id(p))):
            out.add(i)
    return out


def direct_field(e: Any) -> bool:
    """Whether ``e`` is a field of a struct variable (or parameter) reached through
    structs only (``meta.a`` or ``meta.sub.a``, no header, stack or slice on the way)."""
    if not isinstance(e, ast.MemberExpr):
        return False
    node = e
    while isinstance(node, ast.MemberExpr):
        if not isinstance(strip_newtype(node.base.type), StructT):
            return False
        node = node.base
    return (isinstance(node, ast.PathExpr)
            and isinstance(node.decl, ast.VariableDecl | ast.Parameter))


def _may_write(node: Any, decl_id: int) -> bool:
    """Whether ``node`` may write the variable ``decl_id``: assigned to, or named in
    any call at all (an argument or the receiver), conservatively."""
    return any(_assigns(n, decl_id) or _names_in_call(n, decl_id) for n in iter_nodes(node))


def _rooted_at(e: Any, decl_id: int) -> bool:
    """Whether ``e`` is storage of the variable ``decl_id`` (it or a part of it)."""
    path = storage_path(e) if isinstance(e, ast.Expression) else None
    return path is not None and path[0] == decl_id


def _assigns(node: ast.Node, decl_id: int) -> bool:
    return isinstance(node, ast.AssignmentStatement) and _rooted_at(node.lhs, decl_id)


def _call_args(call: ast.MethodCallExpr) -> list[Any]:
    return [a.value if isinstance(a, ast.Argument) else a for a in call.args]


def _names_in_call(node: ast.Node, decl_id: int) -> bool:
    if not isinstance(node, ast.MethodCallExpr):
        return False
    receiver = node.func.base if isinstance(node.func, ast.MemberExpr) else None
    return any(_rooted_at(e, decl_id) for e in (*_call_args(node), receiver))


def block_may_write(inst: BlockInstance, param: ast.Parameter) -> bool:
    """Whether a control instance may write the storage bound to its parameter
    ``param``, conservatively: ``_may_write``, except that naming it as an ``in``
    argument of an action, function or extern (which gets a copy or only reads it) is
    no write, nor is an ``in`` argument of a nested control's application that may not
    write its own parameter (a composite ``in`` argument is bound by reference,
    ``by_reference``; the front end refuses writes to ``in`` parameters, and this
    does not rely on it)."""
    if not isinstance(inst.decl, ast.ControlDecl):
        return True
    return _block_writes(inst, inst.decl, id(param))


# Call kinds whose ``in`` arguments the callee cannot write back: actions and functions
# get copies of composites (``BindGenMixin.bind_param``), externs only read theirs.
_COPIES_IN = frozenset(("action", "function", "extern_function", "extern_method"))


def _block_writes(inst: BlockInstance, node: Any, decl_id: int) -> bool:
    return any(_assigns(n, decl_id) or _binds_out(n, decl_id)
               or (isinstance(n, ast.MethodCallExpr) and _call_writes(inst, n, decl_id))
               for n in iter_nodes(node))


def _binds_out(node: ast.Node, decl_id: int) -> bool:
    """Whether ``node`` is a table's action with an argument bound in the program
    (``a(meta.x)``) that passes ``decl_id`` to an ``out`` or ``inout`` parameter."""
    if not isinstance(node, ast.ActionRef) or node.decl is None:
        return False
    params = [p for p in node.decl.params if p.direction]
    return any(p.direction != "in" and _rooted_at(a.value, decl_id)
               for p, a in zip(params, node.args, strict=False))


def _call_writes(inst: BlockInstance, call: ast.MethodCallExpr, decl_id: int) -> bool:
    """Whether ``call`` itself may write ``decl_id`` (its arguments' own calls are
    walked by ``_block_writes``)."""
    target = call.target
    if isinstance(call.func, ast.MemberExpr) and _rooted_at(call.func.base, decl_id):
        return True
    named = _call_args(call)
    if target is not None and len(target.args) == len(target.params):
        named = list(target.args)
    for i, e in enumerate(named):
        if not _rooted_at(e, decl_id):
            continue
        if target is None or i >= len(target.params):
            return True
        if target.params[i].direction != "in":
            return True
        if target.kind in _COPIES_IN:
            continue
        if target.kind != "apply":
            return True
        child = inst.applied_by(call)
        if child is None or not isinstance(child.decl, ast.ControlDecl) \
                or _block_writes(child, child.decl, id(child.decl.params[i])):
            return True
    return False
