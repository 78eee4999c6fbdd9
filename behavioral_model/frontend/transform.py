"""Builds `ast` nodes from the reductions of the P4 grammar (p4.lark).

The transformer runs inline with the LALR parser, so there is no intermediate parse tree.
Each callback receives the rule's children: lark Tokens (terminals whose names start with
`_` are already dropped; `[x]` gives None when absent) and the values of sub-rules. Every
node gets `loc`, the location of its first token (for declarations, of the first token after
any leading annotations), through the `locate` function of the parse in progress.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from contextvars import ContextVar
from typing import Any

from lark import Token, Transformer, v_args

from . import ast
from .errors import P4SyntaxError, SourceLocation
from .lexer import AnnotationToken, parse_int_literal

__all__ = ["LOCATE", "P4Transformer"]

Locate = Callable[[int, int], SourceLocation]

#: Maps (line, col) of the text being parsed to a source location.
LOCATE: ContextVar[Locate] = ContextVar("p4_locate")

#: Parses the tokens of an annotation body as an expression list (set by parser.py).
ANNOTATION_PARSER: ContextVar[Callable[[list[Token]], list[ast.Expression]]] = ContextVar(
    "p4_annotation_parser"
)

_BASE_TYPES = {
    "BOOL": "bool",
    "MATCH_KIND": "match_kind",
    "ERROR": "error",
    "STRING": "string",
    "INT": "int",
}
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", '"': '"', "\\": "\\"}


def _loc(item: Any) -> SourceLocation | None:
    """Location of a token, node, list/tuple (its first element)."""
    if isinstance(item, Token):
        return LOCATE.get()(item.line, item.column)
    if isinstance(item, ast.Node):
        return item.loc
    if isinstance(item, list | tuple):
        for x in item:
            loc = _loc(x)
            if loc is not None:
                return loc
    return None


def _first_loc(*items: Any) -> SourceLocation | None:
    for item in items:
        if item is not None:
            loc = _loc(item)
            if loc is not None:
                return loc
    return None


def _anns(*groups: list[ast.Annotation] | None) -> list[ast.Annotation]:
    out: list[ast.Annotation] = []
    for g in groups:
        if g:
            out.extend(g)
    return out


def _present(items: Iterable[Any]) -> list[Any]:
    return [x for x in items if x is not None]


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


class _Proto:
    """A function/method prototype: `Ret name<T>(params)`."""

    __slots__ = ("ret", "name", "type_params", "params", "loc")

    def __init__(self, ret: ast.TypeRef, name: Token, type_params: list[str] | None,
                 params: list[ast.Parameter], loc: SourceLocation | None) -> None:
        self.ret = ret
        self.name = name
        self.type_params = type_params or []
        self.params = params
        self.loc = loc


@v_args(inline=True)
class P4Transformer(Transformer):
    # ------------------------------------------------------------------ program, names

    def program(self, *decls: Any) -> ast.Program:
        return ast.Program(decls=_present(decls))

    def empty_decl(self, _semi: Token) -> None:
        return None

    def annotations(self, *toks: AnnotationToken) -> list[ast.Annotation]:
        out = []
        for tok in toks:
            args: list[ast.Expression] = []
            body = tok.body
            if tok.kind == "(":
                parsed = ANNOTATION_PARSER.get()(tok.body_tokens)
                if parsed is not None:
                    args, body = parsed, None
            out.append(ast.Annotation(name=str(tok), args=args, body=body, loc=_loc(tok)))
        return out

    def non_type_name(self, tok: Token) -> Token:
        return tok

    def name(self, tok: Token) -> Token:
        return tok

    def non_table_kw_name(self, tok: Token) -> Token:
        return tok

    def prefixed_non_type_name(self, *toks: Token) -> tuple[Token, bool, Token]:
        return toks[-1], len(toks) == 2, toks[0]

    # ------------------------------------------------------------------ types

    def type_name(self, *toks: Token) -> ast.NamedTypeRef:
        return ast.NamedTypeRef(name=str(toks[-1]), dot_prefix=len(toks) == 2, loc=_loc(toks[0]))

    def specialized_type(self, base: ast.NamedTypeRef, args: list[ast.TypeRef] | None
                         ) -> ast.SpecializedTypeRef:
        return ast.SpecializedTypeRef(base=base, args=args or [], loc=base.loc)

    def stack_type(self, elem: ast.TypeRef, _lb: Token, size: ast.Expression) -> ast.StackTypeRef:
        return ast.StackTypeRef(elem=elem, size=size, loc=elem.loc)

    def tuple_type(self, kw: Token, args: list[ast.TypeRef] | None) -> ast.TupleTypeRef:
        return ast.TupleTypeRef(elems=args or [], loc=_loc(kw))

    def base_type(self, kw: Token) -> ast.TypeRef:
        if kw.type == "BIT":
            one = ast.IntLiteral(value=1, loc=_loc(kw))
            return ast.BitTypeRef(width=one, loc=_loc(kw))
        return ast.BaseTypeRef(name=_BASE_TYPES[kw.type], loc=_loc(kw))

    def bit_type(self, kw: Token, width: ast.Expression) -> ast.BitTypeRef:
        return ast.BitTypeRef(width=width, signed=False, loc=_loc(kw))

    def int_type(self, kw: Token, width: ast.Expression) -> ast.BitTypeRef:
        return ast.BitTypeRef(width=width, signed=True, loc=_loc(kw))

    def varbit_type(self, kw: Token, width: ast.Expression) -> ast.VarbitTypeRef:
        return ast.VarbitTypeRef(width=width, loc=_loc(kw))

    def width(self, *items: Any) -> ast.Expression:
        if len(items) == 1:
            return self.int_lit(items[0])
        return items[1]

    def void_type(self, kw: Token) -> ast.BaseTypeRef:
        return ast.BaseTypeRef(name="void", loc=_loc(kw))

    def dontcare_type(self, tok: Token) -> ast.DontCareTypeRef:
        return ast.DontCareTypeRef(loc=_loc(tok))

    def type_args(self, *args: ast.TypeRef) -> list[ast.TypeRef]:
        return list(args)

    def type_params(self, *names: Token) -> list[str]:
        return [str(n) for n in names]

    # ------------------------------------------------------------------ type declarations

    def _fields_decl(self, cls: type, anns: Any, kw: Token, name: Token, tparams: Any,
                     _lb: Token, fields: tuple[ast.StructField, ...]) -> Any:
        return cls(name=str(name), fields=list(fields), type_params=tparams or [],
                   annotations=_anns(anns), loc=_loc(kw))

    def header_decl(self, anns: Any, kw: Token, name: Token, tparams: Any, lb: Token,
                    *fields: ast.StructField) -> ast.HeaderDecl:
        return self._fields_decl(ast.HeaderDecl, anns, kw, name, tparams, lb, fields)

    def header_union_decl(self, anns: Any, kw: Token, name: Token, tparams: Any, lb: Token,
                          *fields: ast.StructField) -> ast.HeaderUnionDecl:
        return self._fields_decl(ast.HeaderUnionDecl, anns, kw, name, tparams, lb, fields)

    def struct_decl(self, anns: Any, kw: Token, name: Token, tparams: Any, lb: Token,
                    *fields: ast.StructField) -> ast.StructDecl:
        return self._fields_decl(ast.StructDecl, anns, kw, name, tparams, lb, fields)

    def struct_field(self, anns: Any, type_ref: ast.TypeRef, name: Token, _semi: Token
                     ) -> ast.StructField:
        return ast.StructField(name=str(name), type_ref=type_ref, annotations=_anns(anns),
                               loc=type_ref.loc)

    def enum_decl(self, anns: Any, kw: Token, name: Token, _lb: Token, *members: Any
                  ) -> ast.EnumDecl:
        return ast.EnumDecl(name=str(name), members=_present(members), annotations=_anns(anns),
                            loc=_loc(kw))

    def ser_enum_decl(self, anns: Any, kw: Token, underlying: ast.TypeRef, name: Token,
                      _lb: Token, *members: Any) -> ast.EnumDecl:
        return ast.EnumDecl(name=str(name), members=_present(members), underlying=underlying,
                            annotations=_anns(anns), loc=_loc(kw))

    def enum_member(self, anns: Any, name: Token) -> ast.EnumMember:
        return ast.EnumMember(name=str(name), annotations=_anns(anns), loc=_loc(name))

    def ser_enum_member(self, anns: Any, name: Token, value: ast.Expression) -> ast.EnumMember:
        return ast.EnumMember(name=str(name), value=value, annotations=_anns(anns),
                              loc=_loc(name))

    def error_decl(self, kw: Token, _lb: Token, names: list[str]) -> ast.ErrorDecl:
        return ast.ErrorDecl(members=names, loc=_loc(kw))

    def match_kind_decl(self, kw: Token, _lb: Token, names: list[str]) -> ast.MatchKindDecl:
        return ast.MatchKindDecl(members=names, loc=_loc(kw))

    def identifier_list(self, *names: Token | None) -> list[str]:
        return [str(n) for n in names if n is not None]

    def typedef_decl(self, anns: Any, kw: Token, type_ref: ast.TypeRef, name: Token,
                     _semi: Token) -> ast.TypedefDecl:
        return ast.TypedefDecl(name=str(name), type_ref=type_ref, annotations=_anns(anns),
                               loc=_loc(kw))

    def newtype_decl(self, anns: Any, kw: Token, type_ref: ast.TypeRef, name: Token,
                     _semi: Token) -> ast.NewTypeDecl:
        return ast.NewTypeDecl(name=str(name), type_ref=type_ref, annotations=_anns(anns),
                               loc=_loc(kw))

    def package_decl(self, anns: Any, kw: Token, name: Token, tparams: Any, _lp: Token,
                     params: list[ast.Parameter], _semi: Token) -> ast.PackageTypeDecl:
        return ast.PackageTypeDecl(name=str(name), params=params, type_params=tparams or [],
                                   annotations=_anns(anns), loc=_loc(kw))

    # ------------------------------------------------------------------ parameters, arguments

    def params(self, *params: ast.Parameter | None) -> list[ast.Parameter]:
        return _present(params)

    def param(self, anns: Any, direction: Token | None, type_ref: ast.TypeRef, name: Token,
              default: ast.Expression | None) -> ast.Parameter:
        return ast.Parameter(
            name=str(name), direction=str(direction) if direction is not None else "",
            type_ref=type_ref, default=default, annotations=_anns(anns),
            loc=_first_loc(direction, type_ref),
        )

    def direction(self, tok: Token) -> Token:
        return tok

    def args(self, *args: ast.Argument | None) -> list[ast.Argument]:
        return _present(args)

    def positional_arg(self, value: ast.Expression) -> ast.Argument:
        return ast.Argument(value=value, loc=value.loc)

    def dontcare_arg(self, tok: Token) -> ast.Argument:
        return ast.Argument(value=ast.DontCareExpr(loc=_loc(tok)), loc=_loc(tok))

    def named_arg(self, name: Token, value: ast.Expression) -> ast.Argument:
        return ast.Argument(value=value, name=str(name), loc=_loc(name))

    def named_dontcare_arg(self, name: Token, tok: Token) -> ast.Argument:
        return ast.Argument(value=ast.DontCareExpr(loc=_loc(tok)), name=str(name),
                            loc=_loc(name))

    # ------------------------------------------------------------------ externs, functions

    def extern_object(self, anns: Any, kw: Token, name: Token, tparams: Any, _lb: Token,
                      *methods: ast.MethodDecl) -> ast.ExternDecl:
        return ast.ExternDecl(name=str(name), methods=list(methods), type_params=tparams or [],
                              annotations=_anns(anns), loc=_loc(kw))

    def extern_function(self, anns: Any, kw: Token, proto: _Proto, _semi: Token
                        ) -> ast.ExternFunctionDecl:
        return ast.ExternFunctionDecl(name=str(proto.name), return_type=proto.ret,
                                      params=proto.params, type_params=proto.type_params,
                                      annotations=_anns(anns), loc=_loc(kw))

    def extern_forward(self, *_items: Any) -> None:
        return None  # `extern E;` declares nothing the checker needs

    def function_proto(self, ret: ast.TypeRef, name: Token, tparams: Any, _lp: Token,
                       params: list[ast.Parameter]) -> _Proto:
        return _Proto(ret, name, tparams, params, ret.loc)

    def method(self, anns: Any, proto: _Proto, _semi: Token) -> ast.MethodDecl:
        return ast.MethodDecl(name=str(proto.name), return_type=proto.ret, params=proto.params,
                              type_params=proto.type_params, annotations=_anns(anns),
                              loc=proto.loc)

    def abstract_method(self, anns: Any, kw: Token, proto: _Proto, _semi: Token
                        ) -> ast.MethodDecl:
        return ast.MethodDecl(name=str(proto.name), return_type=proto.ret, params=proto.params,
                              type_params=proto.type_params, is_abstract=True,
                              annotations=_anns(anns), loc=_loc(kw))

    def constructor(self, anns: Any, name: Token, _lp: Token, params: list[ast.Parameter],
                    _semi: Token) -> ast.MethodDecl:
        return ast.MethodDecl(name=str(name), return_type=None, params=params,
                              annotations=_anns(anns), loc=_loc(name))

    def function_decl(self, anns: Any, proto: _Proto, body: ast.BlockStatement
                      ) -> ast.FunctionDecl:
        return ast.FunctionDecl(name=str(proto.name), return_type=proto.ret, params=proto.params,
                                body=body, type_params=proto.type_params,
                                annotations=_anns(anns), loc=proto.loc)

    # ------------------------------------------------------------------ parsers

    def parser_type_decl(self, anns: Any, kw: Token, name: Token, tparams: Any, _lp: Token,
                         params: list[ast.Parameter]) -> ast.ParserTypeDecl:
        return ast.ParserTypeDecl(name=str(name), params=params, type_params=tparams or [],
                                  annotations=_anns(anns), loc=_loc(kw))

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
                                annotations=_anns(anns), loc=_loc(kw))

    def parser_state(self, anns: Any, kw: Token, name: Token, _lb: Token, *items: Any
                     ) -> ast.ParserState:
        transition = items[-1] if items else None
        body = list(items[:-1]) if items else []
        return ast.ParserState(name=str(name), body=body, transition=transition,
                               annotations=_anns(anns), loc=_loc(kw))

    def direct_transition(self, kw: Token, state: Token, _semi: Token) -> ast.DirectTransition:
        return ast.DirectTransition(state=str(state), loc=_loc(kw))

    def select_transition(self, kw: Token, select: ast.SelectTransition) -> ast.SelectTransition:
        select.loc = _loc(kw)
        return select

    def select_expr(self, kw: Token, _lp: Token, keys: list[ast.Expression] | None, _lb: Token,
                    *cases: ast.SelectCase) -> ast.SelectTransition:
        return ast.SelectTransition(keys=keys or [], cases=list(cases), loc=_loc(kw))

    def select_case(self, keyset: ast.Expression, state: Token, _semi: Token) -> ast.SelectCase:
        return ast.SelectCase(keyset=keyset, state=str(state), loc=keyset.loc)

    def tuple_keyset(self, lp: Token, *elems: ast.Expression) -> ast.ListExpr:
        return ast.ListExpr(elems=list(elems), loc=_loc(lp))

    def paren_keyset(self, _lp: Token, elem: ast.Expression) -> ast.Expression:
        return elem

    def mask_expr(self, value: ast.Expression, _op: Token, mask: ast.Expression) -> ast.MaskExpr:
        return ast.MaskExpr(value=value, mask=mask, loc=value.loc)

    def range_expr(self, low: ast.Expression, _op: Token, high: ast.Expression) -> ast.RangeExpr:
        return ast.RangeExpr(low=low, high=high, loc=low.loc)

    def default_expr(self, tok: Token) -> ast.DefaultExpr:
        return ast.DefaultExpr(loc=_loc(tok))

    def dontcare_expr(self, tok: Token) -> ast.DontCareExpr:
        return ast.DontCareExpr(loc=_loc(tok))

    # ------------------------------------------------------------------ controls, tables

    def control_type_decl(self, anns: Any, kw: Token, name: Token, tparams: Any, _lp: Token,
                          params: list[ast.Parameter]) -> ast.ControlTypeDecl:
        return ast.ControlTypeDecl(name=str(name), params=params, type_params=tparams or [],
                                   annotations=_anns(anns), loc=_loc(kw))

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
        return ast.ActionDecl(name=str(name), params=params, body=body, annotations=_anns(anns),
                              loc=_loc(kw))

    def table_decl(self, anns: Any, kw: Token, name: Token, _lb: Token, *props: Any
                   ) -> ast.TableDecl:
        table = ast.TableDecl(name=str(name), annotations=_anns(anns), loc=_loc(kw))
        for prop in props:
            kind = prop[0]
            if kind == "key":
                table.keys.extend(prop[1])
            elif kind == "actions":
                table.actions.extend(prop[1])
            elif kind == "entries":
                table.entries.extend(prop[2])
                table.entries_const = prop[1]
            else:
                p: ast.TableProperty = prop[1]
                if p.name == "default_action":
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
                                 loc=value.loc)
        raise P4SyntaxError("default_action must name an action, e.g. `default_action = a(1);`",
                            value.loc)

    def key_prop(self, _kw: Token, _lb: Token, *elements: ast.KeyElement) -> tuple[str, list]:
        return ("key", list(elements))

    def actions_prop(self, _kw: Token, _lb: Token, *items: ast.ActionRef) -> tuple[str, list]:
        return ("actions", list(items))

    def entries_prop(self, _anns: Any, const: Token | None, _kw: Token, _lb: Token,
                     *entries: ast.EntryDecl) -> tuple[str, bool, list]:
        return ("entries", const is not None, list(entries))

    def other_prop(self, anns: Any, const: Token | None, name: Token, value: ast.Expression,
                   _semi: Token) -> tuple[str, ast.TableProperty]:
        prop = ast.TableProperty(name=str(name), value=value, is_const=const is not None,
                                 annotations=_anns(anns), loc=_first_loc(const, name))
        return ("prop", prop)

    def key_element(self, anns: Any, expr: ast.Expression, match_kind: Token, anns2: Any,
                    _semi: Token) -> ast.KeyElement:
        return ast.KeyElement(expr=expr, match_kind=str(match_kind),
                              annotations=_anns(anns, anns2), loc=expr.loc)

    def action_item(self, anns: Any, ref: ast.ActionRef, _semi: Token) -> ast.ActionRef:
        ref.annotations = _anns(anns)
        return ref

    def action_ref(self, name: tuple[Token, bool, Token], _lp: Token | None,
                   args: list[ast.Argument] | None) -> ast.ActionRef:
        return ast.ActionRef(name=str(name[0]), args=args or [], loc=_loc(name[2]))

    def entry(self, anns: Any, const: Token | None, priority: ast.Expression | None,
              keyset: ast.Expression, action: ast.ActionRef, anns2: Any, _semi: Token
              ) -> ast.EntryDecl:
        return ast.EntryDecl(keyset=keyset, action=action, priority=priority,
                             is_const=const is not None, annotations=_anns(anns, anns2),
                             loc=_first_loc(const, priority, keyset))

    def entry_priority(self, name: Token, value: ast.Expression) -> ast.Expression:
        if name != "priority":
            raise P4SyntaxError(f"unexpected identifier '{name}' — expected 'priority'",
                                _loc(name))
        return value

    # ------------------------------------------------------------------ declarations

    def const_decl(self, anns: Any, kw: Token, type_ref: ast.TypeRef, name: Token,
                   value: ast.Expression, _semi: Token) -> ast.ConstDecl:
        return ast.ConstDecl(name=str(name), type_ref=type_ref, value=value,
                             annotations=_anns(anns), loc=_loc(kw))

    def variable_decl(self, anns: Any, type_ref: ast.TypeRef, name: Token,
                      init: ast.Expression | None, _semi: Token) -> ast.VariableDecl:
        return ast.VariableDecl(name=str(name), type_ref=type_ref, init=init,
                                annotations=_anns(anns), loc=type_ref.loc)

    def instantiation(self, anns: Any, type_ref: ast.TypeRef, _lp: Token,
                      args: list[ast.Argument], name: Token, _semi: Token
                      ) -> ast.InstantiationDecl:
        return ast.InstantiationDecl(name=str(name), type_ref=type_ref, args=args,
                                     annotations=_anns(anns), loc=type_ref.loc)

    # ------------------------------------------------------------------ statements

    def assignment(self, lhs: ast.Expression, rhs: ast.Expression, _semi: Token
                   ) -> ast.AssignmentStatement:
        return ast.AssignmentStatement(lhs=lhs, rhs=rhs, loc=lhs.loc)

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
        return ast.IfStatement(cond=cond, then=then, else_=else_, loc=_loc(kw))

    def empty_stmt(self, semi: Token) -> ast.EmptyStatement:
        return ast.EmptyStatement(loc=_loc(semi))

    def block(self, anns: Any, lb: Token, *stmts: Any) -> ast.BlockStatement:
        return ast.BlockStatement(stmts=list(stmts), annotations=_anns(anns), loc=_loc(lb))

    def return_stmt(self, kw: Token, value: ast.Expression | None, _semi: Token
                    ) -> ast.ReturnStatement:
        return ast.ReturnStatement(value=value, loc=_loc(kw))

    def exit_stmt(self, kw: Token, _semi: Token) -> ast.ExitStatement:
        return ast.ExitStatement(loc=_loc(kw))

    def switch_stmt(self, kw: Token, _lp: Token, expr: ast.Expression, _lb: Token,
                    *cases: ast.SwitchCase) -> ast.SwitchStatement:
        return ast.SwitchStatement(expr=expr, cases=list(cases), loc=_loc(kw))

    def switch_case(self, label: ast.Expression, body: ast.BlockStatement | None
                    ) -> ast.SwitchCase:
        return ast.SwitchCase(labels=[label], body=body, loc=label.loc)

    # ------------------------------------------------------------------ expressions

    def expression_list(self, *exprs: ast.Expression) -> list[ast.Expression]:
        return list(exprs)

    def annotation_args(self, exprs: list[ast.Expression] | None) -> list[ast.Expression]:
        return exprs or []

    def kv_list(self, *pairs: tuple[str, ast.Expression]) -> list[tuple[str, ast.Expression]]:
        return list(pairs)

    def kv_pair(self, name: Token, value: ast.Expression) -> tuple[str, ast.Expression]:
        return (str(name), value)

    def ternary_expr(self, cond: ast.Expression, then: ast.Expression, else_: ast.Expression
                     ) -> ast.TernaryExpr:
        return ast.TernaryExpr(cond=cond, then=then, else_=else_, loc=cond.loc)

    def binop(self, left: ast.Expression, op: Token, right: ast.Expression) -> ast.BinaryExpr:
        return ast.BinaryExpr(op=str(op), left=left, right=right, loc=left.loc)

    def unop(self, op: Token, operand: ast.Expression) -> ast.UnaryExpr:
        return ast.UnaryExpr(op=str(op), operand=operand, loc=_loc(op))

    def cast(self, lp: Token, type_ref: ast.TypeRef, expr: ast.Expression) -> ast.CastExpr:
        return ast.CastExpr(type_ref=type_ref, expr=expr, loc=_loc(lp))

    def member(self, base: ast.Expression, _dot: Token, name: Token) -> ast.MemberExpr:
        return ast.MemberExpr(base=base, member=str(name), loc=base.loc)

    def index(self, base: ast.Expression, _lb: Token, index: ast.Expression) -> ast.IndexExpr:
        return ast.IndexExpr(base=base, index=index, loc=base.loc)

    def slice(self, base: ast.Expression, _lb: Token, hi: ast.Expression, lo: ast.Expression
              ) -> ast.SliceExpr:
        return ast.SliceExpr(base=base, hi=hi, lo=lo, loc=base.loc)

    def call(self, func: ast.Expression, _lp: Token, args: list[ast.Argument]
             ) -> ast.MethodCallExpr:
        return ast.MethodCallExpr(func=func, args=args, loc=func.loc)

    def generic_call(self, func: ast.Expression, type_args: list[ast.TypeRef], _lp: Token,
                     args: list[ast.Argument]) -> ast.MethodCallExpr:
        return ast.MethodCallExpr(func=func, type_args=type_args, args=args, loc=func.loc)

    def int_lit(self, tok: Token) -> ast.IntLiteral:
        parsed = parse_int_literal(str(tok))
        if parsed is None:  # the lexer turns bad literals into BAD tokens already
            raise P4SyntaxError(f"invalid integer literal '{tok}'", _loc(tok))
        value, width, signed = parsed
        return ast.IntLiteral(value=value, width=width, signed=signed, loc=_loc(tok))

    def str_lit(self, tok: Token) -> ast.StringLiteral:
        return ast.StringLiteral(value=_unescape(str(tok)[1:-1]), loc=_loc(tok))

    def true_lit(self, tok: Token) -> ast.BoolLiteral:
        return ast.BoolLiteral(value=True, loc=_loc(tok))

    def false_lit(self, tok: Token) -> ast.BoolLiteral:
        return ast.BoolLiteral(value=False, loc=_loc(tok))

    def path(self, name: tuple[Token, bool, Token]) -> ast.PathExpr:
        return ast.PathExpr(name=str(name[0]), dot_prefix=name[1], loc=_loc(name[2]))

    def paren(self, _lp: Token, expr: ast.Expression) -> ast.Expression:
        return expr

    def list_expr(self, lb: Token, exprs: list[ast.Expression] | None) -> ast.ListExpr:
        return ast.ListExpr(elems=exprs or [], loc=_loc(lb))

    def struct_init(self, lb: Token, pairs: list[tuple[str, ast.Expression]]
                    ) -> ast.StructInitExpr:
        return ast.StructInitExpr(fields=pairs, loc=_loc(lb))

    def type_member(self, type_ref: ast.TypeRef, _dot: Token, name: Token) -> ast.MemberExpr:
        base = ast.TypeNameExpr(type_ref=type_ref, loc=type_ref.loc)
        return ast.MemberExpr(base=base, member=str(name), loc=type_ref.loc)

    def error_member(self, kw: Token, _dot: Token, name: Token) -> ast.MemberExpr:
        type_ref = ast.BaseTypeRef(name="error", loc=_loc(kw))
        base = ast.TypeNameExpr(type_ref=type_ref, loc=_loc(kw))
        return ast.MemberExpr(base=base, member=str(name), loc=_loc(kw))

    def ctor_call(self, type_ref: ast.TypeRef, _lp: Token, args: list[ast.Argument]
                  ) -> ast.ConstructorCallExpr:
        return ast.ConstructorCallExpr(type_ref=type_ref, args=args, loc=type_ref.loc)
