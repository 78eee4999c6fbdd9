"""Typing of P4_16 expressions (spec 8): operators, implicit casts of untyped integers,
member access, and l-values. Calls are typed by `callcheck`."""

from __future__ import annotations

from typing import Any

from . import ast
from .accesscheck import AccessCheckMixin
from .casts import cast_allowed, enum_operand_as_bits
from .consteval import NotConstant, evaluate, overflow_warning
from .constness import is_compile_time_known
from .defaults import ListInitMixin, element_types, holds_dots
from .errors import P4TypeError
from .printer import expr_text
from .scope import MatchKindMember, Scope, TypeParamDecl
from .typeresolve import TypeResolver
from .types import (
    ActionRunT,
    ApplyResultT,
    BitT,
    BoolT,
    DontCareT,
    EnumT,
    ErrorT,
    ExternT,
    HeaderT,
    HeaderUnionT,
    IntT,
    InvalidHeaderT,
    ListT,
    MatchKindT,
    StackT,
    StateT,
    StringT,
    StructLike,
    StructT,
    TableT,
    TupleT,
    Type,
    TypeVar,
    ValueSetT,
    VoidT,
    has_default_value,
    is_header_stack,
)

ARITH = {"+", "-", "*", "/", "%", "|+|", "|-|"}
BITWISE = {"&", "|", "^"}
COMPARE = {"<", ">", "<=", ">="}
MAX_FOLD_WIDTH = 2048  # p4c's maximumWidthSupported


class ExprChecker(AccessCheckMixin, ListInitMixin):
    """Types expressions in a scope; `program` gives access to errors and match kinds."""

    def __init__(self, program: Any) -> None:
        self.program = program
        self.resolver = TypeResolver(self.check)
        self.calls: Any = None  # a callcheck.CallChecker, set by the checker
        # What p4c's mid end rejects (divisions it cannot lower, see _division; a switch
        # in an action or without match_kind exact; a parser applied in a control):
        # reported only for a program with a main, as p4c's mid end sees no code of a
        # program without one.
        self.midend_errors: list[P4TypeError] = []
        self.switch_on_action_run = False  # set while a switch statement's expression is checked
        self.size_query = False  # set while the receiver of `x.minSizeInBits()` is checked
        # p4test's test-only option pragma: a declaration annotated @test_keep_opassign
        # makes p4test keep compound assignments, which its mid end then does not lower
        # to a division it would refuse (p4c's opassign1.p4).
        self.keep_opassign = any(
            ann.name == "test_keep_opassign"
            for decl in program.result.program.decls
            for ann in getattr(decl, "annotations", ()))

    # -- entry points ---------------------------------------------------------------
    def check(self, expr: ast.Expression, scope: Scope, expected: Type | None = None) -> Type:
        t = self._check(expr, scope, expected)
        expr.type = t
        if expected is not None:
            self.coerce(expr, expected)
        return expr.type

    def coerce(self, expr: ast.Expression, target: Type, what: str = "") -> None:
        """Apply P4's implicit conversions of `expr` to `target`, or raise a type error."""
        src = expr.type
        if isinstance(target, TypeVar | DontCareT) and holds_dots(expr):
            raise P4TypeError(f"...: no default value for type {target}", expr.loc)
        if isinstance(target, TypeVar) and isinstance(src, IntT):
            # p4c: `H h = 0;` gives a type variable no width.
            raise P4TypeError(f"{expr_text(expr)}: could not infer a width for type {target}",
                              expr.loc)
        if isinstance(expr, ast.InvalidHeaderExpr):
            if not isinstance(target, HeaderT | HeaderUnionT):
                raise P4TypeError(f"{{#}} is the invalid header or header union, not a value "
                                  f"of type {target}", expr.loc)
            expr.type = target
            return
        if src == target or isinstance(target, TypeVar | DontCareT):
            return
        if isinstance(expr, ast.DontCareExpr):
            expr.type = target
            return
        if isinstance(src, IntT) and isinstance(target, BitT | IntT):
            self._retype_int(expr, target)
            return
        if isinstance(target, IntT) and isinstance(src, BitT) and is_compile_time_known(expr):
            # p4c: a declared `int` is a type variable that a known bit<W>/int<W> value
            # binds (`const int a = 2w1;`, an extern's `int` parameter given an action's
            # bit<8> parameter: issue2444.p4, extern-int-arg1.p4). A run-time value there
            # makes p4c stop with a compiler bug, so bm keeps refusing that.
            return
        if isinstance(src, EnumT) and src.underlying is not None and target == src.underlying:
            return
        if isinstance(expr, ast.ListExpr | ast.StructInitExpr) and self._init_fits(expr, target):
            expr.type = target
            return
        if isinstance(src, StructT | HeaderT) and isinstance(target, StructLike) and (
                src.decl is target.decl and src.fields == target.fields):
            return
        where = f" in {what}" if what else ""
        raise P4TypeError(f"type mismatch{where}: expected {target}, got {src}", expr.loc)

    def _retype_int(self, expr: ast.Expression, target: Type) -> None:
        """An untyped integer expression takes the type its context demands.

        A constant one is folded in arbitrary precision first and converted once, as
        p4c does (spec 8.9.1 leaves it to the implicit cast): its operands stay untyped,
        the value is truncated to the width, with p4c's warning when it does not fit."""
        if isinstance(target, BitT):
            value = self._constant_int(expr)
            if value is not None:
                self.overflow_check(value, target, expr.loc)
                expr.type = target
                return
        expr.type = target
        if isinstance(expr, ast.BinaryExpr) and expr.op not in ("<<", ">>"):
            for side in (expr.left, expr.right):
                if isinstance(side.type, IntT):
                    self._retype_int(side, target)
        elif isinstance(expr, ast.BinaryExpr) and isinstance(expr.left.type, IntT):
            self._retype_int(expr.left, target)
        elif isinstance(expr, ast.UnaryExpr) and isinstance(expr.operand.type, IntT):
            self._retype_int(expr.operand, target)
        elif isinstance(expr, ast.TernaryExpr):
            for side in (expr.then, expr.else_):
                if isinstance(side.type, IntT):
                    self._retype_int(side, target)

    def _constant_int(self, expr: ast.Expression) -> int | None:
        try:
            value = evaluate(expr)
        except NotConstant:
            return None
        return value if isinstance(value, int) and not isinstance(value, bool) else None

    def overflow_check(self, value: int, target: BitT, loc: Any) -> None:
        """Warn, as p4c does, when the constant `value` given the type `target` does not
        fit; the program goes on with the truncated value (consteval.wrap)."""
        message = overflow_warning(value, target)
        if message is not None:
            self.program.warn(message, loc)

    # -- per node kind --------------------------------------------------------------
    def _check(self, expr: ast.Expression, scope: Scope, expected: Type | None) -> Type:
        if isinstance(expr, ast.IntLiteral):
            if expr.width is None:
                return IntT()
            if expr.signed and expr.width == 0:
                raise P4TypeError("width of a signed type cannot be zero", expr.loc)
            t = BitT(expr.width, expr.signed)
            self.overflow_check(expr.value, t, expr.loc)  # `8w300`: p4c warns, truncates
            return t
        if isinstance(expr, ast.BoolLiteral):
            return BoolT()
        if isinstance(expr, ast.StringLiteral):
            return StringT()
        if isinstance(expr, ast.DontCareExpr):
            return expected if expected is not None else DontCareT()
        if isinstance(expr, ast.DefaultExpr):
            return DontCareT()
        if isinstance(expr, ast.DefaultValueExpr):  # `...` as an action's argument
            if expected is None or not has_default_value(expected):
                raise P4TypeError(f"...: no default value for type {expected or 'unknown'}",
                                  expr.loc)
            return expected
        if isinstance(expr, ast.InvalidHeaderExpr):
            return InvalidHeaderT()  # coerce() gives it the header type of its context
        if isinstance(expr, ast.PathExpr):
            return self._path(expr, scope)
        if isinstance(expr, ast.TypeNameExpr):
            return self.resolver.resolve(expr.type_ref, scope)
        if isinstance(expr, ast.MemberExpr):
            return self._member(expr, scope)
        if isinstance(expr, ast.IndexExpr):
            return self._index(expr, scope)
        if isinstance(expr, ast.SliceExpr):
            return self._slice(expr, scope)
        if isinstance(expr, ast.UnaryExpr):
            return self._unary(expr, scope, expected)
        if isinstance(expr, ast.BinaryExpr):
            return self._binary(expr, scope, expected)
        if isinstance(expr, ast.TernaryExpr):
            return self._ternary(expr, scope, expected)
        if isinstance(expr, ast.CastExpr):
            return self._cast(expr, scope)
        if isinstance(expr, ast.MethodCallExpr):
            return self.calls.check_call(expr, scope, expected)
        if isinstance(expr, ast.ConstructorCallExpr):
            return self.calls.check_constructor(expr, scope)
        if isinstance(expr, ast.ListExpr):
            self._dots_need_a_type(expr, expected)
            inner = element_types(expected, len(expr.elems))
            for i, e in enumerate(expr.elems):
                self._check_element(e, scope, inner[i], i == len(expr.elems) - 1)
            return TupleT(tuple(e.type for e in expr.elems))
        if isinstance(expr, ast.StructInitExpr):
            self._dots_need_a_type(expr, expected)
            for i, (name, e) in enumerate(expr.fields):
                ft = expected.field_type(name) if isinstance(expected, StructLike) else None
                self._check_element(e, scope, ft, i == len(expr.fields) - 1)
            if isinstance(expected, StructLike) and self._init_fits(expr, expected):
                # Each field checked against the expected type's (p4c's implicit cast
                # of a key-value list: same field names, each value converts).
                return expected
            return StructT("{...}", None, fields=[(n, e.type) for n, e in expr.fields])
        if isinstance(expr, ast.MaskExpr):
            t = self.check(expr.value, scope, expected)
            self.check(expr.mask, scope, expected if expected is not None else t)
            return t
        if isinstance(expr, ast.RangeExpr):
            t = self.check(expr.low, scope, expected)
            self.check(expr.high, scope, expected if expected is not None else t)
            return t
        raise P4TypeError(f"unsupported expression {type(expr).__name__}", expr.loc)

    def _path(self, expr: ast.PathExpr, scope: Scope) -> Type:
        where = scope.root() if expr.dot_prefix else scope
        decls = where.lookup_all(expr.name)
        if not decls:
            raise P4TypeError(f"'{expr.name}' is not declared", expr.loc)
        decl = decls[0]
        self.resolver.check_not_enclosing(decl, expr)
        expr.decl = decls if len(decls) > 1 else decl
        t = self.decl_value_type(decl, scope)
        if t is None:
            raise P4TypeError(f"'{expr.name}' cannot be used as a value", expr.loc)
        return t

    def decl_value_type(self, decl: Any, scope: Scope) -> Type | None:
        """The type of a name used as an expression."""
        if isinstance(decl, ast.Parameter | ast.VariableDecl | ast.ConstDecl):
            return decl.type_ref.resolved or self.resolver.resolve(decl.type_ref, scope)
        if isinstance(decl, ast.TableDecl):
            return TableT(decl.name, decl)
        if isinstance(decl, ast.InstantiationDecl):
            return decl.type_ref.resolved or self.resolver.resolve(decl.type_ref, scope)
        if isinstance(decl, ast.ValueSetDecl):
            return ValueSetT(decl.name, decl, elem=decl.elem_type.resolved)
        if isinstance(decl, ast.ParserState):
            return StateT(decl.name, decl)
        if isinstance(decl, MatchKindMember):
            return MatchKindT()
        if isinstance(decl, ast.ActionDecl | ast.ExternFunctionDecl | ast.FunctionDecl):
            return self.calls.callable_type(decl)
        if isinstance(decl, TypeParamDecl):
            return decl.bound
        return self.resolver.decl_type(decl, scope)

    def _member(self, expr: ast.MemberExpr, scope: Scope) -> Type:
        base = expr.base
        if isinstance(base, ast.PathExpr | ast.TypeNameExpr):
            enum_t = self._type_base(base, scope)
            if enum_t is not None:
                return self._type_member(enum_t, expr)
        bt = self.check(base, scope)
        if isinstance(bt, StructLike):
            ft = bt.field_type(expr.member)
            if ft is not None:
                return ft
            if expr.member in ("isValid", "setValid", "setInvalid", "minSizeInBits",
                               "minSizeInBytes", "maxSizeInBits", "maxSizeInBytes"):
                raise P4TypeError(f"'{expr.member}' is a method; call it", expr.loc)
            raise P4TypeError(f"{bt} has no field '{expr.member}'", expr.loc)
        if isinstance(bt, StackT) and not is_header_stack(bt):
            raise P4TypeError(f"'{expr.member}' can only be used on header stacks", expr.loc)
        if isinstance(bt, StackT):
            if expr.member in ("next", "last", "lastIndex") and not self.program.in_parser:
                raise P4TypeError(f"'{expr.member}' of a header stack can only be used in a "
                                  "parser", expr.loc)
            if expr.member in ("next", "last"):
                return bt.elem
            if expr.member in ("lastIndex", "size", "nextIndex"):
                return BitT(32)
            raise P4TypeError(f"header stack has no member '{expr.member}'", expr.loc)
        if isinstance(bt, ApplyResultT):
            if expr.member in ("hit", "miss"):
                return BoolT()
            if expr.member == "action_run":
                if not self.switch_on_action_run:
                    raise P4TypeError("action_run is only allowed in switch statements",
                                      expr.loc)
                return ActionRunT(bt.name, bt.decl)
            raise P4TypeError(f"table apply result has no member '{expr.member}'", expr.loc)
        raise P4TypeError(f"cannot access member '{expr.member}' of {bt}", expr.loc)

    def _type_base(self, base: ast.Expression, scope: Scope) -> Type | None:
        """If `base` names a type (enum, error, a header type), return it."""
        if isinstance(base, ast.TypeNameExpr):
            t = self.resolver.resolve(base.type_ref, scope)
            base.type = t
            return t
        assert isinstance(base, ast.PathExpr)
        if base.name == "error" and scope.lookup("error") is None:
            base.type = ErrorT()
            return ErrorT()
        decl = (scope.root() if base.dot_prefix else scope).lookup(base.name)
        if isinstance(decl, ast.EnumDecl | ast.TypedefDecl | ast.HeaderDecl | ast.StructDecl):
            self.resolver.check_not_enclosing(decl, base)
            t = self.resolver.decl_type(decl, scope)
            base.decl = decl
            base.type = t
            return t
        return None

    def _type_member(self, t: Type, expr: ast.MemberExpr) -> Type:
        if isinstance(t, ErrorT):
            if expr.member not in self.program.error_members:
                raise P4TypeError(f"error.{expr.member} is not declared", expr.loc)
            return t
        if isinstance(t, EnumT):
            if expr.member not in t.members:
                raise P4TypeError(f"enum {t.name} has no member '{expr.member}'", expr.loc)
            return t
        raise P4TypeError(f"cannot access member '{expr.member}' of type {t}", expr.loc)

    def _unary(self, expr: ast.UnaryExpr, scope: Scope, expected: Type | None) -> Type:
        t = self.check(expr.operand, scope)
        if expr.op == "!":
            if not isinstance(t, BoolT):
                raise P4TypeError(f"'!' needs a bool operand, got {t}", expr.loc)
            return t
        t = enum_operand_as_bits(expr, "operand")
        if expr.op == "~":
            if isinstance(t, IntT) and isinstance(expected, BitT):
                self._retype_int(expr.operand, expected)
                return expected
            if not isinstance(t, BitT):
                raise P4TypeError(f"'~' needs a bit<W> or int<W> operand, got {t}", expr.loc)
            return t
        if not isinstance(t, BitT | IntT):
            raise P4TypeError(f"'{expr.op}' needs a numeric operand, got {t}", expr.loc)
        return t

    def _unify_numeric(self, expr: ast.BinaryExpr) -> Type:
        lt, rt = expr.left.type, expr.right.type
        if isinstance(lt, IntT) and isinstance(rt, BitT):
            self._retype_int(expr.left, rt)
            return rt
        if isinstance(rt, IntT) and isinstance(lt, BitT):
            self._retype_int(expr.right, lt)
            return lt
        if lt != rt:
            raise P4TypeError(
                f"operands of '{expr.op}' have different types: {lt} and {rt}; add a cast",
                expr.loc)
        return lt

    def _binary(self, expr: ast.BinaryExpr, scope: Scope, expected: Type | None) -> Type:
        op = expr.op
        lt = self.check(expr.left, scope)
        rt = self.check(expr.right, scope)
        if op in ("&&", "||"):
            for side, t in ((expr.left, lt), (expr.right, rt)):
                if not isinstance(t, BoolT):
                    raise P4TypeError(f"'{op}' needs bool operands, got {t}", side.loc)
            return BoolT()
        if all(isinstance(t, BitT | IntT | EnumT) for t in (lt, rt)):
            lt = enum_operand_as_bits(expr, "left")
            rt = enum_operand_as_bits(expr, "right")
        if op in ("<<", ">>"):
            if not isinstance(lt, BitT | IntT):
                raise P4TypeError(f"cannot shift a value of type {lt}", expr.left.loc)
            if not isinstance(rt, BitT | IntT):
                raise P4TypeError(f"shift amount must be an integer, got {rt}", expr.right.loc)
            amount = self._constant_int(expr.right)
            if isinstance(rt, BitT) and rt.signed and amount is None:
                # p4c takes a signed amount only when it is known (and not negative).
                raise P4TypeError("shift amount must be unsigned", expr.right.loc)
            if isinstance(rt, IntT):
                amount = self._const(expr.right, "shift amount of an untyped integer")
            if amount is not None and amount < 0:
                raise P4TypeError("negative shift amount", expr.right.loc)
            self._folded_shift(expr)
            if isinstance(lt, IntT) and amount is None:
                # Spec 8.6: the result width would depend on a run-time value.
                raise P4TypeError("shifting an untyped integer by a non-constant amount: "
                                  "give the left operand a width", expr.loc)
            return lt
        if op == "++":
            if isinstance(lt, StringT) and isinstance(rt, StringT):
                return lt  # p4c concatenates strings (issue4932.p4); both are known
            if isinstance(lt, IntT) or isinstance(rt, IntT):
                raise P4TypeError("operands of '++' need a width; cast untyped integers",
                                  expr.loc)
            if not isinstance(lt, BitT) or not isinstance(rt, BitT):
                raise P4TypeError(f"'++' needs bit<W> or int<W> operands, got {lt} and {rt}",
                                  expr.loc)
            return BitT(lt.width + rt.width, lt.signed)
        if op in ("==", "!="):
            if isinstance(lt, IntT) and isinstance(rt, IntT):
                return BoolT()
            if isinstance(expr.left, ast.StructInitExpr | ast.InvalidHeaderExpr) and isinstance(
                    expr.right, ast.StructInitExpr | ast.InvalidHeaderExpr):
                # p4c: neither side has a struct type to compare by.
                raise P4TypeError(f"{expr_text(expr)}: cannot compare two key-value "
                                  "initializers (or {#}); cast one to its type", expr.loc)
            if isinstance(expr.left, ast.ListExpr | ast.StructInitExpr | ast.InvalidHeaderExpr):
                self.coerce(expr.left, rt)
            elif isinstance(expr.right,
                            ast.ListExpr | ast.StructInitExpr | ast.InvalidHeaderExpr):
                self.coerce(expr.right, lt)
            elif isinstance(lt, BitT | IntT | EnumT) and isinstance(rt, BitT | IntT | EnumT):
                self._unify_numeric(expr)
            elif lt != rt:
                raise P4TypeError(f"cannot compare {lt} with {rt}", expr.loc)
            if isinstance(lt, ApplyResultT | ExternT | TableT | TypeVar | VoidT):
                raise P4TypeError(f"values of type {lt} cannot be compared", expr.loc)
            return BoolT()
        if not isinstance(lt, BitT | IntT) or not isinstance(rt, BitT | IntT):
            side = expr.left if not isinstance(lt, BitT | IntT) else expr.right
            raise P4TypeError(f"'{op}' needs numeric operands, got {side.type}", side.loc)
        t = self._unify_numeric(expr)
        if op in COMPARE:
            return BoolT()
        if op in ("/", "%") and isinstance(t, BitT) and t.signed:
            raise P4TypeError(f"'{op}' is not defined on signed values", expr.loc)
        if op in ("/", "%"):
            self._division(expr)
        if op in ("|+|", "|-|") and isinstance(t, IntT):
            raise P4TypeError(f"'{op}' needs a fixed-width operand", expr.loc)
        return t

    @staticmethod
    def _folded_shift(expr: ast.BinaryExpr) -> None:
        """p4c folds a constant shift only up to its widest value, 2048 bits."""
        try:
            amount, _ = evaluate(expr.right), evaluate(expr.left)
        except NotConstant:
            return
        if isinstance(amount, int) and amount > MAX_FOLD_WIDTH:
            raise P4TypeError(f"compiler only supports widths up to {MAX_FOLD_WIDTH}",
                              expr.loc)

    def _division(self, expr: ast.BinaryExpr) -> None:
        """p4c: `/` and `%` take no negative operand and no zero divisor, and at run time
        only a power-of-two divisor (a shift or a mask); other divisions must fold."""
        if expr.compound and self.keep_opassign:
            return  # p4test keeps `a %= b` whole: neither folding nor its mid end sees a `%`
        what = "division" if expr.op == "/" else "modulo"
        values = []
        for side in (expr.left, expr.right):
            if isinstance(side, ast.UnaryExpr) and side.op == "-" and \
                    isinstance(side.operand, ast.IntLiteral) and side.operand.value > 0:
                # `-1` typed bit<8> folds to 255; p4c rejects the negative literal.
                raise P4TypeError(f"{what} is not defined for negative numbers", side.loc)
            try:
                value = evaluate(side)
            except NotConstant:
                values.append(None)
                continue
            if isinstance(value, int) and value < 0:
                raise P4TypeError(f"{what} is not defined for negative numbers", side.loc)
            values.append(value)
        left, right = values
        if right == 0:
            raise P4TypeError(f"{what} by zero", expr.loc)
        if left is None and (right is None or right & (right - 1)):
            self.midend_errors.append(P4TypeError(
                f"{what} by a value that is not a known power of two could not be evaluated "
                "at compilation time", expr.loc))

    def _ternary(self, expr: ast.TernaryExpr, scope: Scope, expected: Type | None) -> Type:
        ct = self.check(expr.cond, scope)
        if not isinstance(ct, BoolT):
            raise P4TypeError(f"condition of '?:' must be bool, got {ct}", expr.cond.loc)
        a = self.check(expr.then, scope)
        b = self.check(expr.else_, scope)
        if isinstance(expected, StructLike) and any(
                isinstance(e, ast.ListExpr) for e in (expr.then, expr.else_)):
            # p4c: `h = c ? {1, 2} : {3, 4};` converts each list to h's type (issue2487.p4,
            # issue3806.p4); not a key-value initializer.
            for e in (expr.then, expr.else_):
                self.coerce(e, expected)
            return expected
        if isinstance(a, IntT) and isinstance(b, IntT):
            if isinstance(expected, BitT):
                self._retype_int(expr.then, expected)
                self._retype_int(expr.else_, expected)
                return expected
            if self._constant_int(expr) is not None:
                return IntT()  # p4c folds a known condition to one untyped branch
            raise P4TypeError("'?:' with untyped integer branches needs a width", expr.loc)
        if isinstance(a, IntT):
            self.coerce(expr.then, b)
            return b
        if isinstance(b, IntT):
            self.coerce(expr.else_, a)
            return a
        if a != b:
            raise P4TypeError(f"branches of '?:' have different types: {a} and {b}", expr.loc)
        return a

    def _cast(self, expr: ast.CastExpr, scope: Scope) -> Type:
        target = self.resolver.resolve(expr.type_ref, scope)
        # `(S){ 2, ... }`: the cast gives a list's `...` its type.
        src = self.check(expr.expr, scope, target if isinstance(
            expr.expr, ast.ListExpr | ast.StructInitExpr) and holds_dots(expr.expr)
            and not isinstance(target, ListT) else None)
        if isinstance(target, ListT) and isinstance(expr.expr, ast.ListExpr):
            # Only a cast makes a list<T> of `{...}` (p4c: a plain `{...}` is a tuple).
            for e in expr.expr.elems:
                self.coerce(e, target.elem)
            expr.expr.type = target
            return target
        if isinstance(expr.expr, ast.ListExpr | ast.StructInitExpr | ast.InvalidHeaderExpr):
            self.coerce(expr.expr, target)
            return target
        if not cast_allowed(src, target):
            raise P4TypeError(f"cannot cast {src} to {target}", expr.loc)
        if isinstance(target, BoolT) and isinstance(src, IntT) and \
                self._constant_int(expr.expr) not in (0, 1, None):
            raise P4TypeError(f"{expr_text(expr)}: only 0 and 1 can be cast to bool", expr.loc)
        if isinstance(target, BitT) and isinstance(src, BitT | IntT):
            # p4c folds a cast of a constant into a constant of the new type, with the
            # same warning as an implicit conversion when the value does not fit.
            value = self._constant_int(expr.expr)
            if value is not None:
                self.overflow_check(value, target, expr.expr.loc)
        return target

    # -- l-values -------------------------------------------------------------------
    def check_lvalue(self, expr: ast.Expression, what: str) -> None:
        """Raise unless `expr` may be written (spec 6.6: l-values)."""
        node = expr
        while True:
            if isinstance(node, ast.MemberExpr):
                if isinstance(node.base.type, StackT) and node.member == "last":
                    pass
                node = node.base
            elif isinstance(node, ast.IndexExpr | ast.SliceExpr):
                node = node.base
            else:
                break
        if isinstance(node, ast.PathExpr):
            decl = node.decl
            if isinstance(decl, ast.VariableDecl):
                return
            if isinstance(decl, ast.Parameter):
                if decl.direction in ("out", "inout"):
                    return
                raise P4TypeError(
                    f"cannot {what} '{node.name}': it is a read-only "
                    f"{decl.direction or 'directionless'} parameter", expr.loc)
            if isinstance(decl, ast.ConstDecl):
                raise P4TypeError(f"cannot {what} constant '{node.name}'", expr.loc)
        if isinstance(node, ast.MethodCallExpr):
            raise P4TypeError(f"cannot {what} the result of a call", expr.loc)
        raise P4TypeError(f"cannot {what} this expression: it is not an l-value", expr.loc)
