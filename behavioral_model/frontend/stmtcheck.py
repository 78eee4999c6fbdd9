"""Statements of a checked program (spec 12): blocks, assignments, calls, `if`,
`switch`, loops, `return` and `exit`, with the context rules p4c applies to each."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from . import ast
from .consteval import NotConstant, evaluate
from .errors import P4TypeError
from .midendcheck import EXTERN_CALLS
from .printer import expr_text
from .scope import Scope
from .types import ActionRunT, BitT, BoolT, EnumT, ErrorT, StackT, TupleT, Type, TypeVar, VoidT


class StatementChecks:
    """The statement part of the checker (frontend.checker.Checker mixes it in)."""

    exprs: Any
    calls: Any
    result: Any
    _return_type: Type | None
    _in_action: bool
    _in_parser: bool
    _in_function: bool
    _loop_depth: int
    # Checker's:
    _variable: Callable[[ast.VariableDecl, Scope], None]
    _const: Callable[[ast.ConstDecl, Scope], None]

    def _block(self, block: ast.BlockStatement, scope: Scope) -> None:
        for stmt in block.stmts:
            self._statement(stmt, scope)

    def _statement(self, stmt: Any, scope: Scope) -> None:
        if isinstance(stmt, ast.BlockStatement):
            self._block(stmt, scope.child())
        elif isinstance(stmt, ast.AssignmentStatement):
            lt = self.exprs.check(stmt.lhs, scope)
            self.exprs.check_lvalue(stmt.lhs, "assign to")
            self.exprs.check(stmt.rhs, scope, lt)
            target = getattr(stmt.rhs, "target", None)
            if target is not None and target.kind in EXTERN_CALLS and \
                    target.name != "lookahead":
                # p4c's mid end expands a lookahead into field reads before it flattens.
                self.calls.extern_writes.append(stmt.lhs)
        elif isinstance(stmt, ast.MethodCallStatement):
            self.exprs.check(stmt.call, scope)
            target = stmt.call.target
            kind = target.kind if target else ""
            if self._in_parser and kind in ("action", "table_apply"):
                what = "action calls" if kind == "action" else "table applications"
                raise P4TypeError(f"{what} are not allowed in a parser", stmt.loc)
            if self._in_action and kind in ("table_apply", "apply"):
                raise P4TypeError("apply cannot be called from actions", stmt.loc)
            if kind == "apply" and isinstance(target.decl, ast.ParserDecl | ast.ParserTypeDecl) \
                    and not self._in_parser:
                # p4c's mid end inlines the parser into the control, which it cannot.
                self.exprs.midend_errors.append(P4TypeError(
                    f"{target.name}: instantiation of parser in control", stmt.loc))
            if kind == "extern_function" and target.name == "verify" and not self._in_parser:
                raise P4TypeError("verify may only be invoked in parsers", stmt.loc)
        elif isinstance(stmt, ast.IfStatement):
            ct = self.exprs.check(stmt.cond, scope)
            if not isinstance(ct, BoolT):
                raise P4TypeError(f"condition must be bool, got {ct}", stmt.cond.loc)
            self._statement(stmt.then, scope.child())
            if stmt.else_ is not None:
                self._statement(stmt.else_, scope.child())
        elif isinstance(stmt, ast.SwitchStatement):
            self._switch(stmt, scope)
        elif isinstance(stmt, ast.ForStatement | ast.ForInStatement):
            self._loop(stmt, scope)
        elif isinstance(stmt, ast.BreakStatement | ast.ContinueStatement):
            if not self._loop_depth:
                word = "break" if isinstance(stmt, ast.BreakStatement) else "continue"
                raise P4TypeError(f"{word} outside a loop", stmt.loc)
        elif isinstance(stmt, ast.ReturnStatement):
            self._return(stmt, scope)
        elif isinstance(stmt, ast.ExitStatement):
            if self._in_parser:
                raise P4TypeError("exit is not allowed in a parser", stmt.loc)
            if self._in_function:
                raise P4TypeError("exit is not allowed in a function", stmt.loc)
        elif isinstance(stmt, ast.EmptyStatement):
            pass
        elif isinstance(stmt, ast.VariableDecl):
            self._variable(stmt, scope)
        elif isinstance(stmt, ast.ConstDecl):
            self._const(stmt, scope)
        elif isinstance(stmt, ast.InstantiationDecl):
            raise P4TypeError(f"instance '{stmt.name}' cannot be declared in an apply block "
                              "or a parser state; declare it with the block's locals", stmt.loc)
        else:
            raise P4TypeError(f"{type(stmt).__name__} is not allowed here", stmt.loc)

    def _loop(self, stmt: ast.ForStatement | ast.ForInStatement, scope: Scope) -> None:
        if self._in_parser:
            raise P4TypeError("loops are not allowed in a parser state", stmt.loc)
        inner = scope.child("loop")
        if isinstance(stmt, ast.ForStatement):
            for item in stmt.init:
                self._statement(item, inner)
            if stmt.cond is not None:
                ct = self.exprs.check(stmt.cond, inner)
                if not isinstance(ct, BoolT):
                    raise P4TypeError(f"loop condition must be bool, got {ct}", stmt.cond.loc)
            for item in stmt.updates:
                self._statement(item, inner)
        else:
            t = self.exprs.resolver.resolve(stmt.var.type_ref, inner)
            it = stmt.iterable
            if isinstance(it, ast.RangeExpr):
                self.exprs.check(it, inner, t)
            elif isinstance(it, ast.ListExpr):
                for e in it.elems:
                    self.exprs.check(e, inner, t)
                it.type = TupleT(tuple(t for _ in it.elems))
            else:
                st = self.exprs.check(it, inner)
                if not isinstance(st, StackT):
                    raise P4TypeError("a for-in loop iterates over 'lo .. hi', a list "
                                      "{a, b, ...} or a header stack", it.loc)
                if st.elem != t:
                    raise P4TypeError(f"the loop variable of type {t} cannot hold the "
                                      f"elements of {expr_text(it)} ({st.elem})", it.loc)
            inner.declare(stmt.var.name, stmt.var, stmt.var.loc)
        self._loop_depth += 1
        try:
            self._statement(stmt.body, inner.child())
        finally:
            self._loop_depth -= 1

    def _return(self, stmt: ast.ReturnStatement, scope: Scope) -> None:
        if self._in_parser:
            raise P4TypeError("return is not allowed in a parser", stmt.loc)
        expected = self._return_type
        if stmt.value is None:
            if expected is not None and not isinstance(expected, VoidT):
                raise P4TypeError(f"return needs a value of type {expected}", stmt.loc)
            return
        if expected is None or isinstance(expected, VoidT):
            raise P4TypeError("return with a value outside a function", stmt.loc)
        vt = self.exprs.check(stmt.value, scope, expected)
        if isinstance(expected, TypeVar) and not (
                isinstance(vt, TypeVar) and vt.name == expected.name):
            # Inside `T f<T>(...)` T is any type: only a value of type T converts to it.
            raise P4TypeError(f"return {expr_text(stmt.value)}: a value of type {vt} cannot "
                              f"be returned as {expected}", stmt.value.loc)

    def _switch(self, stmt: ast.SwitchStatement, scope: Scope) -> None:
        if self._in_action:
            # p4c: its mid end cannot lower a switch inside an action.
            self.exprs.midend_errors.append(P4TypeError(
                "switch statements are not supported in actions", stmt.loc))
        self.exprs.switch_on_action_run = True
        try:
            t = self.exprs.check(stmt.expr, scope)
        finally:
            self.exprs.switch_on_action_run = False
        own_body = any(case.body is not None and not any(
            isinstance(label, ast.DefaultExpr) for label in case.labels) for case in stmt.cases)
        if not isinstance(t, ActionRunT) and own_body and "exact" not in self.result.match_kinds:
            # p4c implements a switch on a value as a table matching it exactly (a switch
            # whose labels all fall through to the default is no table).
            self.exprs.midend_errors.append(P4TypeError(
                "a switch on a value needs match_kind 'exact' (declared in core.p4): "
                "include <core.p4>", stmt.loc))
        seen: set[str] = set()
        has_default = False
        for i, case in enumerate(stmt.cases):
            for label in case.labels:
                if isinstance(label, ast.DefaultExpr):
                    if has_default:
                        raise P4TypeError("switch has two default labels", label.loc)
                    has_default = True
                    if i != len(stmt.cases) - 1:
                        raise P4TypeError("default must be the last switch label", label.loc)
                    continue
                if isinstance(t, ActionRunT):
                    if not isinstance(label, ast.PathExpr):
                        raise P4TypeError("switch on action_run needs action names as labels",
                                          label.loc)
                    table: ast.TableDecl = t.decl
                    names = [a.name for a in table.actions]
                    if table.default_action is None:
                        names.append("NoAction")  # p4c adds it as the default (see p4info_model)
                    if label.name not in names:
                        raise P4TypeError(f"'{label.name}' is not an action of table "
                                          f"{table.name}", label.loc)
                    label.decl = scope.lookup(label.name)
                    label.type = t
                    key = label.name
                else:
                    if not isinstance(t, BitT | EnumT | ErrorT):
                        raise P4TypeError(f"cannot switch on a value of type {t}", stmt.expr.loc)
                    self.exprs.check(label, scope, t)
                    try:
                        key = repr(evaluate(label))
                    except NotConstant:
                        raise P4TypeError("switch label must be a compile-time constant",
                                          label.loc) from None
                if key in seen:
                    raise P4TypeError(f"duplicate switch label '{key}'", label.loc)
                seen.add(key)
            if case.body is not None:
                self._block(case.body, scope.child())
