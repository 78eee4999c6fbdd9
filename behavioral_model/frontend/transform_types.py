"""Transformer rules for types: type references and the declarations of new types
(header, header_union, struct, enum, error, match_kind, typedef, type, package)."""

from __future__ import annotations

from typing import Any

from lark import Token, Transformer, v_args

from . import ast
from .transform_base import join_anns, loc_of, present, with_dims

__all__ = ["TypeRules"]

_BASE_TYPES = {
    "BOOL": "bool",
    "MATCH_KIND": "match_kind",
    "ERROR": "error",
    "STRING": "string",
    "INT": "int",
}


@v_args(inline=True)
class TypeRules(Transformer):
    """Type references and the declarations of new types."""

    # ------------------------------------------------------------------ types

    def type_name(self, *toks: Token) -> ast.NamedTypeRef:
        return ast.NamedTypeRef(name=str(toks[-1]), dot_prefix=len(toks) == 2, loc=loc_of(toks[0]))

    def specialized_type(self, base: ast.NamedTypeRef, args: list[ast.TypeRef] | None
                         ) -> ast.SpecializedTypeRef:
        return ast.SpecializedTypeRef(base=base, args=args or [], loc=base.loc)

    def stack_type(self, elem: ast.TypeRef, _lb: Token, size: ast.Expression) -> ast.StackTypeRef:
        return ast.StackTypeRef(elem=elem, size=size, loc=elem.loc)

    def array_dims(self, *items: Any) -> list[ast.Expression]:
        return [x for x in items if isinstance(x, ast.Expression)]

    def tuple_type(self, kw: Token, args: list[ast.TypeRef] | None) -> ast.TupleTypeRef:
        return ast.TupleTypeRef(elems=args or [], loc=loc_of(kw))

    def list_type(self, kw: Token, elem: ast.TypeRef) -> ast.ListTypeRef:
        return ast.ListTypeRef(elem=elem, loc=loc_of(kw))

    def base_type(self, kw: Token) -> ast.TypeRef:
        if kw.type == "BIT":
            one = ast.IntLiteral(value=1, loc=loc_of(kw))
            return ast.BitTypeRef(width=one, loc=loc_of(kw))
        return ast.BaseTypeRef(name=_BASE_TYPES[kw.type], loc=loc_of(kw))

    def bit_type(self, kw: Token, width: ast.Expression) -> ast.BitTypeRef:
        return ast.BitTypeRef(width=width, signed=False, loc=loc_of(kw))

    def int_type(self, kw: Token, width: ast.Expression) -> ast.BitTypeRef:
        return ast.BitTypeRef(width=width, signed=True, loc=loc_of(kw))

    def varbit_type(self, kw: Token, width: ast.Expression) -> ast.VarbitTypeRef:
        return ast.VarbitTypeRef(width=width, loc=loc_of(kw))

    def width(self, expr: ast.Expression) -> ast.Expression:
        return expr

    def void_type(self, kw: Token) -> ast.BaseTypeRef:
        return ast.BaseTypeRef(name="void", loc=loc_of(kw))

    def dontcare_type(self, tok: Token) -> ast.DontCareTypeRef:
        return ast.DontCareTypeRef(loc=loc_of(tok))

    def type_args(self, *args: ast.TypeRef) -> list[ast.TypeRef]:
        return list(args)

    def type_params(self, *names: Token) -> list[str]:
        return [str(n) for n in names]

    # ------------------------------------------------------------------ type declarations

    def _fields_decl(self, cls: type, anns: Any, kw: Token, name: Token, tparams: Any,
                     _lb: Token, fields: tuple[ast.StructField, ...]) -> Any:
        return cls(name=str(name), fields=list(fields), type_params=tparams or [],
                   annotations=join_anns(anns), loc=loc_of(kw))

    def header_decl(self, anns: Any, kw: Token, name: Token, tparams: Any, lb: Token,
                    *fields: ast.StructField) -> ast.HeaderDecl:
        return self._fields_decl(ast.HeaderDecl, anns, kw, name, tparams, lb, fields)

    def header_union_decl(self, anns: Any, kw: Token, name: Token, tparams: Any, lb: Token,
                          *fields: ast.StructField) -> ast.HeaderUnionDecl:
        return self._fields_decl(ast.HeaderUnionDecl, anns, kw, name, tparams, lb, fields)

    def struct_decl(self, anns: Any, kw: Token, name: Token, tparams: Any, lb: Token,
                    *fields: ast.StructField) -> ast.StructDecl:
        return self._fields_decl(ast.StructDecl, anns, kw, name, tparams, lb, fields)

    def struct_field(self, anns: Any, type_ref: ast.TypeRef, name: Token,
                     dims: list[ast.Expression] | None, _semi: Token) -> ast.StructField:
        return ast.StructField(name=str(name), type_ref=with_dims(type_ref, dims),
                               annotations=join_anns(anns),
                               loc=type_ref.loc)

    def enum_decl(self, anns: Any, kw: Token, name: Token, _lb: Token, *members: Any
                  ) -> ast.EnumDecl:
        return ast.EnumDecl(name=str(name), members=present(members), annotations=join_anns(anns),
                            loc=loc_of(kw))

    def ser_enum_decl(self, anns: Any, kw: Token, underlying: ast.TypeRef, name: Token,
                      _lb: Token, *members: Any) -> ast.EnumDecl:
        return ast.EnumDecl(name=str(name), members=present(members), underlying=underlying,
                            annotations=join_anns(anns), loc=loc_of(kw))

    def enum_member(self, anns: Any, name: Token) -> ast.EnumMember:
        return ast.EnumMember(name=str(name), annotations=join_anns(anns), loc=loc_of(name))

    def ser_enum_member(self, anns: Any, name: Token, value: ast.Expression) -> ast.EnumMember:
        return ast.EnumMember(name=str(name), value=value, annotations=join_anns(anns),
                              loc=loc_of(name))

    def error_decl(self, kw: Token, _lb: Token, names: list[str]) -> ast.ErrorDecl:
        return ast.ErrorDecl(members=names, loc=loc_of(kw))

    def match_kind_decl(self, kw: Token, _lb: Token, names: list[str]) -> ast.MatchKindDecl:
        return ast.MatchKindDecl(members=names, loc=loc_of(kw))

    def identifier_list(self, *names: Token | None) -> list[str]:
        return [str(n) for n in names if n is not None]

    def inline_typedef(self, _anns: Any, _kw: Token, _decl: Any, _name: Token, _semi: Token
                       ) -> None:
        return None  # see the grammar: it declares nothing p4test lets a program use

    def typedef_decl(self, anns: Any, kw: Token, type_ref: ast.TypeRef, name: Token,
                     dims: list[ast.Expression] | None, _semi: Token) -> ast.TypedefDecl:
        return ast.TypedefDecl(name=str(name), type_ref=with_dims(type_ref, dims),
                               annotations=join_anns(anns),
                               loc=loc_of(kw))

    def newtype_decl(self, anns: Any, kw: Token, type_ref: ast.TypeRef, name: Token,
                     _semi: Token) -> ast.NewTypeDecl:
        return ast.NewTypeDecl(name=str(name), type_ref=type_ref, annotations=join_anns(anns),
                               loc=loc_of(kw))

    def package_decl(self, anns: Any, kw: Token, name: Token, tparams: Any, _lp: Token,
                     params: list[ast.Parameter], _semi: Token) -> ast.PackageTypeDecl:
        return ast.PackageTypeDecl(name=str(name), params=params, type_params=tparams or [],
                                   annotations=join_anns(anns), loc=loc_of(kw))
