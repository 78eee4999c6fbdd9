"""Binding an inlined callee's parameters to its arguments: copy-in and copy-out
(P4_16 spec 6.8), or the argument itself where nothing can tell the difference
(``aliasing``)."""

from __future__ import annotations

from typing import Any

from ..frontend import ast
from ..frontend.types import StackT, StructLike
from .exprgen import strip


class BindGenMixin:
    env: dict[int, str]
    module: Any
    w: Any
    values: Any

    def bind_param(self, p: ast.Parameter, a: ast.Expression | None, by_ref: bool = False,
                   direct: bool = False) -> tuple[ast.Expression, str] | None:
        """Bind a callee parameter to its argument (spec 6.8: copy-in/copy-out).

        The parameter becomes a local: a copy of an `in`/`inout` argument, the default
        value (headers invalid) for `out`. The returned (argument, local) pair is for
        `copy_out` after the body, in parameter order. With `by_ref` (see aliasing) a
        header, struct or stack parameter is the argument itself: the callee writes
        through, an `out` one is reset first. With `direct` (``direct_bindings``) the
        parameter is the caller's variable itself, whatever its type."""
        t = p.type_ref.resolved
        if direct and a is not None:
            code = self.expr(a)
            # a local, or a struct's field (``aliasing.direct_field``) read and
            # written in place
            if all(part.isidentifier() for part in code.split(".")):
                self.env[id(p)] = code
                return None
        if a is None:
            name = self.module.fresh(p.name)
            self.w.line(f"{name} = {self.values.default_expr(t)}")
            self.env[id(p)] = name
            return None
        composite = isinstance(strip(t), StructLike | StackT)
        if composite and by_ref and not isinstance(a, ast.DontCareExpr):
            self.own(a)  # the callee may write through it
            target = self.expr(a)
            if p.direction == "out":
                self.w.line(f"{target}._clear()")
            self.env[id(p)] = target
            return None
        name = self.module.fresh(p.name)
        if p.direction in ("out", "inout") and not isinstance(a, ast.DontCareExpr):
            value = self.copy_if_composite(self.expr(a), a) if p.direction == "inout" \
                else self.values.default_expr(t)
            self.w.line(f"{name} = {value}")
            self.env[id(p)] = name
            return (a, name)
        value = self.expr(a) if not isinstance(a, ast.DontCareExpr) else \
            self.values.default_expr(t)
        if composite:
            value = self.copy_if_composite(value, a)
        self.w.line(f"{name} = {value}")
        self.env[id(p)] = name
        return None

    def bind_params(self, params: list[ast.Parameter], args: list[Any],
                    by_ref: set[int] | None = None, direct: set[int] | None = None
                    ) -> list[tuple[ast.Expression, str]]:
        copies = []
        for i, (p, a) in enumerate(zip(params, args, strict=False)):
            copy = self.bind_param(p, a, by_ref is not None and i in by_ref,
                                   direct is not None and i in direct)
            if copy is not None:
                copies.append(copy)
        return copies

    def copy_out(self, copies: list[tuple[ast.Expression, str]]) -> None:
        for arg, name in copies:
            self.store(arg, name)

    def with_copy_out(self, copies: list[tuple[ast.Expression, str]], body: Any) -> None:
        """Emit `body()`, then the copy-out of `copies`; copy-out also happens when the
        body leaves by `exit` (spec 12.4: exit still copies out), hence try/finally."""
        if not copies:
            body()
            return
        self.w.line("try:")
        with self.w.indent():
            body()
        self.w.line("finally:")
        with self.w.indent():
            self.copy_out(copies)
