"""Transformer rules for statements and expressions."""

from __future__ import annotations

from typing import Any

from lark import Token, Transformer, v_args

from . import ast
from .transform_base import int_literal, join_anns, loc_of

__all__ = ["StatementRules", "ExpressionRules"]

_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", '"': '"', "\\": "\\"}


def _unescape(body: str) -> str:
    if "\\" not in body:
        return body
    out: list[str] = []
    i = 0
    while i < len(body):
        c = body[i]
        if c == "\\" and i + 1 < len(body):
            nxt = body[i + 1]
            out.append(_ESCAPES.get(nxt, "\\" + nxt))
            i += 2
        else:
            out.append(c)
            i += 1
    return "".join(out)


@v_args(inline=True)
class StatementRules(Transformer):
    """Statements and blocks."""

    # ------------------------------------------------------------------ statements

    def assignment(self, lhs: ast.Expression, rhs: ast.Expression, _semi: Token
                   ) -> ast.AssignmentStatement:
        return ast.AssignmentStatement(lhs=lhs, rhs=rhs, loc=lhs.loc)

    def compound_assignment(self, lhs: ast.Expression, op: Token, rhs: ast.Expression,
                            _semi: Token) -> ast.AssignmentStatement:
        # `a op= b` is `a = a op b` (spec 11.1); the l-value has no side effects to repeat.
        # The same l-value node is the left operand: the pipeline evaluates its run-time
        # indexes once, for the read and the write (spec 11.1).
        value = ast.BinaryExpr(op=str(op)[:-1], left=lhs, right=rhs, compound=True,
                               loc=lhs.loc)
        return ast.AssignmentStatement(lhs=lhs, rhs=value, loc=lhs.loc)

    def call_stmt(self, func: ast.Expression, type_args: list[ast.TypeRef] | None, _lp: Token,
                  args: list[ast.Argument], _semi: Token) -> ast.MethodCallStatement:
        call = ast.MethodCallExpr(func=func, type_args=type_args or [], args=args, loc=func.loc)
        return ast.MethodCallStatement(call=call, loc=func.loc)

    def direct_application(self, type_ref: ast.TypeRef, _dot: Token, apply: Token, _lp: Token,
                           args: list[ast.Argument], _semi: Token) -> ast.MethodCallStatement:
        base = ast.TypeNameExpr(type_ref=type_ref, loc=type_ref.loc)
        func = ast.MemberExpr(base=base, member=str(apply), loc=type_ref.loc)
        call = ast.MethodCallExpr(func=func, args=args, loc=type_ref.loc)
        return ast.MethodCallStatement(call=call, loc=type_ref.loc)

    def if_stmt(self, kw: Token, _lp: Token, cond: ast.Expression, then: ast.Statement,
                _else: Token | None, else_: ast.Statement | None) -> ast.IfStatement:
        return ast.IfStatement(cond=cond, then=then, else_=else_, loc=loc_of(kw))

    def empty_stmt(self, semi: Token) -> ast.EmptyStatement:
        return ast.EmptyStatement(loc=loc_of(semi))

    def block(self, anns: Any, lb: Token, *stmts: Any) -> ast.BlockStatement:
        return ast.BlockStatement(stmts=list(stmts), annotations=join_anns(anns), loc=loc_of(lb))

    def return_stmt(self, kw: Token, value: ast.Expression | None, _semi: Token
                    ) -> ast.ReturnStatement:
        return ast.ReturnStatement(value=value, loc=loc_of(kw))

    def exit_stmt(self, kw: Token, _semi: Token) -> ast.ExitStatement:
        return ast.ExitStatement(loc=loc_of(kw))

    def for_stmt(self, kw: Token, _lp: Token, init: list | None, _s1: Token,
                 cond: ast.Expression | None, _s2: Token, updates: list | None,
                 body: ast.Statement) -> ast.ForStatement:
        return ast.ForStatement(init=init or [], cond=cond, updates=updates or [], body=body,
                                loc=loc_of(kw))

    def for_range_stmt(self, kw: Token, _lp: Token, type_ref: ast.TypeRef, name: Token,
                       _in: Token, low: ast.Expression, _range: Token, high: ast.Expression,
                       body: ast.Statement) -> ast.ForInStatement:
        var = ast.VariableDecl(name=str(name), type_ref=type_ref, loc=loc_of(name))
        iterable = ast.RangeExpr(low=low, high=high, loc=low.loc)
        return ast.ForInStatement(var=var, iterable=iterable, body=body, loc=loc_of(kw))

    def for_in_stmt(self, kw: Token, _lp: Token, type_ref: ast.TypeRef, name: Token,
                    _in: Token, iterable: ast.Expression, body: ast.Statement
                    ) -> ast.ForInStatement:
        var = ast.VariableDecl(name=str(name), type_ref=type_ref, loc=loc_of(name))
        return ast.ForInStatement(var=var, iterable=iterable, body=body, loc=loc_of(kw))

    def annotated_for(self, _anns: Any, stmt: ast.Statement) -> ast.Statement:
        # `@unroll`/`@no_unroll` are hints to p4c's loop unrolling; bm runs loops as they are.
        return stmt

    def for_items(self, *items: Any) -> list:
        return list(items)

    def for_var(self, type_ref: ast.TypeRef, name: Token, value: ast.Expression
                ) -> ast.VariableDecl:
        return ast.VariableDecl(name=str(name), type_ref=type_ref, init=value,
                                loc=type_ref.loc)

    def for_assign(self, lhs: ast.Expression, value: ast.Expression
                   ) -> ast.AssignmentStatement:
        return ast.AssignmentStatement(lhs=lhs, rhs=value, loc=lhs.loc)

    def for_compound(self, lhs: ast.Expression, op: Token, value: ast.Expression
                     ) -> ast.AssignmentStatement:
        return self.compound_assignment(lhs, op, value, op)

    def for_call(self, func: ast.Expression, type_args: list[ast.TypeRef] | None,
                 _lp: Token, args: list[ast.Argument]) -> ast.MethodCallStatement:
        return self.call_stmt(func, type_args, _lp, args, _lp)

    def break_stmt(self, kw: Token, _semi: Token) -> ast.BreakStatement:
        return ast.BreakStatement(loc=loc_of(kw))

    def continue_stmt(self, kw: Token, _semi: Token) -> ast.ContinueStatement:
        return ast.ContinueStatement(loc=loc_of(kw))

    def switch_stmt(self, kw: Token, _lp: Token, expr: ast.Expression, _lb: Token,
                    *cases: ast.SwitchCase) -> ast.SwitchStatement:
        return ast.SwitchStatement(expr=expr, cases=list(cases), loc=loc_of(kw))

    def switch_case(self, label: ast.Expression, body: ast.BlockStatement | None
                    ) -> ast.SwitchCase:
        return ast.SwitchCase(labels=[label], body=body, loc=label.loc)


@v_args(inline=True)
class ExpressionRules(Transformer):
    """Expressions, literals and the lists inside them."""

    # ------------------------------------------------------------------ expressions

    def expression_list(self, *exprs: ast.Expression) -> list[ast.Expression]:
        return list(exprs)

    def annotation_args(self, exprs: list[ast.Expression] | None) -> list[ast.Expression]:
        return exprs or []

    def annotation_kv(self, pairs: list[tuple[str, ast.Expression]]
                      ) -> list[tuple[str, ast.Expression]]:
        return pairs

    def kv_list(self, *pairs: tuple[str, ast.Expression]) -> list[tuple[str, ast.Expression]]:
        return list(pairs)

    def kv_list_dots(self, *items: Any) -> list[tuple[str, ast.Expression]]:
        """`{ f = 1, ... }`: the other fields take their default values; p4c names the
        `...` entry "..." (its messages print `... = ...`)."""
        dots = next(t for t in items if isinstance(t, Token))
        pairs = [p for p in items if isinstance(p, tuple)]
        return [*pairs, ("...", ast.DefaultValueExpr(loc=loc_of(dots)))]

    def kv_pair(self, name: Token, value: ast.Expression) -> tuple[str, ast.Expression]:
        return (str(name), value)

    def ternary_expr(self, cond: ast.Expression, then: ast.Expression, else_: ast.Expression
                     ) -> ast.TernaryExpr:
        return ast.TernaryExpr(cond=cond, then=then, else_=else_, loc=cond.loc)

    def binop(self, left: ast.Expression, op: Token, right: ast.Expression) -> ast.BinaryExpr:
        return ast.BinaryExpr(op=str(op), left=left, right=right, loc=left.loc)

    def unop(self, op: Token, operand: ast.Expression) -> ast.UnaryExpr:
        return ast.UnaryExpr(op=str(op), operand=operand, loc=loc_of(op))

    def cast(self, lp: Token, type_ref: ast.TypeRef, expr: ast.Expression) -> ast.CastExpr:
        return ast.CastExpr(type_ref=type_ref, expr=expr, loc=loc_of(lp))

    def member(self, base: ast.Expression, _dot: Token, name: Token) -> ast.MemberExpr:
        return ast.MemberExpr(base=base, member=str(name), loc=base.loc)

    def index(self, base: ast.Expression, _lb: Token, index: ast.Expression) -> ast.IndexExpr:
        return ast.IndexExpr(base=base, index=index, loc=base.loc)

    def slice(self, base: ast.Expression, _lb: Token, hi: ast.Expression, lo: ast.Expression
              ) -> ast.SliceExpr:
        return ast.SliceExpr(base=base, hi=hi, lo=lo, loc=base.loc)

    def plus_slice(self, base: ast.Expression, _lb: Token, lo: ast.Expression, _op: Token,
                   width: ast.Expression) -> ast.SliceExpr:
        return ast.SliceExpr(base=base, hi=None, lo=lo, width=width, loc=base.loc)

    def call(self, func: ast.Expression, _lp: Token, args: list[ast.Argument]
             ) -> ast.MethodCallExpr:
        return ast.MethodCallExpr(func=func, args=args, loc=func.loc)

    def generic_call(self, func: ast.Expression, type_args: list[ast.TypeRef], _lp: Token,
                     args: list[ast.Argument]) -> ast.MethodCallExpr:
        return ast.MethodCallExpr(func=func, type_args=type_args, args=args, loc=func.loc)

    def dots_expr(self, tok: Token) -> ast.DefaultValueExpr:
        return ast.DefaultValueExpr(loc=loc_of(tok))

    def invalid_header(self, tok: Token) -> ast.InvalidHeaderExpr:
        return ast.InvalidHeaderExpr(loc=loc_of(tok))

    def int_lit(self, tok: Token) -> ast.IntLiteral:
        return int_literal(tok)

    def str_lit(self, tok: Token) -> ast.StringLiteral:
        return ast.StringLiteral(value=_unescape(str(tok)[1:-1]), loc=loc_of(tok))

    def true_lit(self, tok: Token) -> ast.BoolLiteral:
        return ast.BoolLiteral(value=True, loc=loc_of(tok))

    def false_lit(self, tok: Token) -> ast.BoolLiteral:
        return ast.BoolLiteral(value=False, loc=loc_of(tok))

    def path(self, name: tuple[Token, bool, Token]) -> ast.PathExpr:
        return ast.PathExpr(name=str(name[0]), dot_prefix=name[1], loc=loc_of(name[2]))

    def paren(self, _lp: Token, expr: ast.Expression) -> ast.Expression:
        return expr

    def list_expr(self, lb: Token, exprs: list[ast.Expression] | None) -> ast.ListExpr:
        return ast.ListExpr(elems=exprs or [], loc=loc_of(lb))

    def struct_init(self, lb: Token, pairs: list[tuple[str, ast.Expression]]
                    ) -> ast.StructInitExpr:
        return ast.StructInitExpr(fields=pairs, loc=loc_of(lb))

    def type_member(self, type_ref: ast.TypeRef, _dot: Token, name: Token) -> ast.MemberExpr:
        base = ast.TypeNameExpr(type_ref=type_ref, loc=type_ref.loc)
        return ast.MemberExpr(base=base, member=str(name), loc=type_ref.loc)

    def error_member(self, kw: Token, _dot: Token, name: Token) -> ast.MemberExpr:
        type_ref = ast.BaseTypeRef(name="error", loc=loc_of(kw))
        base = ast.TypeNameExpr(type_ref=type_ref, loc=loc_of(kw))
        return ast.MemberExpr(base=base, member=str(name), loc=loc_of(kw))

    def ctor_call(self, type_ref: ast.TypeRef, _lp: Token, args: list[ast.Argument]
                  ) -> ast.ConstructorCallExpr:
        return ast.ConstructorCallExpr(type_ref=type_ref, args=args, loc=type_ref.loc)
