"""Parsers of a checked program (spec 13): states, transitions and the keysets of
`select` labels (also used by table entries), as p4c checks them."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from . import ast
from .consteval import NotConstant, evaluate, evaluate_composite
from .errors import P4TypeError
from .naming import iter_nodes
from .printer import expr_text
from .scope import Scope
from .types import BitT, BoolT, EnumT, ErrorT, IntT, TupleT, Type, strip_newtype


class ParserChecks:
    """The parser part of the checker (frontend.checker.Checker mixes it in)."""

    exprs: Any
    root: Scope
    _in_parser: bool
    # Checker's:
    _statement: Callable[[Any, Scope], None]
    _block_decl_scope: Callable[[Any, str], Scope]

    def _parser(self, decl: ast.ParserDecl) -> None:
        scope = self._block_decl_scope(decl, "parser")
        names: set[str] = set()
        for s in decl.states:
            if s.name in ("accept", "reject"):
                raise P4TypeError(f"state '{s.name}' is built in and cannot be redefined",
                                  s.loc)
            if s.name in names:
                raise P4TypeError(f"parser {decl.name} declares state '{s.name}' twice", s.loc)
            names.add(s.name)
        if "start" not in names:
            raise P4TypeError(f"parser {decl.name} has no 'start' state", decl.loc)
        for s in decl.states:
            scope.declare(s.name, s, s.loc)
        self._in_parser = True
        for s in decl.states:
            inner = scope.child("state")
            for stmt in s.body:
                self._statement(stmt, inner)
            self._transition(s.transition, inner, names)
        self._in_parser = False
        if not {"accept", "reject"} & _reachable_states(decl):
            # p4c's front end (spec 13.4): a parser must be able to end.
            raise P4TypeError(f"parser {decl.name} never reaches the accept or reject state",
                              decl.loc)

    def _transition(self, tr: ast.Transition | None, scope: Scope, names: set[str]) -> None:
        if tr is None:
            return
        valid = names | {"accept", "reject"}
        if isinstance(tr, ast.DirectTransition):
            if tr.state not in valid:
                raise P4TypeError(f"transition to unknown state '{tr.state}'", tr.loc)
            return
        assert isinstance(tr, ast.SelectTransition)
        key_types = [self.exprs.check(k, scope) for k in tr.keys]
        for kt, k in zip(key_types, tr.keys, strict=True):
            if isinstance(kt, IntT):
                raise P4TypeError("select key needs a width; cast it", k.loc)
            if not _selectable(kt):
                raise P4TypeError(f"select key {expr_text(k)} has type {kt}; a select "
                                  "matches bit<W>, int<W>, bool, enum and error values and "
                                  "lists of them", k.loc)
        for case in tr.cases:
            if case.state not in valid:
                raise P4TypeError(f"transition to unknown state '{case.state}'", case.loc)
            self._keyset(case.keyset, key_types, scope, "select")

    def _keyset(self, keyset: ast.Expression, key_types: list[Type], scope: Scope,
                what: str) -> None:
        if isinstance(keyset, ast.DefaultExpr | ast.DontCareExpr):
            keyset.type = TupleT(tuple(key_types))
            return
        if isinstance(keyset, ast.PathExpr) and isinstance(scope.lookup(keyset.name),
                                                            ast.ValueSetDecl):
            # A value set matches the whole key, a tuple of fields included.
            self.exprs.check(keyset, scope)
            return
        elems = keyset.elems if isinstance(keyset, ast.ListExpr) else [keyset]
        if isinstance(keyset, ast.ListExpr) and len(key_types) == 1 and len(elems) != 1:
            elems = [keyset]
        if len(elems) != len(key_types):
            raise P4TypeError(f"{what} label has {len(elems)} elements, the key has "
                              f"{len(key_types)}", keyset.loc)
        for e, kt in zip(elems, key_types, strict=True):
            if isinstance(e, ast.DefaultExpr | ast.DontCareExpr):
                e.type = kt
                continue
            if isinstance(e, ast.PathExpr) and isinstance(scope.lookup(e.name), ast.ValueSetDecl):
                self.exprs.check(e, scope)
                continue
            if isinstance(kt, EnumT) and kt.underlying is not None:
                self._serenum_keyset(e, kt, scope)
            else:
                self.exprs.check(e, scope, kt)
            parts = [e.value, e.mask] if isinstance(e, ast.MaskExpr) else (
                [e.low, e.high] if isinstance(e, ast.RangeExpr) else [e])
            if what == "select" and not isinstance(e, ast.RangeExpr | ast.MaskExpr):
                # p4c takes run-time values in a select label (its select-struct.p4),
                # though no call; bm keeps masks and range bounds constant.
                if any(isinstance(n, ast.MethodCallExpr) for n in iter_nodes(e)):
                    raise P4TypeError(f"{expr_text(e)}: no function calls are allowed in a "
                                      "select label", e.loc)
                parts = []
            for part in parts:
                if isinstance(part, ast.DontCareExpr | ast.DefaultExpr):
                    continue
                try:
                    # A tuple key `{a, b}` takes a list of constants (p4c's nested_select.p4).
                    evaluate_composite(part) if isinstance(kt, TupleT) else evaluate(part)
                except NotConstant:
                    raise P4TypeError(f"{what} label must be a compile-time constant",
                                      part.loc) from None
        if isinstance(keyset, ast.ListExpr):
            keyset.type = TupleT(tuple(key_types))

    def _serenum_keyset(self, e: ast.Expression, kt: EnumT, scope: Scope) -> None:
        """A keyset element of a serializable-enum key (spec 8.3: a serializable enum
        converts to its underlying type): each part, the value and mask of `A &&& m` or
        the bounds of `lo .. hi`, is a member of that enum or a value of the underlying
        type, e.g. `E.A &&& 0xF0` as p4c accepts it."""
        parts = [e.value, e.mask] if isinstance(e, ast.MaskExpr) else (
            [e.low, e.high] if isinstance(e, ast.RangeExpr) else [e])
        for part in parts:
            if isinstance(part, ast.DontCareExpr):
                part.type = kt
                continue
            t = self.exprs.check(part, scope, None)
            if isinstance(t, EnumT):
                if t != kt:
                    raise P4TypeError(f"type mismatch: expected {kt}, got {t}", part.loc)
            else:
                self.exprs.coerce(part, kt.underlying)
        e.type = kt


def _selectable(t: Type) -> bool:
    """Whether a select key of type `t` can be matched (p4c: no struct, header or varbit
    component; a list `{a, b}` of such values can)."""
    if isinstance(t, TupleT):
        return all(_selectable(e) for e in t.elems)
    return isinstance(strip_newtype(t), BitT | BoolT | EnumT | ErrorT)


def _reachable_states(decl: ast.ParserDecl) -> set[str]:
    """Names of the states reachable from `start` through transitions and select cases; a
    state without a transition statement goes to reject (spec 13.5)."""
    states = {s.name: s for s in decl.states}
    seen: set[str] = set()
    todo = ["start"]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        state = states.get(name)
        if state is None:
            continue
        tr = state.transition
        if tr is None:
            todo.append("reject")
        elif isinstance(tr, ast.DirectTransition):
            todo.append(tr.state)
        else:
            todo.extend(case.state for case in tr.cases)
    return seen
