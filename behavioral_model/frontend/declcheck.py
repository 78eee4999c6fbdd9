"""Rules p4c applies to parameter lists and struct fields, beyond their types resolving:
distinct names (p4c's ResolveReferences), what a parameter may be (TypeInference's
checkParameters and its Parameter, P4Action and Type_Struct rules, CheckNamedArgs)."""

from __future__ import annotations

from collections.abc import Sequence

from . import ast
from .errors import P4TypeError
from .scope import Scope
from .types import (
    BitT,
    BoolT,
    ControlT,
    ExternT,
    IntT,
    NewT,
    PackageT,
    ParserT,
    StringT,
    Type,
    has_default_value,
    strip_newtype,
)

__all__ = ["always_returns", "check_distinct", "check_extern_methods", "check_instance_place",
           "check_newtype", "check_params", "check_struct_fields", "check_typedef",
           "check_variable_type"]


def check_distinct(type_params: Sequence[str], *param_lists: Sequence[ast.Parameter]) -> None:
    """Type parameters and (apply and constructor) parameters share one name space."""
    seen = set(type_params)
    for params in param_lists:
        for p in params:
            if p.name in seen:
                raise P4TypeError(f"duplicate declaration of '{p.name}'", p.loc)
            seen.add(p.name)


def check_params(params: Sequence[ast.Parameter], kind: str) -> None:
    """``kind``: "apply" (of a parser or control, or its type), "action", "method" (an
    extern method or function), "function", "constructor" (of a parser or control) or
    "package" (a package's constructor)."""
    for p in params:
        t = p.type_ref.resolved
        if isinstance(t, ExternT | StringT) and p.direction:
            raise P4TypeError(f"'{p.name}': a parameter with type {t} cannot have a "
                              "direction", p.loc)
        if isinstance(t, ParserT | ControlT) and (
                kind in ("apply", "action") or p.direction
                or isinstance(t.decl, ast.ParserDecl | ast.ControlDecl)):
            raise P4TypeError(f"'{p.name}': parameter cannot have type {t}", p.loc)
        if kind == "action" and isinstance(t, ExternT):
            raise P4TypeError(f"'{p.name}': action parameters cannot have extern types",
                              p.loc)
        if isinstance(t, IntT) and (p.direction or kind == "action"):
            where = "actions cannot have" if kind == "action" else "must be directionless:"
            raise P4TypeError(f"'{p.name}': {where} parameters with type int", p.loc)
        optional = p.annotation("optional") is not None
        if optional and kind in ("constructor", "function"):
            raise P4TypeError(f"'{p.name}': optional parameter not allowed here", p.loc)
        if p.default is not None and optional:
            raise P4TypeError(f"'{p.name}': optional parameters cannot have default values",
                              p.loc)
        if isinstance(p.default, ast.DefaultValueExpr) and not has_default_value(t):
            raise P4TypeError(f"...: could not find a default value for type {t}", p.loc)
        if p.default is not None and p.direction in ("out", "inout"):
            raise P4TypeError(f"'{p.name}': out parameters cannot have default values", p.loc)


def _struct_field_ok(t: Type | None) -> bool:
    t = strip_newtype(t) if t is not None else t
    return not isinstance(t, StringT | IntT | ExternT | ParserT | ControlT)


def check_struct_fields(decl: ast.StructDecl | ast.HeaderUnionDecl | ast.HeaderDecl) -> None:
    """A struct field holds data: not a string, an int, an extern, a parser or a control."""
    for f in decl.fields:
        if not _struct_field_ok(f.type_ref.resolved):
            raise P4TypeError(f"field '{f.name}' of '{decl.name}' cannot have type "
                              f"'{f.type_ref.resolved}'", f.loc)


def check_match_annotations(decl: ast.StructDecl | ast.HeaderUnionDecl | ast.HeaderDecl,
                            match_kinds: Sequence[str]) -> None:
    """`@match(k)` on a field (a value set's match kind, spec 12.11) names a match_kind."""
    for f in decl.fields:
        ann = f.annotation("match")
        if ann is None:
            continue
        arg = ann.args[0] if len(ann.args) == 1 else None
        if not isinstance(arg, ast.PathExpr) or arg.name not in match_kinds:
            raise P4TypeError(f"@match of field '{f.name}': value must be a match_kind",
                              ann.loc)


def check_variable_type(decl: ast.VariableDecl, t: Type) -> None:
    """Variables hold data; externs, parsers and controls are instantiated instead."""
    if isinstance(t, ExternT | ParserT | ControlT | PackageT):
        raise P4TypeError(f"'{decl.name}': cannot declare variables of type '{t}' (consider "
                          "using an instantiation)", decl.loc)
    if isinstance(t, StringT | IntT):
        raise P4TypeError(f"'{decl.name}': cannot declare variables with type {t}", decl.loc)


def check_instance_place(decl: ast.InstantiationDecl, t: Type, where: str) -> None:
    """Parsers and controls are instantiated inside a block (a package at top level, or
    as a constructor argument), a parser only in a parser (p4c's inliner)."""
    if isinstance(t, ParserT | ControlT) and where == "program":
        raise P4TypeError(f"'{decl.name}': cannot instantiate at top-level", decl.loc)
    if isinstance(t, ParserT) and where == "control":
        raise P4TypeError(f"'{decl.name}': instantiation of parser in control", decl.loc)


def check_newtype(decl: ast.NewTypeDecl) -> None:
    """`type T N;` names a base type: bit<W>, int<W>, bool or another such type."""
    t = decl.type_ref.resolved
    if not isinstance(t, BitT | BoolT | NewT):
        raise P4TypeError(f"'{decl.name}': `type' can only be applied to base types", decl.loc)


def always_returns(stmt: ast.Statement) -> bool:
    """True if every path through ``stmt`` ends in return or exit."""
    if isinstance(stmt, ast.ReturnStatement | ast.ExitStatement):
        return True
    if isinstance(stmt, ast.BlockStatement):
        return any(always_returns(s) for s in stmt.stmts)
    if isinstance(stmt, ast.IfStatement):
        return stmt.else_ is not None and always_returns(stmt.then) and \
            always_returns(stmt.else_)
    if isinstance(stmt, ast.SwitchStatement):
        has_default = any(isinstance(label, ast.DefaultExpr)
                          for case in stmt.cases for label in case.labels)
        return has_default and all(always_returns(case.body) for case in stmt.cases
                                   if case.body is not None)
    return False


def check_return_type(ref: ast.TypeRef | None, scope: Scope) -> None:
    """A return type names no generic struct or header without its type arguments (p4c:
    "no type parameters supplied for return generic type")."""
    decl = scope.lookup(ref.name) if isinstance(ref, ast.NamedTypeRef) else None
    if isinstance(decl, ast.StructDecl | ast.HeaderDecl | ast.HeaderUnionDecl) and \
            decl.type_params:
        raise P4TypeError(f"{ref.name}: no type parameters supplied for return generic type",
                          ref.loc)


def check_extern_methods(decl: ast.ExternDecl) -> None:
    """Overloads differ in their parameter names (a call may name its arguments);
    methods return no `int`; a constructor (no return type) has the extern's name and a
    method has a return type."""
    seen: set[tuple[str, tuple[str, ...]]] = set()
    for m in decl.methods:
        if m.return_type is None and m.name != decl.name:
            raise P4TypeError(f"{m.name}: invalid type; method has no return type", m.loc)
        if m.return_type is not None and m.name == decl.name:
            raise P4TypeError(f"{m.name}: invalid constructor; cannot have a return type",
                              m.loc)
        key = (m.name, tuple(p.name for p in m.params))
        if key in seen:
            raise P4TypeError(f"duplicate declaration of {m.name} in extern {decl.name}",
                              m.loc)
        seen.add(key)
        if m.return_type is not None and isinstance(m.return_type.resolved, IntT):
            raise P4TypeError("int: illegal return type for method", m.loc)


def check_typedef(decl: ast.TypedefDecl, scope: Scope) -> None:
    """A typedef of a generic type supplies its type arguments."""
    ref = decl.type_ref
    if isinstance(ref, ast.NamedTypeRef):
        target = scope.lookup(ref.name)
        if getattr(target, "type_params", None):
            raise P4TypeError(f"'{decl.name}': no type parameters supplied for generic type "
                              f"{ref.name}", decl.loc)


def check_type_decl(decl: ast.Declaration, scope: Scope, match_kinds: Sequence[str]) -> None:
    """The rules of a type declaration once its type is resolved."""
    if isinstance(decl, ast.StructDecl | ast.HeaderUnionDecl) and not decl.type_params:
        check_struct_fields(decl)
    if isinstance(decl, ast.StructDecl | ast.HeaderDecl):
        check_match_annotations(decl, match_kinds)
    elif isinstance(decl, ast.NewTypeDecl):
        check_newtype(decl)
    elif isinstance(decl, ast.TypedefDecl):
        check_typedef(decl, scope)
