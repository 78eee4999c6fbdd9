"""What p4c requires of the type variables a call or an instantiation binds (p4c's
`BindTypeVariables` and the argument checks of `TypeInference` on method calls).

A type variable must end up bound to a type a P4 program could write: not `int` (an
untyped literal such as `f(5)` for `f<T>(in T x)` has no width; p4c: "could not infer
a width"), and, for an extern instance whose type arguments are left out, bound at all
(p4c: "could not infer a type for variable"). A parameter whose type becomes `_` or a
table, action, parser, control or package cannot take an argument."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from . import ast
from .errors import P4TypeError, SourceLocation
from .printer import expr_text
from .types import (
    ActionT,
    ControlT,
    DontCareT,
    IntT,
    PackageT,
    ParserT,
    StringT,
    TableT,
    TupleT,
    Type,
    TypeVar,
)


def has_int(t: Type | None) -> bool:
    """Whether `t` is `int` or a tuple holding one (p4c's HasInfInt)."""
    if isinstance(t, IntT):
        return True
    return isinstance(t, TupleT) and any(has_int(e) for e in t.elems)


def check_widths(bindings: dict[str, Type], type_params: Iterable[str],
                 args: Sequence[ast.Expression | None], name: str,
                 loc: SourceLocation | None) -> None:
    """Each of `type_params` bound by a call of `name` has a width: `int` is no P4 type
    a type variable can stand for (spec 8.5: an integer literal without a width takes its
    type from the context, and a type variable gives none)."""
    for tp in type_params:
        if not has_int(bindings.get(tp)):
            continue
        culprit = next((a for a in args if a is not None and has_int(a.type)), None)
        where = culprit.loc if culprit is not None else loc
        what = expr_text(culprit) if culprit is not None else name
        raise P4TypeError(f"{what}: could not infer a width for type variable {tp} of "
                          f"{name}; give the value a type, e.g. 8w5 or (bit<8>)5", where)


def check_dont_care_args(bindings: dict[str, Type], type_params: Sequence[str],
                         params: Sequence[ast.Parameter],
                         args: Sequence[ast.Expression | None], name: str) -> None:
    """`_` passed for a parameter of type `T` leaves `T` to the other arguments: if none
    binds it (`extract(_)`), T has no type (p4c: "could not infer a type for variable")."""
    for p, a in zip(params, args, strict=False):
        ref = p.type_ref
        if not isinstance(a, ast.DontCareExpr) or not isinstance(ref, ast.NamedTypeRef) \
                or ref.name not in type_params:
            continue
        bound = bindings.get(ref.name)
        if bound is None or isinstance(bound, TypeVar):
            raise P4TypeError(f"{name}(_): could not infer a type for type variable "
                              f"{ref.name}; pass a typed value", a.loc)


def check_inferred(bindings: dict[str, Type], type_params: Sequence[str], name: str,
                   loc: SourceLocation | None) -> tuple[Type, ...]:
    """The type arguments of an extern instance declared without them (`E(16w1) e;`),
    each inferred from the constructor's arguments."""
    inferred = []
    for tp in type_params:
        t = bindings.get(tp)
        if t is None or isinstance(t, TypeVar):
            raise P4TypeError(f"{name}: could not infer a type for type variable {tp}; "
                              f"give the type arguments, e.g. {name}<bit<8>>(...)", loc)
        inferred.append(t)
    check_widths(bindings, type_params, [], name, loc)
    return tuple(inferred)


def check_param_type(pt: Type, arg: ast.Expression, param: ast.Parameter, kind: str) -> None:
    """A parameter's type after substitution: not `_` (an extern instance `E<_>` leaves
    its methods' `T` parameters without a type), and only a constructor takes a parser,
    control or package; nothing takes a table or an action."""
    if isinstance(pt, StringT) and param.direction:
        raise P4TypeError(f"{expr_text(arg)}: a parameter with type string cannot have a "
                          f"direction ('{param.name}' is {param.direction})", arg.loc)
    if isinstance(pt, DontCareT):
        raise P4TypeError(f"{expr_text(arg)}: could not infer a type for parameter "
                          f"'{param.name}' (its type is don't care '_')", arg.loc)
    at = getattr(arg, "type", None)
    block = isinstance(at, ParserT | ControlT | PackageT)
    if isinstance(at, TableT | ActionT) or (block and kind != "constructor"):
        raise P4TypeError(f"{expr_text(arg)}: argument cannot have type {at}", arg.loc)
