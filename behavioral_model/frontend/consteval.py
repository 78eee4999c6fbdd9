"""Compile-time evaluation of constant expressions (P4_16 spec 18: compile-time known values).

Widths, stack sizes, table entries and select labels must be known at compile time; this
module folds literals, constants, enum members and operators over them.
"""

from __future__ import annotations

from typing import Any

from . import ast
from .types import BitT, BoolT, EnumT, ErrorT, IntT, MatchKindT, StringT, StructLike, Type


class NotConstant(Exception):
    """The expression depends on run-time values."""


class StructValue(dict):
    """The value of a constant struct or header (`{a = 1, b = 2}`): field name to value."""


class TupleValue(tuple):
    """The value of a constant tuple (`{1, 2}`)."""


#: The values of constants of struct, header or tuple type.
Composite = StructValue | TupleValue


def wrap(value: int, t: Type | None) -> int:
    """Reduce an integer to the range of a fixed-width type (two's complement for int<W>)."""
    if isinstance(t, BitT):
        mask = (1 << t.width) - 1
        value &= mask
        if t.signed and t.width and value >> (t.width - 1):
            value -= 1 << t.width
    return value


def overflow_warning(value: int, t: BitT) -> str | None:
    """What p4c says when it gives the constant `value` the type `t` and the value does
    not fit (it then truncates, as `wrap` does), or None when it fits."""
    # Python will not print a decimal of more than 4300 digits: show such a value in hex.
    text = str(value) if value.bit_length() < 10_000 else hex(value)
    if t.signed:
        if t.width and not -(1 << (t.width - 1)) <= value < (1 << (t.width - 1)):
            return f"{text}: signed value does not fit in {t.width} bits"
        return None
    if value < 0:
        return f"{text}: negative value with unsigned type"
    if value >> t.width:
        return f"{text}: value does not fit in {t.width} bits"
    return None


def evaluate(expr: ast.Expression, errors: list[str] | None = None) -> Any:
    """Value of a constant scalar expression: int, bool, str, or ('error', name)/('enum',
    T, name)/('match_kind', name). A field of a constant struct or an element of a
    constant tuple counts; the struct or tuple itself does not (see evaluate_composite).

    Uses the checker's `type` annotations for widths when present; raises NotConstant.
    """
    value = evaluate_composite(expr, errors)
    if isinstance(value, Composite):
        raise NotConstant("a struct or tuple value")
    return value


def evaluate_composite(expr: ast.Expression, errors: list[str] | None = None) -> Any:
    """Value of a constant expression, a struct (StructValue) or tuple (TupleValue) too."""
    t = expr.type
    if isinstance(expr, ast.IntLiteral):
        return wrap(expr.value, t if t is not None else _literal_type(expr))
    if isinstance(expr, ast.BoolLiteral):
        return expr.value
    if isinstance(expr, ast.StringLiteral):
        return expr.value
    if isinstance(expr, ast.DefaultValueExpr):  # `...` of a scalar type (spec 8.26)
        if isinstance(t, BitT | IntT):
            return 0
        if isinstance(t, BoolT):
            return False
        if isinstance(t, StringT):
            return ""
        raise NotConstant("the default value of a composite type")
    if isinstance(expr, ast.PathExpr):
        decl = expr.decl
        if isinstance(decl, ast.ConstDecl):
            return wrap(_as_int(evaluate_composite(decl.value, errors)), t) if isinstance(
                t, BitT
            ) else evaluate_composite(decl.value, errors)
        if isinstance(t, MatchKindT):
            return ("match_kind", expr.name)
        raise NotConstant(expr.name)
    if isinstance(expr, ast.MemberExpr) and names_type(expr.base):
        if isinstance(t, ErrorT):
            return ("error", expr.member)
        if isinstance(t, EnumT):
            if t.underlying is not None and expr.member in t.values:
                return t.values[expr.member]
            return ("enum", t.name, expr.member)
        raise NotConstant(expr.member)
    if isinstance(expr, ast.CastExpr):
        inner = evaluate_composite(expr.expr, errors)
        if isinstance(t, BoolT):
            return bool(_as_int(inner))
        if isinstance(t, BitT):
            return wrap(_as_int(inner), t)
        return inner
    if isinstance(expr, ast.UnaryExpr):
        v = evaluate_composite(expr.operand, errors)
        if expr.op == "!":
            return not v
        if expr.op == "-":
            return wrap(-_as_int(v), t)
        if expr.op == "+":
            return v
        if expr.op == "~":
            if isinstance(t, BitT):
                return wrap(~_as_int(v), t)
            raise NotConstant("~ on int")
    if isinstance(expr, ast.BinaryExpr):
        return _binary(expr, evaluate_composite(expr.left, errors),
                       evaluate_composite(expr.right, errors), t)
    if isinstance(expr, ast.TernaryExpr):
        c = evaluate_composite(expr.cond, errors)
        chosen = evaluate_composite(expr.then if c else expr.else_, errors)
        # An untyped branch takes the width of the whole expression.
        return wrap(chosen, t) if isinstance(chosen, int) and not isinstance(
            chosen, bool) else chosen
    if isinstance(expr, ast.SliceExpr):
        v = _as_int(evaluate_composite(expr.base, errors))
        if expr.hi is None:  # `v[lo +: w]` with a run-time `lo`
            raise NotConstant("an indexed slice")
        hi = _as_int(evaluate_composite(expr.hi, errors))
        lo = _as_int(evaluate_composite(expr.lo, errors))
        return (v >> lo) & ((1 << (hi - lo + 1)) - 1)
    if isinstance(expr, ast.MethodCallExpr):
        value = getattr(expr.target, "const_value", None)
        if value is not None:
            return wrap(value, t)
    if isinstance(expr, ast.ListExpr | ast.StructInitExpr):
        return _composite(expr, errors)
    if isinstance(expr, ast.MemberExpr):
        base = evaluate_composite(expr.base, errors)
        if isinstance(base, StructValue) and expr.member in base:
            return base[expr.member]
    if isinstance(expr, ast.IndexExpr):
        base = evaluate_composite(expr.base, errors)
        index = _as_int(evaluate_composite(expr.index, errors))
        if isinstance(base, TupleValue) and 0 <= index < len(base):
            return base[index]
    raise NotConstant(type(expr).__name__)


def _composite(expr: ast.ListExpr | ast.StructInitExpr, errors: list[str] | None) -> Composite:
    """`{...}` of constants: a struct's fields by name (a list initializer of a struct type
    names them in declaration order), or a tuple's elements."""
    t = expr.type
    if isinstance(expr, ast.StructInitExpr):
        return StructValue((name, evaluate_composite(e, errors)) for name, e in expr.fields)
    values = [evaluate_composite(e, errors) for e in expr.elems]
    if isinstance(t, StructLike) and len(t.fields) == len(values):
        return StructValue(zip([name for name, _ in t.fields], values, strict=True))
    return TupleValue(values)


def names_type(base: ast.Expression) -> bool:
    """True for the `E` of `E.member` when E names a type (enum, error), not a value."""
    if isinstance(base, ast.TypeNameExpr):
        return True
    if isinstance(base, ast.PathExpr):
        if isinstance(base.decl, ast.EnumDecl | ast.TypedefDecl | ast.NewTypeDecl):
            return True
        return base.name == "error" and base.decl is None
    return False


def _literal_type(lit: ast.IntLiteral) -> Type:
    return IntT() if lit.width is None else BitT(lit.width, lit.signed)


def _as_int(v: Any) -> int:
    if isinstance(v, bool):
        return int(v)
    if isinstance(v, int):
        return v
    raise NotConstant(str(v))


def _binary(expr: ast.BinaryExpr, a: Any, b: Any, t: Type | None) -> Any:
    op = expr.op
    if op == "&&":
        return bool(a) and bool(b)
    if op == "||":
        return bool(a) or bool(b)
    if op in ("==", "!="):
        if isinstance(a, StructValue) or isinstance(b, StructValue):
            # p4c folds the comparison of constant tuples, not of constant structs.
            raise NotConstant("comparison of structs")
        return (a == b) == (op == "==")
    if op == "++" and isinstance(a, str) and isinstance(b, str):
        return a + b  # string concatenation, as p4c folds it
    a_i, b_i = _as_int(a), _as_int(b)
    lt = expr.left.type
    if op == "<":
        return a_i < b_i
    if op == ">":
        return a_i > b_i
    if op == "<=":
        return a_i <= b_i
    if op == ">=":
        return a_i >= b_i
    if op == "++":
        rw = expr.right.type.width if isinstance(expr.right.type, BitT) else 0
        unsigned_b = b_i & ((1 << rw) - 1)
        return wrap((a_i << rw) | unsigned_b, t)
    if op in ("|+|", "|-|") and isinstance(t, BitT):
        raw = a_i + b_i if op == "|+|" else a_i - b_i
        lo, hi = (-(1 << (t.width - 1)), (1 << (t.width - 1)) - 1) if t.signed else (
            0, (1 << t.width) - 1)
        return min(max(raw, lo), hi)
    if op == "/":
        if b_i == 0:
            raise NotConstant("division by zero")
        return wrap(a_i // b_i, t)
    if op == "%":
        if b_i == 0:
            raise NotConstant("division by zero")
        return wrap(a_i % b_i, t)
    ops = {
        "+": lambda: a_i + b_i, "-": lambda: a_i - b_i, "|+|": lambda: a_i + b_i,
        "|-|": lambda: a_i - b_i, "*": lambda: a_i * b_i, "&": lambda: a_i & b_i,
        "|": lambda: a_i | b_i, "^": lambda: a_i ^ b_i, "<<": lambda: a_i << b_i,
        ">>": lambda: a_i >> b_i,
    }
    if op in ops:
        result = ops[op]()
        if op == ">>" and isinstance(lt, BitT) and not lt.signed:
            result = (a_i & ((1 << lt.width) - 1)) >> b_i
        return wrap(result, t)
    raise NotConstant(op)
