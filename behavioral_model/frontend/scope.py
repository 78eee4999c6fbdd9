"""Lexical scopes: P4 resolves a name to the nearest enclosing declaration (spec 6.8)."""

from __future__ import annotations

from typing import Any

from . import ast
from .errors import P4TypeError


class Scope:
    """One level of names. Extern functions and methods may be overloaded by arity, so a
    name maps to a list of declarations."""

    def __init__(self, parent: Scope | None = None, kind: str = "block",
                 hides: Any = None) -> None:
        self.parent = parent
        self.kind = kind
        self.names: dict[str, list[Any]] = {}
        # p4c's ResolveReferences: inside a declaration its own name is not visible, so
        # `action hash() { hash(...); }` calls the extern function (p4c's issue1541.p4).
        self.hides = hides

    def declare(self, name: str, decl: Any, loc: Any = None, overloadable: bool = False) -> None:
        existing = self.names.get(name)
        if existing and not (overloadable and all(_overloadable(d, decl) for d in existing)):
            raise P4TypeError(f"re-declaration of '{name}'", loc)
        self.names.setdefault(name, []).append(decl)

    def lookup_all(self, name: str) -> list[Any]:
        hidden: list[Any] = []
        scope: Scope | None = self
        while scope is not None:
            if scope.hides is not None:
                hidden.append(scope.hides)
            found = scope.names.get(name)
            if found and hidden:
                found = [d for d in found if not any(d is h for h in hidden)]
            if found:
                return found
            scope = scope.parent
        return []

    def lookup(self, name: str) -> Any | None:
        found = self.lookup_all(name)
        return found[0] if found else None

    def root(self) -> Scope:
        scope = self
        while scope.parent is not None:
            scope = scope.parent
        return scope

    def child(self, kind: str = "block", hides: Any = None) -> Scope:
        return Scope(self, kind, hides)


_BLOCKS = (ast.ControlDecl, ast.ParserDecl, ast.PackageTypeDecl)


def _overloadable(old: Any, new: Any) -> bool:
    """Functions overload functions; a control, parser or package its own kind (p4c's
    issue1334.p4, issue3379.p4: they differ in constructor parameters)."""
    if isinstance(old, _BLOCKS) or isinstance(new, _BLOCKS):
        return type(old) is type(new)
    return isinstance(old, ast.ExternFunctionDecl | ast.MethodDecl | ast.FunctionDecl)


class TypeParamDecl:
    """A generic type parameter in scope, bound to a concrete type or left as a variable."""

    def __init__(self, name: str, bound: Any) -> None:
        self.name = name
        self.bound = bound


class MatchKindMember:
    """A name declared by `match_kind { ... }`."""

    def __init__(self, name: str) -> None:
        self.name = name
