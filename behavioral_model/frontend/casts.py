"""Casts (spec 8.11): which type converts to which with `(T)e`, and the implicit cast
of a serializable enum operand that p4c's operators make."""

from __future__ import annotations

from . import ast
from .types import BitT, BoolT, EnumT, IntT, NewT, Type


def cast_allowed(src: Type, dst: Type) -> bool:
    """Explicit casts of spec 8.11."""
    if src == dst:
        return True
    if isinstance(src, NewT):
        return src.base == dst or cast_allowed(src.base, dst)
    if isinstance(dst, NewT):
        # Spec 8.11: a `type` converts from its base type only (an untyped literal too).
        # `type N32 NN32;` converts from N32 and from what N32 converts from.
        return src == dst.base or (not isinstance(src, BitT) or isinstance(dst.base, NewT)) \
            and cast_allowed(src, dst.base)
    if isinstance(src, BitT) and isinstance(dst, BitT):
        # Spec 8.11.1: the width or the signedness changes, not both at once.
        return src.signed == dst.signed or src.width == dst.width
    if isinstance(src, BitT | IntT) and isinstance(dst, BitT | IntT):
        return True
    if isinstance(src, BoolT) and isinstance(dst, BitT) and dst.width == 1 and not dst.signed:
        return True
    if isinstance(dst, BoolT) and isinstance(src, BitT) and src.width == 1 and not src.signed:
        return True
    if isinstance(dst, BoolT) and isinstance(src, IntT):
        return True
    if isinstance(src, EnumT) and src.underlying is not None:
        same_repr = isinstance(dst, EnumT) and dst.underlying == src.underlying
        return dst == src.underlying or same_repr  # p4c: to its own underlying type
    if isinstance(dst, EnumT) and dst.underlying is not None:
        return isinstance(src, BitT | IntT)
    return False


def enum_operand_as_bits(parent: ast.Expression, attr: str) -> Type:
    """p4c's operators take a serializable enum operand as its underlying type: it casts
    the operand implicitly (`e.a + e.b`, `-e`, `e[3:0]`, `e ++ 8w0`, `E1.x == E2.y`,
    `stack[e]`; p4c's enumCast.p4, issue3056.p4, issue3635.p4, issue2726-bmv2.p4).
    The cast is put into the tree, so the pipeline and the constant folder see the
    `bit<W>`/`int<W>` operand they know. Returns the operand's type after that."""
    operand = getattr(parent, attr)
    t = operand.type
    if not (isinstance(t, EnumT) and isinstance(t.underlying, BitT)):
        return t
    bits = t.underlying
    type_ref = ast.BitTypeRef(width=ast.IntLiteral(value=bits.width, loc=operand.loc),
                              signed=bits.signed, resolved=bits, loc=operand.loc)
    cast = ast.CastExpr(type_ref=type_ref, expr=operand, loc=operand.loc)
    cast.type = bits
    setattr(parent, attr, cast)
    return bits
