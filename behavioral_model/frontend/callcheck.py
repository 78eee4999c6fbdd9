"""Typing of calls (spec 6.8.1, 8.20): actions, functions, extern functions and methods
with generic type inference, built-in methods of headers, stacks, tables and types."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from . import ast
from .consteval import NotConstant, evaluate
from .constness import directionless_params, is_compile_time_known
from .errors import P4TypeError
from .inference import check_dont_care_args, check_inferred, check_param_type, check_widths
from .midendcheck import EXTERN_CALLS, nested_out_argument
from .naming import iter_nodes
from .overloads import block_overload, pick_overload
from .printer import expr_text
from .scope import Scope, TypeParamDecl
from .types import (
    ActionT,
    ApplyResultT,
    BoolT,
    ControlT,
    DontCareT,
    ExternT,
    FunctionT,
    HeaderT,
    HeaderUnionT,
    IntT,
    PackageT,
    ParserT,
    StackT,
    StructLike,
    TableT,
    TupleT,
    Type,
    TypeVar,
    VarbitT,
    VoidT,
    has_default_value,
    is_header_stack,
    width_of,
)


@dataclass
class CallTarget:
    """What a call invokes, resolved once by the checker for the pipeline compiler.

    kind: 'action', 'function', 'extern_function', 'extern_method', 'table_apply',
    'apply' (a parser/control instance), or 'builtin' (isValid, setValid, setInvalid,
    push_front, pop_front, minSizeInBits, ...). `params` are the callee's parameters with
    `args` aligned to them (None for an omitted optional argument)."""

    kind: str
    name: str
    decl: Any = None
    params: list[ast.Parameter] = field(default_factory=list)
    args: list[ast.Expression | None] = field(default_factory=list)
    bindings: dict[str, Type] = field(default_factory=dict)
    receiver: ast.Expression | None = None
    const_value: int | None = None  # a folded call: minSizeInBits(), static_assert()


SIZE_METHODS = ("minSizeInBits", "minSizeInBytes", "maxSizeInBits", "maxSizeInBytes")


def _fold_static_assert(call: ast.MethodCallExpr) -> None:
    """core.p4's `static_assert(check, message)`, folded as p4c folds it: a false check
    is an error saying the message, a true one is the constant `true` (p4c's
    issue3531.p4: `const bool test = static_assert(...);`)."""
    check, *rest = call.target.args
    try:
        holds = evaluate(check)
    except NotConstant:
        return
    if holds is False:
        message = rest[0].value if rest and isinstance(rest[0], ast.StringLiteral) \
            else "static assertion failed"
        raise P4TypeError(f"{expr_text(call)}: {message}", call.loc)
    call.target.const_value = True


class CallChecker:
    def __init__(self, exprs: Any) -> None:
        self.exprs = exprs
        self.resolver = exprs.resolver
        # Actions called directly, and directionless parameters read by an argument that
        # must be known (with where and what for the error): see check_deferred_known.
        self.direct_actions: dict[int, str] = {}  # id of a parameter: its action
        self.needs_known: list[tuple[ast.Parameter, ast.Expression, str]] = []
        # Left values an extern call writes (out arguments, `x = f(...)`): see midendcheck.
        self.extern_writes: list[ast.Expression] = []

    def callable_type(self, decl: Any) -> Type:
        if isinstance(decl, ast.ActionDecl):
            return ActionT(decl.name, decl)
        return FunctionT(decl.name, decl)

    # -- calls ----------------------------------------------------------------------
    def check_call(self, call: ast.MethodCallExpr, scope: Scope, expected: Type | None) -> Type:
        func = call.func
        if isinstance(func, ast.MemberExpr):
            return self._method_call(call, func, scope, expected)
        if isinstance(func, ast.PathExpr):
            where = scope.root() if func.dot_prefix else scope
            decls = where.lookup_all(func.name)
            if not decls:
                raise P4TypeError(f"'{func.name}' is not declared", func.loc)
            func.decl = decls[0]
            first = decls[0]
            if isinstance(first, ast.ActionDecl):
                if self.exprs.program.in_function:
                    raise P4TypeError(f"{first.name}(): functions cannot call actions", call.loc)
                if call.type_args:
                    raise P4TypeError("type arguments cannot be supplied for an action "
                                      "invocation", call.loc)
                func.type = ActionT(first.name, first)
                self._bind_args(call, first.params, scope, {}, first.name, kind="action")
                self.direct_actions.update((id(p), first.name) for p in first.params)
                call.target.decl = first
                return VoidT()
            if isinstance(first, ast.FunctionDecl | ast.ExternFunctionDecl):
                decl = pick_overload(decls, call, func.name)
                func.type = FunctionT(decl.name, decl)
                kind = "function" if isinstance(decl, ast.FunctionDecl) else "extern_function"
                return self._generic_call(call, decl, scope, {}, kind, expected)
            raise P4TypeError(f"'{func.name}' is not callable", func.loc)
        raise P4TypeError("this expression cannot be called", call.loc)

    def _method_call(self, call: ast.MethodCallExpr, func: ast.MemberExpr, scope: Scope,
                     expected: Type | None) -> Type:
        name = func.member
        base = func.base
        if isinstance(base, ast.PathExpr | ast.TypeNameExpr) and name in SIZE_METHODS:
            t = self.exprs._type_base(base, scope)
            if t is not None:
                return self._size_method(call, t, name)
        self.exprs.size_query = name in SIZE_METHODS
        try:
            bt = self.exprs.check(base, scope)
        finally:
            self.exprs.size_query = False
        func.type = VoidT()
        if name in SIZE_METHODS and (isinstance(bt, StructLike) or width_of(bt) is not None):
            # `h.minSizeInBits()`, and of a bit<W> value too (p4c's minsize.p4)
            return self._size_method(call, bt, name)
        if isinstance(bt, HeaderT | HeaderUnionT) and name in ("isValid", "setValid",
                                                                 "setInvalid"):
            if isinstance(bt, HeaderUnionT) and name != "isValid":
                raise P4TypeError(f"header_union has no method '{name}'", func.loc)
            self._no_args(call, name)
            if name != "isValid":
                self.exprs.check_lvalue(base, f"call {name} on")
            call.target = CallTarget("builtin", name, receiver=base)
            return BoolT() if name == "isValid" else VoidT()
        if is_header_stack(bt) and name in ("push_front", "pop_front"):
            if len(call.args) != 1:
                raise P4TypeError(f"{name} takes one argument", call.loc)
            self.exprs.check(call.args[0].value, scope, IntT())
            self.exprs.check_lvalue(base, f"call {name} on")
            count = self.exprs._const(call.args[0].value, f"argument of {name}")
            if count < 0:
                raise P4TypeError(f"argument of {name} must not be negative", call.loc)
            call.target = CallTarget("builtin", name, receiver=base, args=[call.args[0].value])
            return VoidT()
        if isinstance(bt, TableT) and name == "apply":
            self._no_args(call, "apply")
            call.target = CallTarget("table_apply", bt.name, decl=bt.decl, receiver=base)
            return ApplyResultT(bt.name, bt.decl)
        if isinstance(bt, ExternT):
            return self._extern_method(call, bt, name, scope, expected, base)
        if isinstance(bt, ParserT | ControlT) and name == "apply":
            decl = bt.decl
            params = list(decl.params)
            bindings = dict(zip(getattr(decl, "type_params", []), bt.type_args, strict=False))
            self._bind_args(call, params, scope, bindings, bt.name, kind="apply",
                            type_params=set(getattr(decl, "type_params", [])))
            call.target.decl = decl
            call.target.receiver = base
            return VoidT()
        raise P4TypeError(f"{bt} has no method '{name}'", func.loc)

    def _size_method(self, call: ast.MethodCallExpr, t: Type, name: str) -> Type:
        self._no_args(call, name)
        if isinstance(t, HeaderT):
            bits = t.width_bits() if name.startswith("min") else t.max_width_bits()
        else:
            w = width_of(t)
            if w is None:
                raise P4TypeError(f"{name} is not defined for {t}", call.loc)
            bits = w
        value = bits if name.endswith("Bits") else (bits + 7) // 8
        call.target = CallTarget("builtin", name, const_value=value)
        return IntT()

    def _no_args(self, call: ast.MethodCallExpr, name: str) -> None:
        if call.args:
            raise P4TypeError(f"{name} takes no arguments", call.loc)

    def _extern_method(self, call: ast.MethodCallExpr, et: ExternT, name: str, scope: Scope,
                       expected: Type | None, receiver: ast.Expression) -> Type:
        decl: ast.ExternDecl = et.decl
        methods = [m for m in decl.methods if m.name == name and m.return_type is not None]
        if not methods:
            raise P4TypeError(f"extern {decl.name} has no method '{name}'", call.func.loc)
        method = pick_overload(methods, call, f"{decl.name}.{name}")
        bindings: dict[str, Type] = {}
        for tp, ta in zip(decl.type_params, et.type_args, strict=False):
            bindings[tp] = ta
        t = self._generic_call(call, method, scope, bindings, "extern_method", expected,
                               extra_type_params=tuple(decl.type_params))
        call.target.receiver = receiver
        if decl.name == "packet_in" and name == "extract" and call.args:
            # core.p4: extract fills one header; a union or a stack is filled through
            # one of its members or `next` (spec 12.8.1).
            arg = call.args[0].value
            if not isinstance(arg.type, HeaderT | TypeVar):
                raise P4TypeError(f"extract needs a header, got {arg.type}", arg.loc)
            if len(call.args) == 2 and isinstance(arg.type, HeaderT) and not any(
                    isinstance(t, VarbitT) for _, t in arg.type.fields):
                raise P4TypeError("extract with a size needs a header with a varbit field",
                                  arg.loc)
            if len(call.args) == 2 and isinstance(arg.type, HeaderT) and sum(
                    isinstance(t, VarbitT) for _, t in arg.type.fields) > 1:
                raise P4TypeError(f"{expr_text(arg)}: multiple varbit fields in a header "
                                  "cannot be extracted", arg.loc)
            if len(call.args) == 1 and _has_varbit(arg.type):
                raise P4TypeError(f"{expr_text(arg)}: a header with a varbit field is "
                                  "extracted with its size, extract(h, size)", arg.loc)
        if decl.name == "packet_in" and name == "lookahead" and (
                isinstance(t, VoidT) or _has_varbit(t)):
            # core.p4: lookahead<T> reads sizeof(T) bits, so T has a fixed width.
            raise P4TypeError(f"{t}: type argument of lookahead must be a fixed-width type",
                              call.loc)
        call.target.bindings.setdefault("__extern__", et)
        return t

    def _generic_call(self, call: ast.MethodCallExpr, decl: Any, scope: Scope,
                      bindings: dict[str, Type], kind: str, expected: Type | None,
                      extra_type_params: tuple[str, ...] = ()) -> Type:
        type_params = list(decl.type_params)
        if call.type_args:
            if len(call.type_args) != len(type_params):
                raise P4TypeError(
                    f"{decl.name} takes {len(type_params)} type arguments, "
                    f"got {len(call.type_args)}", call.loc)
            for tp, ta in zip(type_params, call.type_args, strict=False):
                bindings[tp] = self.resolver.resolve(ta, scope)
        self._bind_args(call, decl.params, scope, bindings, decl.name, kind=kind,
                        type_params=set(type_params) | set(extra_type_params))
        call.target.decl = decl
        if decl.return_type is None:
            ret: Type = VoidT()
        else:
            ret = self._param_type(decl.return_type, bindings, scope,
                                   set(type_params) | set(extra_type_params))
        if isinstance(ret, TypeVar):
            if ret.name in bindings:
                ret = bindings[ret.name]
            elif expected is not None:
                bindings[ret.name] = expected
                ret = expected
            else:
                raise P4TypeError(f"cannot infer type argument {ret.name} of {decl.name}",
                                  call.loc)
        check_widths(bindings, type_params, call.target.args, decl.name, call.loc)
        check_dont_care_args(bindings, type_params, decl.params, call.target.args, decl.name)
        if kind == "extern_function" and decl.name == "static_assert":
            _fold_static_assert(call)
        return ret

    def _param_type(self, ref: ast.TypeRef, bindings: dict[str, Type], scope: Scope,
                    type_params: set[str]) -> Type:
        """The type of a callee's parameter: the callee's own type parameters are bound
        or fresh variables, even when a program type has the same name (`header H`)."""
        inner = scope.root().child("type")
        for name in type_params | {n for n in bindings if not n.startswith("__")}:
            bound = bindings.get(name)
            inner.declare(name, TypeParamDecl(name, bound if bound is not None
                                              else TypeVar(name)))
        return self.resolver.resolve(ref, inner)

    def _bind_args(self, call: ast.MethodCallExpr, params: list[ast.Parameter], scope: Scope,
                   bindings: dict[str, Type], name: str, kind: str,
                   type_params: set[str] | None = None) -> None:
        args = call.args
        aligned: list[ast.Expression | None] = [None] * len(params)
        positional = [a for a in args if a.name is None]
        named = [a for a in args if a.name is not None]
        if positional and named:
            raise P4TypeError(f"call of {name} mixes named and positional arguments", call.loc)
        if len(args) > len(params):
            raise P4TypeError(f"{name} takes {len(params)} arguments, got {len(args)}",
                              call.loc)
        for i, a in enumerate(positional):
            aligned[i] = a.value
        for a in named:
            idx = next((i for i, p in enumerate(params) if p.name == a.name), None)
            if idx is None:
                raise P4TypeError(f"{name} has no parameter '{a.name}'", a.loc)
            aligned[idx] = a.value
        for p, a in zip(params, aligned, strict=True):
            if a is None and p.default is None and not p.annotation("optional"):
                raise P4TypeError(f"missing argument for parameter '{p.name}' of {name}",
                                  call.loc)
        # Out and inout arguments fix type variables first: `random(out T x, in T lo, ...)`.
        order = sorted(range(len(params)),
                       key=lambda i: 0 if params[i].direction in ("out", "inout") else 1)
        for i in order:
            p, a = params[i], aligned[i]
            if a is None:
                continue
            pt = self._param_type(p.type_ref, bindings, scope, type_params or set())
            self._check_arg(a, pt, p, scope, bindings, name)
            actual = bindings.get(pt.name, pt) if isinstance(pt, TypeVar) else pt
            check_param_type(actual, a, p, kind)
            if kind in EXTERN_CALLS:
                nested = nested_out_argument(p, actual, name, call)
                if nested is not None:
                    self.exprs.midend_errors.append(nested)
                if p.direction in ("out", "inout"):
                    self.extern_writes.append(a)
            if not p.direction and kind != "action":
                # p4c (TypeUnification::unifyCall): a directionless parameter of anything
                # but an action takes a value fixed at compile time; an action's own
                # directionless parameters count as such (PNA's send_to_port(port)).
                message = (f"argument used for directionless parameter '{p.name}' of "
                           f"{name} must be a compile-time constant")
                if not is_compile_time_known(a):
                    raise P4TypeError(message, a.loc)
                self.needs_known += [(q, a, message) for q in directionless_params(a)]
        call.target = CallTarget(kind, name, params=list(params), args=aligned,
                                 bindings=bindings)

    def _check_arg(self, arg: ast.Expression, pt: Type, p: ast.Parameter, scope: Scope,
                   bindings: dict[str, Type], name: str) -> None:
        what = f"argument '{p.name}' of {name}"
        if isinstance(arg, ast.DontCareExpr):
            if p.direction not in ("out",):
                raise P4TypeError(f"'_' can only be passed to an out parameter ({what})",
                                  arg.loc)
            arg.type = pt
            return
        if isinstance(arg, ast.DefaultValueExpr):
            if p.direction in ("out", "inout"):
                raise P4TypeError(f"...: must be a left-value ({what})", arg.loc)
            if not has_default_value(pt):
                raise P4TypeError(f"...: no default value for type {pt} ({what})", arg.loc)
            arg.type = pt
            return
        at = self.exprs.check(arg, scope, None)
        if p.direction in ("out", "inout"):
            self.exprs.check_lvalue(arg, f"pass as {p.direction} {what}")
        self._unify(pt, arg, at, bindings, what)

    def _unify(self, pt: Type, arg: ast.Expression, at: Type, bindings: dict[str, Type],
               what: str) -> None:
        if isinstance(pt, TypeVar):
            bound = bindings.get(pt.name)
            if bound is None or isinstance(bound, TypeVar):
                if isinstance(arg, ast.StructInitExpr) and isinstance(at, StructLike) and \
                        at.decl is None:
                    # p4c: `{a = x}` names no struct type, so it cannot give one to T.
                    raise P4TypeError(f"{expr_text(arg)}: cannot infer a type for the struct "
                                      f"initializer given for {pt.name} in {what}; cast it "
                                      "to a struct type", arg.loc)
                if bound is None or isinstance(at, TypeVar | DontCareT) or at == bound:
                    bindings[pt.name] = at
                    return
                # Bound to a type variable of the caller (`control c<T>`): that T is one
                # unknown type, which no other type converts to.
                raise P4TypeError(f"type mismatch in {what}: {at} does not convert to "
                                  f"{bound}, a type parameter of the enclosing declaration",
                                  arg.loc)
            pt = bound
        if isinstance(pt, TupleT) and isinstance(at, TupleT):
            if len(pt.elems) != len(at.elems):
                raise P4TypeError(f"type mismatch in {what}: expected {pt}, got {at}", arg.loc)
            if isinstance(arg, ast.ListExpr):
                # `{a, b}` for tuple<T, U>: each element binds or converts to its type.
                for pe, elem in zip(pt.elems, arg.elems, strict=True):
                    self._unify(pe, elem, elem.type, bindings, what)
            return
        if isinstance(pt, DontCareT):
            return
        if isinstance(pt, ExternT) and isinstance(at, ExternT) and pt.decl is at.decl and \
                len(pt.type_args) == len(at.type_args):
            for p, a in zip(pt.type_args, at.type_args, strict=True):
                if isinstance(p, TypeVar) and p.name not in bindings:
                    # `register<T>` given a `register<bit<8>>` (or one of the caller's
                    # own `register<U>`) fixes T.
                    bindings[p.name] = a
        if isinstance(pt, ExternT) and isinstance(at, ExternT) and pt.decl is at.decl and \
                any(isinstance(p, DontCareT) for p in pt.type_args) and \
                len(pt.type_args) == len(at.type_args) and all(
                    isinstance(p, DontCareT) or p == a
                    for p, a in zip(pt.type_args, at.type_args, strict=True)):
            # A don't-care type argument matches any: `Hash<_>` takes every Hash (TNA's
            # ActionSelector).
            return
        if isinstance(pt, PackageT) and isinstance(at, PackageT) and pt.decl is at.decl and \
                pt.type_args and len(pt.type_args) == len(at.type_args):
            for p, a in zip(pt.type_args, at.type_args, strict=True):
                p = bindings.get(p.name, p) if isinstance(p, TypeVar) else p
                if isinstance(p, TypeVar):
                    bindings.setdefault(p.name, a)
                elif not isinstance(p, DontCareT) and p != a and str(p) != str(a):
                    raise P4TypeError(f"type mismatch in {what}: {pt.name} with type "
                                      f"argument {a} given where {p} is expected", arg.loc)
            return
        if isinstance(pt, ParserT | ControlT) and type(at) is type(pt):
            self._match_block(pt, at, bindings, arg, what)
            return
        self.exprs.coerce(arg, pt, what)

    def _match_block(self, proto_t: Any, impl_t: Any, bindings: dict[str, Type],
                     arg: ast.Expression, what: str) -> None:
        """A parser/control declaration given where a parser/control type is expected: the
        parameter lists must agree; the prototype's type variables take the declaration's
        parameter types (this is how V1Switch<H, M> learns H and M)."""
        proto, impl = proto_t.decl, impl_t.decl
        if proto is impl:
            return
        # Trailing `@optional` parameters of the type may be left out (TNA's IngressT and
        # friends: a block declares only the intrinsic metadata it uses), and so may
        # those with a default value (p4c's default-control-argument.p4).
        required = len(proto.params)
        while required and (proto.params[required - 1].annotation("optional")
                            or proto.params[required - 1].default is not None):
            required -= 1
        if not required <= len(impl.params) <= len(proto.params):
            needs = (str(required) if required == len(proto.params)
                     else f"{required} to {len(proto.params)}")
            raise P4TypeError(f"{what}: {impl.name} has {len(impl.params)} parameters, "
                              f"{proto.name} needs {needs}", arg.loc)
        proto_args = dict(zip(proto.type_params, proto_t.type_args, strict=False))
        # A generic declaration (`parser p1<T>(in T a)`) takes its own type arguments, or
        # else the types the prototype gives its parameters (p4c's functors6..9.p4).
        own_params = set(impl.type_params)
        own = dict(zip(impl.type_params, impl_t.type_args, strict=False))
        if own_params and proto.type_params:
            raise P4TypeError(f"{what}: the generic {impl.name} cannot be given for the generic "
                              f"{proto.name} (p4c: their type argument lists differ)", arg.loc)
        for pp, ip in zip(proto.params, impl.params, strict=False):
            # A read-only `in` parameter may implement an `inout` one (p4c accepts it).
            if pp.direction != ip.direction and not (pp.direction == "inout"
                                                      and ip.direction == "in"):
                raise P4TypeError(f"{what}: parameter '{ip.name}' of {impl.name} must be "
                                  f"{pp.direction or 'directionless'}", ip.loc)
            it = ip.type_ref.resolved
            if isinstance(it, TypeVar) and it.name in own_params:
                expected = pp.type_ref.resolved
                if it.name not in own and expected is not None and \
                        not isinstance(expected, TypeVar):
                    own[it.name] = expected
                it = own.get(it.name, it)
            ref = pp.type_ref
            if isinstance(ref, ast.NamedTypeRef) and ref.name in proto.type_params:
                outer = proto_args.get(ref.name)
                if isinstance(outer, TypeVar):
                    bound = bindings.get(outer.name)
                    if bound is None or isinstance(bound, TypeVar):
                        bindings[outer.name] = it
                    elif bound != it:
                        raise P4TypeError(f"{what}: {impl.name} uses {it} where {bound} is "
                                          "expected", ip.loc)
                elif outer is not None and outer != it and not isinstance(outer, DontCareT):
                    # `cproto<_>` takes any type there (p4c's unused.p4)
                    raise P4TypeError(f"{what}: {impl.name} uses {it} where {outer} is "
                                      "expected", ip.loc)
            elif pp.type_ref.resolved is not None and it != pp.type_ref.resolved and \
                    not isinstance(pp.type_ref.resolved, TypeVar):
                raise P4TypeError(f"{what}: parameter '{ip.name}' of {impl.name} has type {it},"
                                  f" expected {pp.type_ref.resolved}", ip.loc)
        missing = [t for t in impl.type_params if t not in own]
        if missing:
            raise P4TypeError(f"{what}: could not infer a type for variable {missing[0]} of "
                              f"{impl.name}", arg.loc)

    def check_deferred_known(self) -> None:
        """After the whole program: an action called directly takes its directionless
        parameters like `in` ones (p4c), so none of them may feed an argument that must
        be known, e.g. `action fwd(PortId_t p) { send_to_port(p); }` with `fwd(1);`."""
        for param, arg, message in self.needs_known:
            action = self.direct_actions.get(id(param))
            if action is not None:
                raise P4TypeError(f"{message}: action {action} is called directly, which "
                                  f"makes its parameter '{param.name}' a run-time value",
                                  arg.loc)

    # -- constructors ---------------------------------------------------------------
    def check_constructor(self, expr: ast.ConstructorCallExpr, scope: Scope) -> Type:
        t = self.resolver.resolve(expr.type_ref, scope)
        if isinstance(t, ExternT) and any(m.is_abstract for m in t.decl.methods):
            # Spec 11.3.1: only an instantiation can give the abstract methods' bodies.
            raise P4TypeError(f"{t.decl.name}: an extern with abstract methods cannot be "
                              "instantiated by a constructor call; declare an instance with "
                              "an initializer", expr.loc)
        t = self.check_constructor_args(t, expr.args, scope, expr)
        expr.type_ref.resolved = t
        return t

    def check_constructor_args(self, t: Type, args: list[ast.Argument], scope: Scope,
                               node: ast.Node) -> Type:
        """Check a constructor call's arguments; returns the instance's type, its type
        arguments inferred from the arguments when left out (`E(16w1)`)."""
        if isinstance(t, ParserT | ControlT | PackageT):
            t = block_overload(t, args, scope, node)
        if isinstance(t, ExternT):
            decl = t.decl
            ctors = [m for m in decl.methods if m.return_type is None]
            fake = ast.MethodCallExpr(func=ast.PathExpr(name=decl.name), args=args, loc=node.loc)
            if not ctors:
                if args:
                    raise P4TypeError(f"extern {decl.name} has no constructor with arguments",
                                      node.loc)
                if decl.type_params and not t.type_args:
                    check_inferred({}, decl.type_params, decl.name, node.loc)
                return t
            ctor = pick_overload(ctors, fake, decl.name)
            for p in ctor.params:
                if isinstance(p.type_ref.resolved, ParserT | ControlT | PackageT):
                    # p4c: an extern is built from values; it cannot hold a parser, a
                    # control or a package.
                    raise P4TypeError(f"'{p.name}': a parameter of the constructor of "
                                      f"extern {decl.name} cannot have type "
                                      f"{p.type_ref.resolved}", p.loc)
            bindings = dict(zip(decl.type_params, t.type_args, strict=False))
            self._bind_args(fake, ctor.params, scope, bindings, decl.name, kind="constructor",
                            type_params=set(decl.type_params))
            if decl.type_params and not t.type_args:
                inferred = check_inferred(bindings, decl.type_params, decl.name, node.loc)
                return ExternT(t.name, decl, type_args=inferred)
            return t
        if isinstance(t, ParserT | ControlT):
            params = getattr(t.decl, "constructor_params", [])
            fake = ast.MethodCallExpr(func=ast.PathExpr(name=t.name), args=args, loc=node.loc)
            # `control c<T>()(T size)` instantiated as `c(8w9)`: the arguments bind T.
            type_params = list(getattr(t.decl, "type_params", []))
            bindings = dict(zip(type_params, t.type_args, strict=False))
            self._bind_args(fake, params, scope, bindings, t.name, kind="constructor",
                            type_params=set(type_params))
            return t
        if hasattr(t, "decl") and isinstance(t.decl, ast.PackageTypeDecl):
            decl = t.decl
            fake = ast.MethodCallExpr(func=ast.PathExpr(name=decl.name), args=args, loc=node.loc)
            bindings = dict(zip(decl.type_params, getattr(t, "type_args", ()), strict=False))
            self._bind_args(fake, decl.params, scope, bindings, decl.name, kind="constructor",
                            type_params=set(decl.type_params))
            named = [{n.name for n in iter_nodes(p.type_ref) if isinstance(n, ast.NamedTypeRef)}
                     for p in decl.params]
            given = set().union(*(n for n, a in zip(named, fake.target.args, strict=True)
                                  if a is not None))
            defaulted = set().union(*(n for n, a, p in zip(named, fake.target.args, decl.params,
                                                            strict=True)
                                      if a is None and p.default is not None))
            unbound = [tp for tp in decl.type_params
                       if tp in defaulted and tp not in bindings and tp not in given]
            if unbound:
                # p4c: a parameter's default value does not fix the package's type
                # arguments; some argument must.
                raise P4TypeError(f"{decl.name}: could not infer a type for type variable "
                                  f"{unbound[0]}; give the type arguments, e.g. "
                                  f"{decl.name}<...>(...)", node.loc)
            inferred = tuple(bindings.get(tp) for tp in decl.type_params)
            if decl.type_params and not getattr(t, "type_args", ()) and all(
                    a is not None and not isinstance(a, TypeVar | DontCareT) for a in inferred):
                # The instance's type carries what its arguments fixed, for a package
                # that takes it (`Switch<tuple<>>(ig1)` needs ig1 an Ingress<tuple<>>).
                return PackageT(t.name, decl, type_args=inferred)
            return t
        raise P4TypeError(f"cannot instantiate {t}", node.loc)


def _has_varbit(t: Type) -> bool:
    """Whether a value of type `t` holds a varbit (its width is not fixed)."""
    if isinstance(t, VarbitT):
        return True
    if isinstance(t, StackT):
        return _has_varbit(t.elem)
    return isinstance(t, StructLike) and any(_has_varbit(ft) for _, ft in t.fields)
