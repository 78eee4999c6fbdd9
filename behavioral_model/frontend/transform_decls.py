"""Transformer rules for the program and names, annotations, parameters and arguments,
externs and functions, and constant, variable and instance declarations."""

from __future__ import annotations

from typing import Any

from lark import Token, Transformer, v_args

from . import ast
from .annotcheck import check_annotation
from .errors import P4TypeError, SourceLocation
from .lexer import AnnotationToken
from .transform_base import ANNOTATION_PARSER, first_loc, join_anns, loc_of, present, with_dims

__all__ = ["DeclarationRules"]


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
class DeclarationRules(Transformer):
    """The program, names, parameters and the declarations outside blocks."""

    # ------------------------------------------------------------------ program, names

    def program(self, *decls: Any) -> ast.Program:
        return ast.Program(decls=present(decls))

    def empty_decl(self, _semi: Token) -> None:
        return None

    def annotations(self, *toks: AnnotationToken) -> list[ast.Annotation]:
        out = []
        structured = {str(tok) for tok in toks if tok.kind == "["}
        seen: set[str] = set()
        for tok in toks:
            if str(tok) in structured and str(tok) in seen:
                # Spec 18.1.2: a structured annotation's name is unique on its element.
                raise P4TypeError(f"@{tok}: duplicate name for a structured annotation",
                                  loc_of(tok))
            seen.add(str(tok))
            args: list[ast.Expression] = []
            body = tok.body
            parse = ANNOTATION_PARSER.get()
            elements = None
            if tok.kind == "(":
                parsed = parse(tok.body_tokens)
                if parsed is not None:
                    args, body = parsed, None
            elif tok.kind == "[":
                exprs = parse(tok.body_tokens)
                elements = ([(None, e) for e in exprs] if exprs is not None
                            else parse(tok.body_tokens, "annotation_kv"))
            ann = ast.Annotation(name=str(tok), args=args, body=body, structured=elements,
                                 loc=loc_of(tok))
            check_annotation(ann, tok.kind, tok.body_tokens or [], parse)
            out.append(ann)
        return out

    def non_type_name(self, tok: Token) -> Token:
        return tok

    def name(self, tok: Token) -> Token:
        return tok

    def non_table_kw_name(self, tok: Token) -> Token:
        return tok

    def prefixed_non_type_name(self, *toks: Token) -> tuple[Token, bool, Token]:
        return toks[-1], len(toks) == 2, toks[0]

    # ------------------------------------------------------------------ parameters, arguments

    def params(self, *params: ast.Parameter | None) -> list[ast.Parameter]:
        return present(params)

    def param(self, anns: Any, direction: Token | None, type_ref: ast.TypeRef, name: Token,
              dims: list[ast.Expression] | None, default: ast.Expression | None
              ) -> ast.Parameter:
        return ast.Parameter(
            name=str(name), direction=str(direction) if direction is not None else "",
            type_ref=with_dims(type_ref, dims), default=default, annotations=join_anns(anns),
            loc=first_loc(direction, type_ref),
        )

    def direction(self, tok: Token) -> Token:
        return tok

    def args(self, *args: ast.Argument | None) -> list[ast.Argument]:
        return present(args)

    def positional_arg(self, value: ast.Expression) -> ast.Argument:
        return ast.Argument(value=value, loc=value.loc)

    def dontcare_arg(self, tok: Token) -> ast.Argument:
        return ast.Argument(value=ast.DontCareExpr(loc=loc_of(tok)), loc=loc_of(tok))

    def named_arg(self, name: Token, value: ast.Expression) -> ast.Argument:
        return ast.Argument(value=value, name=str(name), loc=loc_of(name))

    def named_dontcare_arg(self, name: Token, tok: Token) -> ast.Argument:
        return ast.Argument(value=ast.DontCareExpr(loc=loc_of(tok)), name=str(name),
                            loc=loc_of(name))

    # ------------------------------------------------------------------ externs, functions

    def extern_object(self, anns: Any, kw: Token, name: Token, tparams: Any, _lb: Token,
                      *methods: ast.MethodDecl) -> ast.ExternDecl:
        return ast.ExternDecl(name=str(name), methods=list(methods), type_params=tparams or [],
                              annotations=join_anns(anns), loc=loc_of(kw))

    def extern_function(self, anns: Any, kw: Token, proto: _Proto, _semi: Token
                        ) -> ast.ExternFunctionDecl:
        return ast.ExternFunctionDecl(name=str(proto.name), return_type=proto.ret,
                                      params=proto.params, type_params=proto.type_params,
                                      annotations=join_anns(anns), loc=loc_of(kw))

    def extern_forward(self, *_items: Any) -> None:
        return None  # `extern E;` declares nothing the checker needs

    def function_proto(self, ret: ast.TypeRef, name: Token, tparams: Any, _lp: Token,
                       params: list[ast.Parameter]) -> _Proto:
        return _Proto(ret, name, tparams, params, ret.loc)

    def method(self, anns: Any, proto: _Proto, _semi: Token) -> ast.MethodDecl:
        return ast.MethodDecl(name=str(proto.name), return_type=proto.ret, params=proto.params,
                              type_params=proto.type_params, annotations=join_anns(anns),
                              loc=proto.loc)

    def abstract_method(self, anns: Any, kw: Token, proto: _Proto, _semi: Token
                        ) -> ast.MethodDecl:
        return ast.MethodDecl(name=str(proto.name), return_type=proto.ret, params=proto.params,
                              type_params=proto.type_params, is_abstract=True,
                              annotations=join_anns(anns), loc=loc_of(kw))

    def constructor(self, anns: Any, name: Token, _lp: Token, params: list[ast.Parameter],
                    _semi: Token) -> ast.MethodDecl:
        return ast.MethodDecl(name=str(name), return_type=None, params=params,
                              annotations=join_anns(anns), loc=loc_of(name))

    def function_decl(self, anns: Any, proto: _Proto, body: ast.BlockStatement
                      ) -> ast.FunctionDecl:
        return ast.FunctionDecl(name=str(proto.name), return_type=proto.ret, params=proto.params,
                                body=body, type_params=proto.type_params,
                                annotations=join_anns(anns), loc=proto.loc)

    # ------------------------------------------------------------------ declarations

    def const_decl(self, anns: Any, kw: Token, type_ref: ast.TypeRef, name: Token,
                   value: ast.Expression, _semi: Token) -> ast.ConstDecl:
        return ast.ConstDecl(name=str(name), type_ref=type_ref, value=value,
                             annotations=join_anns(anns), loc=loc_of(kw))

    def variable_decl(self, anns: Any, type_ref: ast.TypeRef, name: Token,
                      dims: list[ast.Expression] | None, init: ast.Expression | None,
                      _semi: Token) -> ast.VariableDecl:
        return ast.VariableDecl(name=str(name), type_ref=with_dims(type_ref, dims), init=init,
                                annotations=join_anns(anns), loc=type_ref.loc)

    def instantiation(self, anns: Any, type_ref: ast.TypeRef, _lp: Token,
                      args: list[ast.Argument], name: Token, dims: list[ast.Expression] | None,
                      initializer: list[ast.Declaration] | None, _semi: Token
                      ) -> ast.InstantiationDecl:
        # `E(1) e[4];`: an array of four instances (p4c's externArray1.p4).
        return ast.InstantiationDecl(name=str(name), type_ref=with_dims(type_ref, dims),
                                     args=args,
                                     initializer=initializer,
                                     annotations=join_anns(anns), loc=type_ref.loc)

    def obj_initializer(self, _lb: Token, *decls: Any) -> list[ast.Declaration]:
        return list(decls)
