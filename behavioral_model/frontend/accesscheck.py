"""Typing of indexing and slicing (P4_16 spec 8.6, 8.18): `stack[i]`, `tuple[i]`,
`x[hi:lo]` and the indexed slice `x[lo +: w]`. A mixin of exprcheck.ExprChecker, whose
`check` types the operands."""

from __future__ import annotations

from typing import Any

from . import ast
from .casts import enum_operand_as_bits
from .consteval import NotConstant, evaluate
from .errors import P4TypeError
from .scope import Scope
from .types import BitT, IntT, StackT, TupleT, Type


class AccessCheckMixin:
    check: Any  # ExprChecker.check
    size_query: bool  # ExprChecker's: set while the receiver of `x.minSizeInBits()` is typed

    def _index(self, expr: ast.IndexExpr, scope: Scope) -> Type:
        bt = self.check(expr.base, scope)
        self.check(expr.index, scope)
        it = enum_operand_as_bits(expr, "index")
        if not isinstance(it, BitT | IntT):
            raise P4TypeError(f"index must be an integer, got {it}", expr.index.loc)
        if isinstance(bt, StackT):
            try:
                idx = evaluate(expr.index)
            except NotConstant:
                return bt.elem
            if not 0 <= idx < bt.size and not self.size_query:
                # p4c folds `h[5].minSizeInBits()` first: only the type counts there.
                raise P4TypeError(f"index {idx} out of bounds for stack of size {bt.size}",
                                  expr.index.loc)
            return bt.elem
        if isinstance(bt, TupleT):
            idx = self._const(expr.index, "tuple index")
            if not 0 <= idx < len(bt.elems):
                raise P4TypeError(f"tuple index {idx} out of bounds", expr.index.loc)
            return bt.elems[idx]
        raise P4TypeError(f"cannot index a value of type {bt}", expr.loc)

    def _slice(self, expr: ast.SliceExpr, scope: Scope) -> Type:
        self.check(expr.base, scope)
        bt = enum_operand_as_bits(expr, "base")
        if expr.width is not None:
            width_t = self._indexed_slice(expr, bt, scope)
            if width_t is not None:
                return width_t
        self.check(expr.hi, scope)
        self.check(expr.lo, scope)
        hi, lo = self._const(expr.hi, "slice bound"), self._const(expr.lo, "slice bound")
        if hi < lo:
            raise P4TypeError(f"slice [{hi}:{lo}]: high bound below low bound", expr.lo.loc)
        if isinstance(bt, IntT):
            return BitT(hi - lo + 1)
        if not isinstance(bt, BitT):
            raise P4TypeError(f"cannot slice a value of type {bt}", expr.loc)
        if lo < 0 or hi >= bt.width:
            bound = expr.hi if hi >= bt.width else expr.lo
            raise P4TypeError(f"slice [{hi}:{lo}] out of range for {bt}", bound.loc)
        return BitT(hi - lo + 1)

    def _indexed_slice(self, expr: ast.SliceExpr, bt: Type, scope: Scope) -> Type | None:
        """`base[lo +: w]` (spec 8.6): `w` is a positive compile-time width, `lo` an
        integer. A known `lo` makes it the plain slice `base[lo+w-1:lo]`, left to the
        caller (None); a run-time `lo` gives `bit<w>` of a `bit<W>` base, as p4c has it
        even when `w` exceeds `W`."""
        assert expr.width is not None
        self.check(expr.width, scope)
        width = self._const(expr.width, "slice width")
        if width <= 0:
            raise P4TypeError(f"slice width must be positive, got {width}", expr.width.loc)
        self.check(expr.lo, scope)
        lo_t = enum_operand_as_bits(expr, "lo")
        if not isinstance(lo_t, IntT | BitT):
            raise P4TypeError(f"slice index must be an integer, got {lo_t}", expr.lo.loc)
        try:
            lo = evaluate(expr.lo)
        except NotConstant:
            lo = None
        if lo is not None:
            expr.hi = ast.IntLiteral(value=lo + width - 1, loc=expr.lo.loc)
            expr.width = None
            return None
        if not isinstance(bt, BitT):
            raise P4TypeError(f"cannot slice a value of type {bt}", expr.loc)
        return BitT(width)

    def _const(self, expr: ast.Expression, what: str) -> int:
        try:
            v = evaluate(expr)
        except NotConstant:
            raise P4TypeError(f"{what} must be a compile-time constant", expr.loc) from None
        if not isinstance(v, int) or isinstance(v, bool):
            raise P4TypeError(f"{what} must be an integer", expr.loc)
        return v
