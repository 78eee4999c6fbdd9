"""Expressions to Python source (P4_16 spec 8 semantics on the value model of values.py)."""

from __future__ import annotations

from typing import Any

from ..frontend import ast
from ..frontend.consteval import (
    Composite,
    NotConstant,
    evaluate,
    evaluate_composite,
    names_type,
)
from ..frontend.errors import P4TypeError
from ..frontend.types import (
    ActionRunT,
    ApplyResultT,
    BitT,
    BoolT,
    EnumT,
    ErrorT,
    HeaderT,
    HeaderUnionT,
    IntT,
    StackT,
    StringT,
    StructLike,
    TupleT,
    Type,
    strip_newtype,
)
from .values import py_name, shares_zero

strip = strip_newtype


def mask(width: int) -> int:
    return (1 << width) - 1


class ExprGenMixin:
    """Mixed into the pipeline compiler: needs self.w (Writer), self.module, self.env,
    self.values, self.checked, and the statement/extern generators."""

    env: dict[int, str]
    overrides: dict[int, str]  # expressions already evaluated into a local
    checked: Any
    module: Any
    w: Any
    values: Any

    # -- helpers --------------------------------------------------------------------
    def wrap_code(self, code: str, t: Type) -> str:
        """Bring an arbitrary Python int expression back into the range of `t`."""
        t = strip(t)
        if isinstance(t, BitT):
            if t.signed:
                half = 1 << (t.width - 1)
                return f"((({code}) + {half}) & {mask(t.width)}) - {half}"
            return f"(({code}) & {mask(t.width)})"
        return code

    def const_value(self, e: ast.Expression) -> Any:
        try:
            return evaluate(e)
        except NotConstant:
            return None

    def literal(self, value: Any, t: Type) -> str:
        if isinstance(value, bool):
            return "True" if value else "False"
        if isinstance(value, int):
            return str(value)
        if isinstance(value, tuple) and value and value[0] == "error":
            return str(self.checked.error_code(value[1]))
        if isinstance(value, tuple) and value and value[0] == "enum":
            et = strip(t)
            assert isinstance(et, EnumT)
            return str(et.members.index(value[2]))
        if isinstance(value, str):
            return repr(value)
        raise P4TypeError(f"cannot use constant {value!r} here", None)

    # -- expressions ----------------------------------------------------------------
    def expr(self, e: ast.Expression) -> str:
        spilled = self.overrides.get(id(e))
        if spilled is not None:
            return spilled
        t = e.type
        if isinstance(e, ast.IntLiteral | ast.BoolLiteral | ast.StringLiteral | ast.UnaryExpr
                      | ast.BinaryExpr | ast.CastExpr | ast.TernaryExpr | ast.SliceExpr):
            value = self.const_value(e)
            if value is not None and not isinstance(value, tuple):
                return self.literal(value, t)
        if isinstance(e, ast.PathExpr):
            return self._path(e)
        if isinstance(e, ast.MemberExpr):
            return self._member(e)
        if isinstance(e, ast.IndexExpr):
            return self._index(e)
        if isinstance(e, ast.SliceExpr):
            if e.hi is None:  # `x[lo +: w]`, `lo` known at run time only (spec 8.6)
                if getattr(strip_newtype(e.lo.type), "signed", False):
                    raise P4TypeError("bm does not support a slice with a signed run-time "
                                      "index (x[i +: w], i of type int<N>) yet", e.lo.loc)
                return f"(({self.expr(e.base)} >> {self.expr(e.lo)}) & {mask(evaluate(e.width))})"
            hi, lo = evaluate(e.hi), evaluate(e.lo)
            if lo == 0:  # no shift: two opcodes fewer for the low bits
                return f"({self.expr(e.base)} & {mask(hi + 1)})"
            return f"(({self.expr(e.base)} >> {lo}) & {mask(hi - lo + 1)})"
        if isinstance(e, ast.UnaryExpr):
            return self._unary(e)
        if isinstance(e, ast.BinaryExpr):
            return self._binary(e)
        if isinstance(e, ast.TernaryExpr):
            return self._ternary(e)
        if isinstance(e, ast.CastExpr):
            return self._cast(e)
        if isinstance(e, ast.MethodCallExpr):
            return self.call_expr(e)  # type: ignore[attr-defined]
        if isinstance(e, ast.ListExpr | ast.StructInitExpr):
            return self.composite_value(e, t)
        if isinstance(e, ast.DontCareExpr | ast.InvalidHeaderExpr):
            return self.values.default_expr(t)  # `{#}`: a header's zero value is invalid
        if isinstance(e, ast.TypeNameExpr):
            raise P4TypeError("a type cannot be used as a value", e.loc)
        raise P4TypeError(f"unsupported expression {type(e).__name__}", e.loc)

    def _path(self, e: ast.PathExpr) -> str:
        decl = e.decl
        if isinstance(decl, ast.ConstDecl):
            if isinstance(evaluate_composite(decl.value), Composite):
                return self.expr(decl.value)  # a struct or tuple: built as its initializer
            # evaluate(e), not the declared value: an untyped constant used as bit<W>
            # is truncated to W bits (e.type), as p4c converts it.
            return self.literal(evaluate(e), decl.type_ref.resolved)
        code = self.env.get(id(decl))
        if code is None:
            raise P4TypeError(f"'{e.name}' cannot be used here", e.loc)
        return code

    def _member(self, e: ast.MemberExpr) -> str:
        t = e.type
        base_t = strip(e.base.type) if e.base.type is not None else None
        if isinstance(t, ErrorT) and names_type(e.base):
            return str(self.checked.error_code(e.member))
        if isinstance(t, EnumT) and names_type(e.base):
            if t.underlying is not None:
                return str(t.values[e.member])
            return str(t.members.index(e.member))
        if isinstance(base_t, StackT):
            stack = self.expr(e.base)
            if e.member == "next":
                return f"{stack}.elems[{stack}.next_index]"
            if e.member == "last":
                return f"{stack}.elems[{stack}.next_index - 1]"
            if e.member == "lastIndex":
                return f"(({stack}.next_index - 1) & 0xFFFFFFFF)"
            if e.member == "nextIndex":
                return f"{stack}.next_index"
            if e.member == "size":
                return str(base_t.size)
        if isinstance(base_t, ApplyResultT):
            hit_var, action_var = self.apply_table(  # type: ignore[attr-defined]
                e.base, need_hit=e.member in ("hit", "miss"))
            if e.member == "hit":
                return hit_var
            if e.member == "miss":
                return f"(not {hit_var})"
            return action_var
        if isinstance(base_t, StructLike):
            return f"{self.expr(e.base)}.{py_name(e.member)}"
        raise P4TypeError(f"unsupported member access '.{e.member}'", e.loc)

    def _index(self, e: ast.IndexExpr) -> str:
        base_t = strip(e.base.type)
        if isinstance(base_t, TupleT):
            return f"{self.expr(e.base)}[{evaluate(e.index)}]"
        idx = self.const_value(e.index)
        if idx is not None:
            return f"{self.expr(e.base)}.elems[{idx}]"
        # A run-time index may be out of range (or negative for int<W>): reading gives an
        # invalid header and writing goes nowhere, instead of a Python IndexError.
        return f"_stack_elem({self.expr(e.base)}, {self.expr(e.index)})"

    def _unary(self, e: ast.UnaryExpr) -> str:
        v = self.expr(e.operand)
        t = strip(e.type)
        if e.op == "!":
            return f"(not {v})"
        if e.op == "+":
            return v
        if e.op == "-":
            return self.wrap_code(f"-{v}", t)
        if e.op == "~":
            if isinstance(t, BitT) and not t.signed:
                return f"({v} ^ {mask(t.width)})"
            return f"(~{v})"
        raise P4TypeError(f"unsupported operator {e.op}", e.loc)

    def _binary(self, e: ast.BinaryExpr) -> str:
        op = e.op
        if op in ("&&", "||"):
            return self._short_circuit(e, self.expr(e.left))
        a, b = self.ordered([e.left, e.right])
        t = strip(e.type)
        lt = strip(e.left.type)
        if op in ("==", "!=", "<", ">", "<=", ">="):
            return f"({a} {op} {b})"
        if op in ("&", "|", "^"):
            return f"({a} {op} {b})"
        if op in ("+", "-", "*"):
            return self.wrap_code(f"{a} {op} {b}", t)
        if op in ("/", "%"):
            pyop = "//" if op == "/" else "%"
            return self.wrap_code(f"({a} {pyop} {b} if {b} else 0)", t)
        if op in ("|+|", "|-|"):
            assert isinstance(t, BitT)
            lo, hi = ((-(1 << (t.width - 1)), (1 << (t.width - 1)) - 1) if t.signed
                      else (0, mask(t.width)))
            pyop = "+" if op == "|+|" else "-"
            return f"min(max({a} {pyop} {b}, {lo}), {hi})"
        if op == "<<":
            if not isinstance(t, BitT):
                return f"({a} << {b})"
            amount = self.const_value(e.right)
            if amount is not None:
                return "0" if amount >= t.width else self.wrap_code(f"{a} << {amount}", t)
            if _bounded_below(e.right, t.width):
                return self.wrap_code(f"({a} << {b})", t)
            return self.wrap_code(f"({a} << {b} if {b} < {t.width} else 0)", t)
        if op == ">>":
            if isinstance(lt, BitT):
                amount = self.const_value(e.right)
                if amount is not None and amount >= lt.width:
                    return f"(-1 if {a} < 0 else 0)" if lt.signed else "0"
                if amount is None and not _bounded_below(e.right, lt.width):
                    limit = lt.width
                    return f"({a} >> ({b} if {b} < {limit} else {limit}))"
            return f"({a} >> {b})"
        if op == "++":
            if isinstance(t, StringT):  # strings (log_msg's text) join as p4c's do
                return f"({a} + {b})"
            rt = strip(e.right.type)
            assert isinstance(rt, BitT)
            code = f"(({a} << {rt.width}) | ({b} & {mask(rt.width)}))"
            if b == "0":  # `x ++ 0`, as in `state[7:2] ++ EV_SLOT_GOOD`: nothing to OR
                code = f"({a} << {rt.width})"
            elif _bounded_below(e.right, 1 << rt.width):  # a slice is masked already
                code = f"(({a} << {rt.width}) | {b})"
            if isinstance(lt, BitT) and lt.signed:
                code = f"(({a} & {mask(lt.width)}) << {rt.width} | ({b} & {mask(rt.width)}))"
                return self.wrap_code(code, t)
            return code
        raise P4TypeError(f"unsupported operator {op}", e.loc)

    def _captured(self, e: ast.Expression) -> tuple[list[str], str]:
        """Generate `e`, taking back the statements it needed (inlined calls, table
        applications) so the caller can run them only when `e` is evaluated."""
        lines = self.module.lines
        start = len(lines)
        owned = set(self.w.owned[-1])
        code = self.expr(e)
        pre = lines[start:]
        del lines[start:]
        # the statements may run later or not at all: what they owned does not count
        self.w.owned[-1] = owned
        return pre, code

    def ordered(self, exprs: list[ast.Expression]) -> list[str]:
        """Codes of `exprs` evaluated left to right (spec 8.3): when a later operand needs
        statements (an inlined call with side effects), earlier operands are read into
        locals first."""
        codes: list[str] = []
        for e in exprs:
            pre, code = self._captured(e)
            if pre:
                for i, c in enumerate(codes):
                    if not c.lstrip("-").isdigit() and c not in ("True", "False"):
                        tmp = self.module.fresh("ev")
                        self.w.line(f"{tmp} = {c}")
                        codes[i] = tmp
                self.module.lines.extend(pre)
            codes.append(code)
        return codes

    def spill_indexes(self, lvalue: ast.Expression) -> list[int]:
        """Evaluate the run-time stack indexes of an l-value now, into locals; returns
        the keys of `overrides` to drop once the statement is generated."""
        spilled = []
        node = lvalue
        while isinstance(node, ast.MemberExpr | ast.IndexExpr | ast.SliceExpr):
            if isinstance(node, ast.IndexExpr) and self.const_value(node.index) is None:
                tmp = self.module.fresh("ix")
                self.w.line(f"{tmp} = {self.expr(node.index)}")
                self.overrides[id(node.index)] = tmp
                spilled.append(id(node.index))
            node = node.base
        return spilled

    def _replay(self, pre: list[str]) -> None:
        self.module.lines.extend("    " + line for line in pre)

    def _short_circuit(self, e: ast.BinaryExpr, a: str) -> str:
        """Spec 8.5: the right operand of && and || is evaluated only when needed."""
        pre, b = self._captured(e.right)
        py = "and" if e.op == "&&" else "or"
        if not pre:
            return f"({a} {py} {b})"
        tmp = self.module.fresh("sc")
        self.w.line(f"{tmp} = {a}")
        self.w.line(f"if {'' if e.op == '&&' else 'not '}{tmp}:")
        self._replay(pre)
        self.w.line(f"    {tmp} = {b}")
        return tmp

    def _ternary(self, e: ast.TernaryExpr) -> str:
        """Spec 8.5: only the selected branch of ?: is evaluated."""
        cond = self.expr(e.cond)
        pre_t, then = self._captured(e.then)
        pre_e, else_ = self._captured(e.else_)
        if not pre_t and not pre_e:
            return f"({then} if {cond} else {else_})"
        tmp = self.module.fresh("tc")
        self.w.line(f"if {cond}:")
        self._replay(pre_t)
        self.w.line(f"    {tmp} = {then}")
        self.w.line("else:")
        self._replay(pre_e)
        self.w.line(f"    {tmp} = {else_}")
        return tmp

    def _cast(self, e: ast.CastExpr) -> str:
        src = strip(e.expr.type)
        dst = strip(e.type)
        if isinstance(e.expr, ast.ListExpr | ast.StructInitExpr):
            return self.composite_value(e.expr, e.type)
        v = self.expr(e.expr)
        if isinstance(dst, BoolT):
            return f"({v} != 0)" if not isinstance(src, BoolT) else v
        if isinstance(dst, BitT):
            if isinstance(src, BoolT):
                return f"(1 if {v} else 0)"
            if isinstance(src, BitT) and src.width <= dst.width and not src.signed and \
                    not dst.signed:
                return v
            return self.wrap_code(v, dst)
        if isinstance(dst, EnumT) and dst.underlying is not None:
            return self.wrap_code(v, dst.underlying)
        if isinstance(dst, IntT):
            return v
        return v

    # -- composite values -------------------------------------------------------------
    def composite_value(self, e: ast.Expression, t: Type) -> str:
        """A new header/struct/tuple value from `{...}` initializers."""
        t = strip(t)
        if isinstance(t, TupleT):
            elems = e.elems if isinstance(e, ast.ListExpr) else [x for _, x in e.fields]
            return "(" + "".join(c + ", " for c in self.ordered(elems)) + ")"
        if isinstance(t, StackT) and isinstance(e, ast.ListExpr):
            # A stack from `{h0, {1, 2}, ...}`: each element a header of its own.
            codes = self.ordered(e.elems)
            return "_HeaderStack([" + ", ".join(f"({c})._copy()" for c in codes) + "])"
        if isinstance(t, StructLike):
            if isinstance(e, ast.ListExpr):
                pairs = list(zip([f for f, _ in t.fields], e.elems, strict=True))
            else:
                pairs = list(e.fields)
            cls = self.module.constant(self.values.class_for(t), "cls")
            codes = self.ordered([x for _, x in pairs])
            args = ", ".join(f"{py_name(n)}={c}" for (n, _), c in zip(pairs, codes,
                                                                       strict=True))
            valid = ", _valid=True" if isinstance(t, HeaderT) else ""
            return f"_make({cls}{', ' if args else ''}{args}{valid})"
        raise P4TypeError(f"cannot build a value of type {t}", e.loc)

    def copy_if_composite(self, code: str, e: ast.Expression) -> str:
        """Assignment of headers/structs/stacks copies the value (spec 8.x: value semantics)."""
        t = strip(e.type)
        if isinstance(t, StructLike | StackT) and not isinstance(
                e, ast.ListExpr | ast.StructInitExpr | ast.CastExpr | ast.MethodCallExpr):
            return f"{code}._copy()"
        return code

    def shared_zero(self, e: ast.Expression) -> str | None:
        """The global naming the shared zero header or stack that ``e`` (a header or
        stack field of a struct) may hold (values.py), or None if ``e`` is not such a
        field."""
        if isinstance(e, ast.MemberExpr) and shares_zero(e.base.type, e.type):
            return self.module.constant(self.values.shared_zero(strip(e.type))[1], "zero")
        return None

    def own(self, e: ast.Expression) -> None:
        """Before writing into (or through) a header or stack that is a field of a
        struct: if it is still the shared zero, the struct gets a copy of its own
        (values.py).
        A struct is never an element of a stack, so the chain to it is plain fields."""
        chain = []
        node = e
        while isinstance(node, ast.MemberExpr | ast.IndexExpr | ast.SliceExpr):
            if isinstance(node, ast.MemberExpr):
                chain.append(node)
            node = node.base
        for member in reversed(chain):
            zero = self.shared_zero(member)
            if zero is not None:
                code = self.expr(member)
                if self.w.claim(code):
                    self.w.line(f"if {code} is {zero}: {code} = {zero}._copy()")

    def is_union_member(self, e: ast.Expression) -> bool:
        return isinstance(e, ast.MemberExpr) and isinstance(strip(e.base.type), HeaderUnionT)

    def action_run_type(self, t: Type) -> bool:
        return isinstance(t, ActionRunT)


def _bounded_below(e: ast.Expression, limit: int) -> bool:
    """Whether ``e`` is a constant-bounds slice (its code masks it) whose every value
    is below ``limit``: a shift by it needs no guard (``x << s[5:0]`` in bit<64>),
    also through a widening cast, which leaves the value as it is."""
    while isinstance(e, ast.CastExpr):
        src, dst = strip(e.expr.type), strip(e.type)
        if not (isinstance(src, BitT) and isinstance(dst, BitT) and not src.signed
                and not dst.signed and src.width <= dst.width):
            return False
        e = e.expr
    if not isinstance(e, ast.SliceExpr) or e.hi is None:
        return False
    try:
        return (1 << (evaluate(e.hi) - evaluate(e.lo) + 1)) <= limit
    except NotConstant:
        return False


def make_value(cls: type, **fields: Any) -> Any:
    """Construct a header/struct value with some fields set (used by generated code)."""
    obj = cls()
    for k, v in fields.items():
        setattr(obj, k, v)
    return obj
