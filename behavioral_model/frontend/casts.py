"""Explicit casts (spec 8.11): which type converts to which with `(T)e`."""

from __future__ import annotations

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
        return isinstance(dst, BitT) or same_repr
    if isinstance(dst, EnumT) and dst.underlying is not None:
        return isinstance(src, BitT | IntT)
    return False
