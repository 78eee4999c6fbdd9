"""Extern instances with an initializer, `Ext(...) x = { ... };` (P4_16 spec 11.3.1):
the block implements the extern's abstract methods, as TNA's RegisterAction needs
(`apply(inout T value, out U rv)`). An extern with abstract methods cannot be
instantiated without one."""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import ast
from .errors import P4TypeError
from .scope import Scope
from .types import ExternT, Type, TypeVar

if TYPE_CHECKING:
    from .checker import Checker


def check_initializer(checker: Checker, decl: ast.InstantiationDecl, t: Type,
                      scope: Scope) -> None:
    """Every abstract method implemented once, with the method's signature (the
    instance's type arguments substituted; trailing `@optional` parameters may be left
    out), and each body type-checked as a function."""
    abstract = {m.name: m for m in t.decl.methods if m.is_abstract} \
        if isinstance(t, ExternT) else {}
    if decl.initializer is None:
        if abstract:
            raise P4TypeError(f"instance {decl.name} needs an initializer: {t.decl.name} has "
                              f"the abstract method '{next(iter(abstract))}' "
                              "(`= { ... }`, spec 11.3.1)", decl.loc)
        return
    if not isinstance(t, ExternT):
        raise P4TypeError(f"only an extern instance can have an initializer; {t} is "
                          "not an extern", decl.loc)
    bindings = dict(zip(t.decl.type_params, t.type_args, strict=False))
    inner = scope.child("initializer")
    # The methods name their own instance `this` (spec 11.3.1; p4c's issue304-1.p4).
    inner.declare("this", decl, decl.loc)
    done: set[str] = set()
    for d in decl.initializer:
        if isinstance(d, ast.InstantiationDecl):
            checker._instantiation(d, inner)
            continue
        proto = abstract.get(d.name)
        if proto is None:
            raise P4TypeError(f"extern {t.decl.name} has no abstract method '{d.name}'", d.loc)
        if d.name in done:
            raise P4TypeError(f"abstract method '{d.name}' is implemented twice", d.loc)
        done.add(d.name)
        # The signature first, so a wrong one is reported before its body.
        checker.exprs.resolver.resolve(d.return_type, inner)
        for p in d.params:
            checker.exprs.resolver.resolve(p.type_ref, inner)
        _match_abstract(proto, d, bindings)
        checker._function(d, inner)
    # An @optional abstract method may be left out (p4c's issue2273-1.p4).
    missing = sorted(n for n in abstract.keys() - done if not abstract[n].annotation("optional"))
    if missing:
        raise P4TypeError(f"instance {decl.name} does not implement the abstract method "
                          f"'{missing[0]}' of {t.decl.name}", decl.loc)


def _match_abstract(proto: ast.MethodDecl, impl: ast.FunctionDecl,
                    bindings: dict[str, Type]) -> None:
    def concrete(ref: ast.TypeRef | None) -> Type | None:
        resolved = ref.resolved if ref is not None else None
        if isinstance(resolved, TypeVar):
            return bindings.get(resolved.name, resolved)
        return resolved

    required = len(proto.params)
    while required and proto.params[required - 1].annotation("optional"):
        required -= 1
    if not required <= len(impl.params) <= len(proto.params):
        raise P4TypeError(f"{impl.name} has {len(impl.params)} parameters; the abstract "
                          f"method takes {len(proto.params)}", impl.loc)
    want_ret, got_ret = concrete(proto.return_type), impl.return_type.resolved
    if want_ret is not None and got_ret != want_ret:
        raise P4TypeError(f"{impl.name} returns {got_ret}; the abstract method returns "
                          f"{want_ret}", impl.loc)
    for pp, ip in zip(proto.params, impl.params, strict=False):
        if (pp.direction or "") != (ip.direction or ""):
            raise P4TypeError(f"parameter '{ip.name}' of {impl.name} must be "
                              f"{pp.direction or 'directionless'}", ip.loc)
        want = concrete(pp.type_ref)
        if not isinstance(want, TypeVar) and ip.type_ref.resolved != want:
            raise P4TypeError(f"parameter '{ip.name}' of {impl.name} has type "
                              f"{ip.type_ref.resolved}, expected {want}", ip.loc)
