"""Table declarations of a checked program (spec 14.2): keys, the action list, the
default action, const entries and the other properties, as p4c checks them."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from . import ast
from .consteval import NotConstant, evaluate
from .constness import is_compile_time_known
from .entrycheck import check_priorities, duplicate_entry
from .errors import P4TypeError
from .naming import iter_nodes
from .printer import expr_text
from .scope import Scope
from .types import BitT, BoolT, EnumT, ErrorT, IntT, Type


class TableChecks:
    """The table part of the checker (frontend.checker.Checker mixes it in)."""

    result: Any
    exprs: Any
    root: Scope
    _keyset: Callable[[ast.Expression, list[Type], Scope, str], None]  # Checker's

    def _table(self, decl: ast.TableDecl, scope: Scope) -> None:
        if not decl.has_actions:
            # Spec 14.2.1.2: the property is mandatory, its list may be empty (the table
            # then only runs its default action, NoAction unless given).
            raise P4TypeError(f"table {decl.name} does not have an 'actions' property",
                              decl.loc)
        if decl.entries and not decl.keys:
            raise P4TypeError(f"entries cannot be specified for a table with no key "
                              f"{decl.name}", decl.loc)
        if decl.default_before_actions:
            raise P4TypeError(f"table {decl.name}: the default action must come after the "
                              "actions", decl.default_action.loc)
        if decl.entries_before_key:
            # p4c types the entries against the key: the key must come first.
            raise P4TypeError(f"table {decl.name}: the entries must come after the key",
                              decl.entries[0].loc)
        if decl.default_action is None:
            self._check_no_action(decl)
        kinds = set(self.result.match_kinds)
        key_types: list[Type] = []
        for k in decl.keys:
            own = next((n for n in iter_nodes(k.expr) if isinstance(n, ast.PathExpr)
                        and n.name == decl.name and not n.dot_prefix), None)
            if own is not None:
                # p4c: the table's name is declared in its own body, hiding the rest.
                raise P4TypeError(f"{decl.name}: a key cannot refer to the containing "
                                  f"table {decl.name}", own.loc)
            kt = self.exprs.check(k.expr, scope)
            if k.match_kind not in kinds:
                raise P4TypeError(f"unknown match kind '{k.match_kind}'", k.loc)
            if k.annotation("name") is None and not _nameable(k.expr):
                # P4Runtime names a key after its expression (p4c's DoTableKeyNames).
                raise P4TypeError(f"{expr_text(k.expr)}: complex key expression requires a "
                                  "@name annotation", k.expr.loc)
            if isinstance(kt, IntT) or not (isinstance(kt, BitT | BoolT | ErrorT)
                                             or (isinstance(kt, EnumT))):
                if not hasattr(kt, "base"):
                    raise P4TypeError(f"table key of type {kt} is not supported", k.expr.loc)
            key_types.append(kt)
        listed: dict[str, ast.ActionRef] = {}
        for ref in decl.actions:
            action = self._action_ref(ref, scope, require_all=False)
            if action.name in listed:
                raise P4TypeError(f"action {action.name} listed twice in table {decl.name}",
                                  ref.loc)
            listed[action.name] = ref
        if decl.default_action is not None:
            self._action_ref(decl.default_action, scope, require_all=True)
            self._same_binding(decl.default_action, listed, decl, "default action")
        priorities: list[int | None] = []
        for entry in decl.entries:
            self._keyset(entry.keyset, key_types, scope, "entry")
            self._action_ref(entry.action, scope, require_all=True)
            self._same_binding(entry.action, listed, decl, "entry action")
            if listed[entry.action.decl.name].annotation("defaultonly") is not None:
                # Spec 14.2.1.2: a @defaultonly action is only the default action.
                raise P4TypeError(f"entry action {entry.action.decl.name} is marked "
                                  "@defaultonly in the actions of table "
                                  f"{decl.name}", entry.action.loc)
            priorities.append(None if entry.priority is None else
                              self.exprs.resolver.const_int(entry.priority, scope,
                                                            "entry priority"))
        for prop in decl.properties:
            if prop.name == "size":
                self._size(prop.value, scope)
            else:
                self.exprs.check(prop.value, scope)
        check_priorities(decl, priorities)
        duplicate = duplicate_entry(decl)
        if duplicate is not None:
            self.exprs.midend_errors.append(duplicate)

    def _size(self, value: ast.Expression, scope: Scope) -> None:
        """A table's size is a compile-time known integer, e.g. a constructor parameter
        of the control (`control C()(int Size)`, fixed where C is instantiated)."""
        self.exprs.check(value, scope)
        if not is_compile_time_known(value):
            raise P4TypeError("table size must be a compile-time constant", value.loc)
        try:
            size = evaluate(value)
        except NotConstant:
            return  # a constructor parameter
        if isinstance(size, bool) or not isinstance(size, int):
            raise P4TypeError("table size must be an integer", value.loc)
        if size < 0:
            raise P4TypeError("table size must not be negative", value.loc)

    @staticmethod
    def _same_binding(ref: ast.ActionRef, listed: dict[str, ast.ActionRef],
                      table: ast.TableDecl, what: str) -> None:
        """The default action and entries are actions of the list, with the arguments the
        list binds (its directional ones) written the same (p4c)."""
        bound = listed.get(ref.decl.name)
        if bound is None:
            raise P4TypeError(f"{what} {ref.decl.name} is not in the actions of table "
                              f"{table.name}", ref.loc)
        if bound.decl is not ref.decl:
            raise P4TypeError(f"{what} {ref.name} and the listed {bound.name} refer to "
                              "different actions", ref.loc)
        for given, fixed in zip(ref.args, bound.args, strict=False):
            if _canonical(given.value) != _canonical(fixed.value):
                raise P4TypeError(f"{expr_text(given.value)}: argument does not match "
                                  f"declaration in actions list: {expr_text(fixed.value)}",
                                  given.value.loc)

    def _check_no_action(self, table: ast.TableDecl) -> None:
        """p4c makes core.p4's NoAction the default action of a table that names none: it
        must be declared at top level, without parameters or body."""
        no_action = self.root.lookup("NoAction")
        if no_action is None:
            raise P4TypeError("declaration of the action NoAction not found; did you include "
                              "core.p4?", table.loc)
        if not isinstance(no_action, ast.ActionDecl) or no_action.params or \
                no_action.body.stmts:
            raise P4TypeError("NoAction: expected an action with no parameters and no body; "
                              "did you include core.p4?", table.loc)

    def _action_ref(self, ref: ast.ActionRef, scope: Scope, require_all: bool) -> ast.ActionDecl:
        decl = (scope.root() if ref.dot_prefix else scope).lookup(ref.name)
        if not isinstance(decl, ast.ActionDecl):
            raise P4TypeError(f"'{ref.name}' is not an action", ref.loc)
        ref.decl = decl
        params = decl.params
        directional = [p for p in params if p.direction]
        wanted = params if require_all or len(ref.args) > len(directional) else directional
        if len(ref.args) != len(wanted):
            raise P4TypeError(f"action {decl.name} expects {len(wanted)} arguments here, got "
                              f"{len(ref.args)}", ref.loc)
        for p, a in zip(wanted, ref.args, strict=True):
            self.exprs.check(a.value, scope, p.type_ref.resolved)
            applied = next((n for n in iter_nodes(a.value) if isinstance(n, ast.MethodCallExpr)
                            and getattr(n.target, "kind", "") == "table_apply"), None)
            if applied is not None:
                # p4c's mid end evaluates action arguments when the table runs; another
                # table cannot run then.
                self.exprs.midend_errors.append(P4TypeError(
                    f"{expr_text(applied)}: table invocation in action argument", applied.loc))
            if p.direction in ("out", "inout"):
                self.exprs.check_lvalue(a.value, f"pass as {p.direction} argument")
            elif p.direction:
                continue
            elif not require_all:
                # p4c: in the actions list, action data is left to the control plane.
                raise P4TypeError(f"parameter '{p.name}' of {decl.name} cannot be bound: it "
                                  "is set by the control plane", a.value.loc)
            elif not is_compile_time_known(a.value):
                raise P4TypeError("action argument must be a compile-time constant",
                                  a.value.loc)
        return decl



def _canonical(expr: ast.Expression) -> str:
    """An argument's text with struct fields in name order: p4c compares the values."""
    if isinstance(expr, ast.StructInitExpr):
        fields = sorted(expr.fields, key=lambda item: item[0])
        return "{" + ", ".join(f"{name} = {_canonical(e)}" for name, e in fields) + "}"
    return expr_text(expr)


def _nameable(expr: ast.Expression) -> bool:
    """The key expressions p4c can name: names, fields, constant-indexed elements,
    slices, `&` masks, constants and isValid() calls of such."""
    if isinstance(expr, ast.PathExpr | ast.IntLiteral):
        return True
    if isinstance(expr, ast.MemberExpr):
        return _nameable(expr.base) or isinstance(expr.base, ast.TypeNameExpr)
    if isinstance(expr, ast.IndexExpr):
        return _nameable(expr.base) and _nameable(expr.index)
    if isinstance(expr, ast.SliceExpr):
        return all(_nameable(e) for e in (expr.base, expr.hi or expr.width, expr.lo))
    if isinstance(expr, ast.BinaryExpr) and expr.op == "&":
        return _nameable(expr.left) and _nameable(expr.right)
    if isinstance(expr, ast.MethodCallExpr):
        func = expr.func
        return isinstance(func, ast.MemberExpr) and func.member == "isValid" and \
            not expr.args and _nameable(func.base)
    return False
