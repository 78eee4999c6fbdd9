"""Turning syntactic type references into semantic types (P4_16 spec 7)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from . import ast
from .consteval import NotConstant, evaluate
from .errors import P4TypeError
from .naming import iter_nodes
from .scope import Scope, TypeParamDecl
from .types import (
    BitT,
    BoolT,
    ControlT,
    DontCareT,
    EnumT,
    ErrorT,
    ExternT,
    HeaderT,
    HeaderUnionT,
    IntT,
    ListT,
    MatchKindT,
    NewT,
    PackageT,
    ParserT,
    StackT,
    StringT,
    StructLike,
    StructT,
    TupleT,
    Type,
    TypeVar,
    VarbitT,
    VoidT,
)

BASE_TYPES: dict[str, Type] = {
    "bool": BoolT(),
    "error": ErrorT(),
    "string": StringT(),
    "int": IntT(),
    "void": VoidT(),
    "match_kind": MatchKindT(),
}


class TypeResolver:
    """Resolves type references; caches the type of each declaration so identity holds."""

    def __init__(self, check_expr: Any) -> None:
        # check_expr(expr, scope, expected) types a width/size expression before folding.
        self._check_expr = check_expr
        self._decl_types: dict[int, Type] = {}
        self.root: Scope | None = None  # the program's top-level scope, set by the checker
        # The type declarations whose bodies are being checked: p4c's ResolveReferences
        # refuses a reference to one of them from inside ("Self-referencing types not
        # supported"), e.g. `struct S { S x; }` or a control instantiating itself.
        self._enclosing: list[Any] = []

    @contextmanager
    def inside(self, decl: Any) -> Iterator[None]:
        """Check the body of type declaration `decl`: references to it are errors."""
        self._enclosing.append(decl)
        try:
            yield
        finally:
            self._enclosing.pop()

    def check_not_enclosing(self, decl: Any, ref: ast.Node) -> None:
        if any(d is decl for d in self._enclosing):
            raise P4TypeError(f"self-referencing types not supported: '{decl.name}' within "
                              f"its own declaration", ref.loc)

    def const_int(self, expr: ast.Expression, scope: Scope, what: str) -> int:
        self._check_expr(expr, scope, None)
        try:
            value = evaluate(expr)
        except NotConstant:
            raise P4TypeError(f"{what} must be a compile-time constant", expr.loc) from None
        if isinstance(value, bool) or not isinstance(value, int):
            raise P4TypeError(f"{what} must be an integer", expr.loc)
        return value

    def resolve(self, ref: ast.TypeRef, scope: Scope) -> Type:
        t = self._resolve(ref, scope)
        ref.resolved = t
        return t

    def _resolve(self, ref: ast.TypeRef, scope: Scope) -> Type:
        if isinstance(ref, ast.BaseTypeRef):
            if ref.name not in BASE_TYPES:
                raise P4TypeError(f"unknown type '{ref.name}'", ref.loc)
            return BASE_TYPES[ref.name]
        if isinstance(ref, ast.BitTypeRef):
            width = self.const_int(ref.width, scope, "bit width")
            if width >= 1 << 31:  # p4c keeps widths in an int
                raise P4TypeError(f"{width:#x}: this implementation does not support "
                                  "bitstrings this large", ref.loc)
            if width < (1 if ref.signed else 0):
                raise P4TypeError(f"invalid width {width} for {'int' if ref.signed else 'bit'}",
                                  ref.loc)
            return BitT(width, ref.signed)
        if isinstance(ref, ast.VarbitTypeRef):
            width = self.const_int(ref.width, scope, "varbit width")
            if width < 0:  # p4c accepts varbit<0> (its issue3486.p4)
                raise P4TypeError(f"invalid varbit width {width}", ref.loc)
            return VarbitT(width)
        if isinstance(ref, ast.DontCareTypeRef):
            return DontCareT()
        if isinstance(ref, ast.TupleTypeRef):
            elems = tuple(self.resolve(e, scope) for e in ref.elems)
            for e, et in zip(ref.elems, elems, strict=True):
                if isinstance(et, ExternT | ParserT | ControlT | PackageT | StringT | DontCareT
                              | VoidT):
                    # p4c: a tuple holds data, not instances (its TypeInference), and
                    # its fields have types (no string, `_` or void).
                    raise P4TypeError(f"{et}: not supported as a tuple field", e.loc)
            return TupleT(elems)
        if isinstance(ref, ast.ListTypeRef):
            elem = self.resolve(ref.elem, scope)
            if isinstance(elem, ExternT | ParserT | ControlT | PackageT | DontCareT | VoidT):
                raise P4TypeError(f"{elem}: not supported as a list element", ref.elem.loc)
            return ListT(elem)
        if isinstance(ref, ast.StackTypeRef):
            # A header stack, or an array of any other data type (P4_16 1.2.5; p4c's
            # array1.p4 ... array5.p4): the same type, only stacks have next/size/push.
            elem = self.resolve(ref.elem, scope)
            if isinstance(elem, ExternT | ParserT | ControlT | PackageT | DontCareT | VoidT):
                raise P4TypeError(f"{elem}: not supported as an array element", ref.elem.loc)
            size = self.const_int(ref.size, scope, "header stack size")
            if size < 0:  # p4c accepts a stack of no elements (its minsize.p4)
                raise P4TypeError(f"header stack size must not be negative, got {size}", ref.loc)
            return StackT(elem, size)
        if isinstance(ref, ast.NamedTypeRef):
            return self.named(ref.name, scope.root() if ref.dot_prefix else scope, ref)
        if isinstance(ref, ast.SpecializedTypeRef):
            for a in ref.args:
                arg_decl = scope.lookup(a.name) if isinstance(a, ast.NamedTypeRef) else None
                if isinstance(arg_decl, ast.StructDecl | ast.HeaderDecl | ast.HeaderUnionDecl) \
                        and arg_decl.type_params:
                    # p4c: a type argument is a type, not a generic type left unspecialised.
                    raise P4TypeError(f"{a.name}: generic type needs type arguments", a.loc)
            args = tuple(self.resolve(a, scope) for a in ref.args)
            base_decl = self._lookup_type_decl(ref.base.name, scope, ref)
            ref.base.resolved = None
            return self.specialize(base_decl, args, ref)
        raise P4TypeError(f"unsupported type syntax {type(ref).__name__}", ref.loc)

    def _lookup_type_decl(self, name: str, scope: Scope, ref: ast.Node) -> Any:
        decl = scope.lookup(name)
        if decl is None:
            raise P4TypeError(f"unknown type '{name}'", ref.loc)
        self.check_not_enclosing(decl, ref)
        return decl

    def named(self, name: str, scope: Scope, ref: ast.Node) -> Type:
        decl = self._lookup_type_decl(name, scope, ref)
        if isinstance(decl, TypeParamDecl):
            return decl.bound
        t = self.decl_type(decl, scope)
        if t is None:
            raise P4TypeError(f"'{name}' is not a type", ref.loc)
        return t

    def decl_type(self, decl: Any, scope: Scope) -> Type | None:
        """The type a declaration introduces (None for non-type declarations)."""
        key = id(decl)
        if key in self._decl_types:
            return self._decl_types[key]
        t: Type | None
        if isinstance(decl, ast.HeaderDecl | ast.StructDecl | ast.HeaderUnionDecl):
            cls = {ast.HeaderDecl: HeaderT, ast.StructDecl: StructT,
                   ast.HeaderUnionDecl: HeaderUnionT}[type(decl)]
            t = cls(decl.name, decl)
            self._decl_types[key] = t  # before the fields: allows self-reference errors
            inner = scope.root().child("type")
            for p in decl.type_params:
                inner.declare(p, TypeParamDecl(p, TypeVar(p, decl)), decl.loc)
            assert isinstance(t, StructLike)
            with self.inside(decl):
                t.fields = self._fields(decl, inner, cls)
            return t
        if isinstance(decl, ast.EnumDecl):
            t = self._enum(decl, scope)
        elif isinstance(decl, ast.TypedefDecl):
            t = self.resolve(decl.type_ref, scope.root())
        elif isinstance(decl, ast.NewTypeDecl):
            t = NewT(decl.name, decl, base=self.resolve(decl.type_ref, scope.root()))
        elif isinstance(decl, ast.ExternDecl):
            t = ExternT(decl.name, decl)
        elif isinstance(decl, ast.ParserTypeDecl | ast.ParserDecl):
            t = ParserT(decl.name, decl)
        elif isinstance(decl, ast.ControlTypeDecl | ast.ControlDecl):
            t = ControlT(decl.name, decl)
        elif isinstance(decl, ast.PackageTypeDecl):
            t = PackageT(decl.name, decl)
        else:
            return None
        self._decl_types[key] = t
        return t

    def _fields(self, decl: Any, scope: Scope, cls: type) -> list[tuple[str, Type]]:
        fields: list[tuple[str, Type]] = []
        seen: set[str] = set()
        for f in decl.fields:
            if f.name in seen:
                raise P4TypeError(f"duplicate field '{f.name}' in {decl.name}", f.loc)
            seen.add(f.name)
            ft = self.resolve(f.type_ref, scope)
            if cls is HeaderT and not _header_field_ok(ft):
                raise P4TypeError(
                    f"field '{f.name}' of header {decl.name} has type {ft}; header fields must "
                    "be bit<W>, int<W>, varbit<W>, bool, a serializable enum or a struct of them",
                    f.loc)
            length = f.annotation("length")
            if length is not None:
                # `@length(e)` names fields declared before this one (spec 8.11.1).
                for node in iter_nodes(length.args):
                    if isinstance(node, ast.PathExpr) and node.name not in seen - {f.name}:
                        raise P4TypeError(f"@length of field '{f.name}': {node.name} is not a "
                                          "field declared before it", node.loc)
            if cls is HeaderUnionT and not isinstance(ft, HeaderT):
                raise P4TypeError(f"header_union field '{f.name}' must be a header", f.loc)
            fields.append((f.name, ft))
        return fields

    def _enum(self, decl: ast.EnumDecl, scope: Scope) -> EnumT:
        names = [m.name for m in decl.members]
        seen: set[str] = set()
        for m in decl.members:
            if m.name in seen:
                raise P4TypeError(f"duplicate member '{m.name}' in enum {decl.name}", m.loc)
            seen.add(m.name)
        if decl.underlying is None:
            return EnumT(decl.name, decl, members=names)
        under = self.resolve(decl.underlying, scope.root())
        if not isinstance(under, BitT):
            raise P4TypeError(f"enum {decl.name}: underlying type must be bit<W> or int<W>",
                              decl.underlying.loc)
        t = EnumT(decl.name, decl, members=names, underlying=under)
        # A value may name the members before it, which have the enum's type (p4c's
        # issue3616.p4: `c = (bit<4>)a, d = a`).
        inner = scope.root().child("enum")
        for m in decl.members:
            if m.value is None:
                raise P4TypeError(
                    f"member '{m.name}' of serializable enum {decl.name} needs a value", m.loc)
            with self.inside(decl):
                value = self.const_int(m.value, inner, "enum value") & ((1 << under.width) - 1)
            t.values[m.name] = value
            member = ast.ConstDecl(name=m.name, type_ref=ast.TypeRef(resolved=t, loc=m.loc),
                                   value=ast.IntLiteral(value=value, loc=m.loc), loc=m.loc)
            inner.declare(m.name, member, m.loc)
        return t

    def specialize(self, decl: Any, args: tuple[Type, ...], ref: ast.Node) -> Type:
        for a in args:
            if _mentions(a, decl):
                # p4c's TypeInference: a generic type cannot be its own type argument.
                raise P4TypeError(f"{decl.name}: contains self '{decl.name}' as type argument",
                                  ref.loc)
        if isinstance(decl, ast.ExternDecl):
            if len(args) > len(decl.type_params):
                raise P4TypeError(
                    f"{decl.name} takes {len(decl.type_params)} type arguments, got {len(args)}",
                    ref.loc)
            return ExternT(decl.name, decl, type_args=args)
        if isinstance(decl, ast.HeaderDecl | ast.StructDecl | ast.HeaderUnionDecl):
            if len(args) != len(decl.type_params):
                raise P4TypeError(f"{decl.name} takes {len(decl.type_params)} type arguments",
                                  ref.loc)
            for a in args:
                if isinstance(a, ParserT | ControlT | PackageT | ExternT):
                    # p4c: the fields of a struct or header hold data (spec 7.2.5).
                    raise P4TypeError(f"{decl.name}<{a}>: {a} cannot be a type argument of "
                                      f"{decl.name}", ref.loc)
            # A generic struct specialised: a fresh type with substituted fields.
            cls = {ast.HeaderDecl: HeaderT, ast.StructDecl: StructT,
                   ast.HeaderUnionDecl: HeaderUnionT}[type(decl)]
            assert self.root is not None
            inner = self.root.child("type")
            for p, a in zip(decl.type_params, args, strict=True):
                inner.declare(p, TypeParamDecl(p, a))
            t = cls(f"{decl.name}<{', '.join(str(a) for a in args)}>", decl)
            t.fields = self._fields(decl, inner, cls)
            return t
        if isinstance(decl, ast.ParserTypeDecl | ast.ParserDecl):
            return ParserT(decl.name, decl, type_args=args)
        if isinstance(decl, ast.ControlTypeDecl | ast.ControlDecl):
            return ControlT(decl.name, decl, type_args=args)
        if isinstance(decl, ast.PackageTypeDecl):
            return PackageT(decl.name, decl, type_args=args)
        raise P4TypeError(f"'{getattr(decl, 'name', '?')}' is not a generic type", ref.loc)


def _mentions(t: Type, decl: Any) -> bool:
    """Whether type `t` is (a specialisation of) `decl` or has one among its type arguments
    or, for a parser or control type, among its parameters' types (p4c's ContainsType)."""
    if getattr(t, "decl", None) is decl:
        return True
    if isinstance(t, ParserT | ControlT) and any(
            p.type_ref.resolved is not None and _mentions(p.type_ref.resolved, decl)
            for p in getattr(t.decl, "params", ())):
        return True
    return any(_mentions(a, decl) for a in getattr(t, "type_args", ()))


def _header_field_ok(t: Type) -> bool:
    if isinstance(t, BitT | VarbitT | BoolT | TypeVar):
        return True
    if isinstance(t, EnumT):
        return t.underlying is not None
    if isinstance(t, NewT):
        return _header_field_ok(t.base)
    if isinstance(t, StructT | StackT):
        # A struct or an array in a header has a fixed width (p4c's array3.p4); a
        # header stack is no header field.
        inner = [ft for _, ft in t.fields] if isinstance(t, StructT) else [t.elem]
        return all(_header_field_ok(ft) and not isinstance(ft, VarbitT) for ft in inner)
    return False
