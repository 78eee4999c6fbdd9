"""p4c's mid-end limit on run-time indexes into stacks and arrays in controls.

p4c's HSIndexSimplifier rewrites a statement of a control (its apply block and actions)
that indexes a stack or array `a` of size N with a value not known at compile time into
N copies of the statement, one per constant index; each further run-time index in a copy
multiplies the copies again, so a statement with run-time indexes into arrays of sizes
N1..Nk costs N1*...*Nk - 1 expansions. It stops with "too much expansion from non-const
array indexes" past 1000 in one control (p4c's p4_16_errors/array4.p4). Its local copy
propagation runs first, so a local variable set from an indexed value brings that
value's indexes to the statements that read it. Parsers are not rewritten.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from . import ast
from .constness import is_compile_time_known
from .errors import P4TypeError
from .naming import iter_nodes
from .types import StackT

#: p4c's HSIndexSimplifier's default bound.
MAX_EXPANSION = 1000


def index_expansion_errors(decls: Iterable[ast.Declaration]) -> list[P4TypeError]:
    """The error for each control of `decls` past p4c's bound, as p4test reports it."""
    errors = []
    for decl in decls:
        if not isinstance(decl, ast.ControlDecl):
            continue
        tally = _Tally()
        for local in decl.locals:
            if isinstance(local, ast.ActionDecl):
                tally.statement(local.body)
        tally.statement(decl.body)
        if tally.over is not None:
            errors.append(P4TypeError("too much expansion from non-const array indexes",
                                      tally.over.loc))
    return errors


class _Tally:
    """The expansions of one control's statements, in p4c's order."""

    def __init__(self) -> None:
        self.total = 0
        self.over: ast.Node | None = None
        # Sizes of the run-time indexes a local variable's value was read through.
        self.carried: dict[int, list[int]] = {}

    def statement(self, stmt: ast.Statement | ast.Declaration | None) -> None:
        if isinstance(stmt, ast.BlockStatement):
            for s in stmt.stmts:
                self.statement(s)
        elif isinstance(stmt, ast.VariableDecl):
            if stmt.init is not None:
                self._set(stmt, stmt.init, self._count(stmt, [stmt.init]))
        elif isinstance(stmt, ast.AssignmentStatement):
            sizes = self._count(stmt, [stmt.lhs, stmt.rhs])
            if isinstance(stmt.lhs, ast.PathExpr) and stmt.lhs.decl is not None:
                self._set(stmt.lhs.decl, stmt.rhs, sizes)
        elif isinstance(stmt, ast.MethodCallStatement):
            self._count(stmt, [stmt.call])
        elif isinstance(stmt, ast.IfStatement):
            self._count(stmt, [stmt.cond])
            self.statement(stmt.then)
            self.statement(stmt.else_)
        elif isinstance(stmt, ast.SwitchStatement):
            self._count(stmt, [stmt.expr])
            for case in stmt.cases:
                self.statement(case.body)
        elif isinstance(stmt, ast.ForStatement | ast.ForInStatement):
            self.statement(stmt.body)

    def _set(self, var: ast.Node, value: ast.Expression, sizes: list[int]) -> None:
        """`var` now holds `value`; copy propagation copies only a value without calls."""
        calls = any(isinstance(n, ast.MethodCallExpr) for n in iter_nodes(value))
        self.carried[id(var)] = [] if calls else sizes

    def _count(self, stmt: ast.Node, exprs: list[ast.Expression]) -> list[int]:
        """Add the expansions of `stmt` (reading `exprs`); the sizes of its indexes."""
        sizes: list[int] = []
        for node in iter_nodes(exprs):
            if isinstance(node, ast.IndexExpr) and isinstance(node.base.type, StackT) \
                    and not is_compile_time_known(node.index):
                sizes.append(max(node.base.type.size, 1))
            elif isinstance(node, ast.PathExpr) and node.decl is not None:
                sizes += self.carried.get(id(node.decl), [])
        if sizes:
            self.total += math.prod(sizes) - 1
            if self.total > MAX_EXPANSION and self.over is None:
                self.over = stmt
        return sizes
