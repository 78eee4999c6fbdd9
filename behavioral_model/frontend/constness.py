"""Which checked expressions are compile-time known, as p4c's type checker decides it.

This is not "has a value bm can fold" (see consteval): p4c also counts names of
instances, enum/error types and directionless parameters as compile-time known, since
their values are fixed when the program is instantiated. p4c requires such an argument
for every directionless parameter of a call other than an action call (its
TypeUnification::unifyCall), e.g. PNA's `send_to_port(PortId_t dest_port)`.
"""

from __future__ import annotations

from typing import Any

from . import ast
from .naming import iter_nodes
from .scope import MatchKindMember
from .types import ErrorT, ExternT

__all__ = ["is_compile_time_known", "directionless_params"]

#: Declarations whose name is compile-time known wherever it is used.
_KNOWN_DECLS = (ast.ConstDecl, ast.InstantiationDecl, ast.EnumDecl, ast.TypedefDecl,
                ast.HeaderDecl, ast.StructDecl, ast.HeaderUnionDecl, MatchKindMember)


def _known_decl(decl: Any) -> bool:
    if isinstance(decl, ast.Parameter):
        # An action's (or a block's constructor's) directionless parameter is bound when
        # the program is configured: p4c counts it as known.
        return not decl.direction
    return isinstance(decl, _KNOWN_DECLS)


def _known_call(call: ast.MethodCallExpr) -> bool:
    target = call.target
    if target is None:
        return False
    if target.const_value is not None:  # minSizeInBits() and friends fold to a number
        return True
    decl = target.decl
    if target.kind != "extern_function" or decl is None:
        return False
    # p4c: a factory (returns an extern), static_assert or a @pure extern function
    # called with known arguments is itself known.
    returns_extern = isinstance(getattr(decl.return_type, "resolved", None), ExternT)
    if not (returns_extern or decl.name == "static_assert" or decl.annotation("pure")):
        return False
    return all(a is None or is_compile_time_known(a) for a in target.args)


def is_compile_time_known(expr: ast.Expression) -> bool:
    """True if p4c would call the (checked) expression a compile-time constant."""
    if isinstance(expr, ast.IntLiteral | ast.BoolLiteral | ast.StringLiteral
                  | ast.TypeNameExpr | ast.DefaultExpr | ast.ConstructorCallExpr
                  | ast.InvalidHeaderExpr | ast.DefaultValueExpr):
        return True
    if isinstance(expr, ast.PathExpr):
        if expr.decl is None:  # `error` itself
            return isinstance(expr.type, ErrorT)
        return _known_decl(expr.decl)
    if isinstance(expr, ast.MemberExpr):
        return is_compile_time_known(expr.base)
    if isinstance(expr, ast.IndexExpr):
        return is_compile_time_known(expr.base) and is_compile_time_known(expr.index)
    if isinstance(expr, ast.SliceExpr):
        return is_compile_time_known(expr.base)
    if isinstance(expr, ast.UnaryExpr):
        return is_compile_time_known(expr.operand)
    if isinstance(expr, ast.BinaryExpr):
        return is_compile_time_known(expr.left) and is_compile_time_known(expr.right)
    if isinstance(expr, ast.TernaryExpr):
        return all(is_compile_time_known(e) for e in (expr.cond, expr.then, expr.else_))
    if isinstance(expr, ast.CastExpr):
        return is_compile_time_known(expr.expr)
    if isinstance(expr, ast.ListExpr):
        return all(is_compile_time_known(e) for e in expr.elems)
    if isinstance(expr, ast.StructInitExpr):
        return all(is_compile_time_known(e) for _, e in expr.fields)
    if isinstance(expr, ast.MaskExpr):
        return is_compile_time_known(expr.value) and is_compile_time_known(expr.mask)
    if isinstance(expr, ast.RangeExpr):
        return is_compile_time_known(expr.low) and is_compile_time_known(expr.high)
    if isinstance(expr, ast.MethodCallExpr):
        return _known_call(expr)
    return False



def directionless_params(expr: ast.Expression) -> list[ast.Parameter]:
    """The directionless parameters ``expr`` reads. p4c counts an action's as known only
    while the action is not called directly: a direct call binds them like `in`
    parameters, so a use that needs them known fails once the call is inlined."""
    return [node.decl for node in iter_nodes(expr) if isinstance(node, ast.PathExpr)
            and isinstance(node.decl, ast.Parameter) and not node.decl.direction]
