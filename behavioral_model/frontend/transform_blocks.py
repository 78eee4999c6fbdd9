"""Transformer rules for parsers (states, transitions, select expressions) and controls
(actions, tables and their properties, keys and entries)."""

from __future__ import annotations

from typing import Any

from lark import Token, Transformer, v_args

from . import ast
from .errors import P4SyntaxError
from .transform_base import first_loc, join_anns, loc_of

__all__ = ["BlockRules"]


@v_args(inline=True)
class BlockRules(Transformer):
    """Parser and control declarations and what they contain."""

    # ------------------------------------------------------------------ parsers

    def parser_type_decl(self, anns: Any, kw: Token, name: Token, tparams: Any, _lp: Token,
                         params: list[ast.Parameter]) -> ast.ParserTypeDecl:
        return ast.ParserTypeDecl(name=str(name), params=params, type_params=tparams or [],
                                  annotations=join_anns(anns), loc=loc_of(kw))

    def parser_proto(self, decl: ast.ParserTypeDecl, _semi: Token) -> ast.ParserTypeDecl:
        return decl

    def parser_decl(self, proto: ast.ParserTypeDecl, ctor: list[ast.Parameter] | None,
                    _lb: Token, *items: Any) -> ast.ParserDecl:
        states = [x for x in items if isinstance(x, ast.ParserState)]
        local_decls = [x for x in items if not isinstance(x, ast.ParserState)]
        return ast.ParserDecl(name=proto.name, params=proto.params, constructor_params=ctor or [],
                              locals=local_decls, states=states, type_params=proto.type_params,
                              annotations=proto.annotations, loc=proto.loc)

    def ctor_params(self, _lp: Token, params: list[ast.Parameter]) -> list[ast.Parameter]:
        return params

    def value_set_decl(self, anns: Any, kw: Token, elem_type: ast.TypeRef, _lp: Token,
                       size: ast.Expression, name: Token, _semi: Token) -> ast.ValueSetDecl:
        return ast.ValueSetDecl(name=str(name), elem_type=elem_type, size=size,
                                annotations=join_anns(anns), loc=loc_of(kw))

    def parser_state(self, anns: Any, kw: Token, name: Token, _lb: Token, *items: Any
                     ) -> ast.ParserState:
        transition = items[-1] if items else None
        body = list(items[:-1]) if items else []
        return ast.ParserState(name=str(name), body=body, transition=transition,
                               annotations=join_anns(anns), loc=loc_of(kw))

    def direct_transition(self, kw: Token, state: Token, _semi: Token) -> ast.DirectTransition:
        return ast.DirectTransition(state=str(state), loc=loc_of(kw))

    def select_transition(self, kw: Token, select: ast.SelectTransition) -> ast.SelectTransition:
        select.loc = loc_of(kw)
        return select

    def select_expr(self, kw: Token, _lp: Token, keys: list[ast.Expression] | None, _lb: Token,
                    *cases: ast.SelectCase) -> ast.SelectTransition:
        return ast.SelectTransition(keys=keys or [], cases=list(cases), loc=loc_of(kw))

    def select_case(self, keyset: ast.Expression, state: Token, _semi: Token) -> ast.SelectCase:
        return ast.SelectCase(keyset=keyset, state=str(state), loc=keyset.loc)

    def tuple_keyset(self, lp: Token, *elems: ast.Expression) -> ast.ListExpr:
        return ast.ListExpr(elems=list(elems), loc=loc_of(lp))

    def paren_keyset(self, _lp: Token, elem: ast.Expression) -> ast.Expression:
        return elem

    def mask_expr(self, value: ast.Expression, _op: Token, mask: ast.Expression) -> ast.MaskExpr:
        return ast.MaskExpr(value=value, mask=mask, loc=value.loc)

    def range_expr(self, low: ast.Expression, _op: Token, high: ast.Expression) -> ast.RangeExpr:
        return ast.RangeExpr(low=low, high=high, loc=low.loc)

    def default_expr(self, tok: Token) -> ast.DefaultExpr:
        return ast.DefaultExpr(loc=loc_of(tok))

    def dontcare_expr(self, tok: Token) -> ast.DontCareExpr:
        return ast.DontCareExpr(loc=loc_of(tok))

    # ------------------------------------------------------------------ controls, tables

    def control_type_decl(self, anns: Any, kw: Token, name: Token, tparams: Any, _lp: Token,
                          params: list[ast.Parameter]) -> ast.ControlTypeDecl:
        return ast.ControlTypeDecl(name=str(name), params=params, type_params=tparams or [],
                                   annotations=join_anns(anns), loc=loc_of(kw))

    def control_proto(self, decl: ast.ControlTypeDecl, _semi: Token) -> ast.ControlTypeDecl:
        return decl

    def control_decl(self, proto: ast.ControlTypeDecl, ctor: list[ast.Parameter] | None,
                     _lb: Token, *items: Any) -> ast.ControlDecl:
        # items: local declarations..., APPLY, block
        return ast.ControlDecl(name=proto.name, params=proto.params, constructor_params=ctor or [],
                               locals=list(items[:-2]), body=items[-1],
                               type_params=proto.type_params, annotations=proto.annotations,
                               loc=proto.loc)

    def action_decl(self, anns: Any, kw: Token, name: Token, _lp: Token,
                    params: list[ast.Parameter], body: ast.BlockStatement) -> ast.ActionDecl:
        return ast.ActionDecl(name=str(name), params=params, body=body, annotations=join_anns(anns),
                              loc=loc_of(kw))

    def table_decl(self, anns: Any, kw: Token, name: Token, _lb: Token, *props: Any
                   ) -> ast.TableDecl:
        table = ast.TableDecl(name=str(name), annotations=join_anns(anns), loc=loc_of(kw))
        for prop in props:
            kind = prop[0]
            if kind == "key":
                table.entries_before_key = table.entries_before_key or bool(table.entries)
                table.keys.extend(prop[1])
            elif kind == "actions":
                table.actions.extend(prop[1])
                table.has_actions = True
            elif kind == "entries":
                table.entries.extend(prop[2])
                table.entries_const = prop[1]
            else:
                p: ast.TableProperty = prop[1]
                if p.name == "default_action":
                    table.default_before_actions = not table.has_actions
                    table.default_action = self._action_ref(p.value, p.annotations)
                    table.default_action_const = p.is_const
                else:
                    table.properties.append(p)
        return table

    @staticmethod
    def _action_ref(value: ast.Expression, annotations: list[ast.Annotation]) -> ast.ActionRef:
        func, args = value, []
        if isinstance(value, ast.MethodCallExpr) and not value.type_args:
            func, args = value.func, value.args
        if isinstance(func, ast.PathExpr):
            return ast.ActionRef(name=func.name, args=args, annotations=annotations,
                                 dot_prefix=func.dot_prefix, loc=value.loc)
        raise P4SyntaxError("default_action must name an action, e.g. `default_action = a(1);`",
                            value.loc)

    def key_prop(self, _kw: Token, _lb: Token, *elements: ast.KeyElement) -> tuple[str, list]:
        return ("key", list(elements))

    def actions_prop(self, _kw: Token, _lb: Token, *items: ast.ActionRef) -> tuple[str, list]:
        return ("actions", list(items))

    def entries_prop(self, join_anns: Any, const: Token | None, _kw: Token, _lb: Token,
                     *entries: ast.EntryDecl) -> tuple[str, bool, list]:
        return ("entries", const is not None, list(entries))

    def other_prop(self, anns: Any, const: Token | None, name: Token, value: ast.Expression,
                   _semi: Token) -> tuple[str, ast.TableProperty]:
        prop = ast.TableProperty(name=str(name), value=value, is_const=const is not None,
                                 annotations=join_anns(anns), loc=first_loc(const, name))
        return ("prop", prop)

    def key_element(self, anns: Any, expr: ast.Expression, match_kind: Token, anns2: Any,
                    _semi: Token) -> ast.KeyElement:
        return ast.KeyElement(expr=expr, match_kind=str(match_kind),
                              annotations=join_anns(anns, anns2), loc=expr.loc)

    def action_item(self, anns: Any, ref: ast.ActionRef, _semi: Token) -> ast.ActionRef:
        ref.annotations = join_anns(anns)
        return ref

    def action_ref(self, name: tuple[Token, bool, Token], _lp: Token | None,
                   args: list[ast.Argument] | None) -> ast.ActionRef:
        return ast.ActionRef(name=str(name[0]), args=args or [], dot_prefix=name[1],
                             loc=loc_of(name[2]))

    def entry(self, anns: Any, const: Token | None, priority: ast.Expression | None,
              keyset: ast.Expression, action: ast.ActionRef, anns2: Any, _semi: Token
              ) -> ast.EntryDecl:
        return ast.EntryDecl(keyset=keyset, action=action, priority=priority,
                             is_const=const is not None, annotations=join_anns(anns, anns2),
                             loc=first_loc(const, priority, keyset))

    def entry_priority(self, name: Token, value: ast.Expression) -> ast.Expression:
        if name != "priority":
            raise P4SyntaxError(f"unexpected identifier '{name}' — expected 'priority'",
                                loc_of(name))
        return value
