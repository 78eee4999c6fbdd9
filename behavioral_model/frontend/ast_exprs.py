"""Syntax tree of a P4_16 program: the base node, annotations, type references and
expressions (statements and declarations are in `ast.py`, which re-exports these).

The checker fills the `type` of every expression and the `resolved` type of every type
reference. Nodes compare by identity (``eq=False``) so they can key dictionaries.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .errors import SourceLocation


@dataclass(eq=False, kw_only=True)
class Node:
    loc: SourceLocation | None = field(default=None, repr=False)


@dataclass(eq=False, kw_only=True)
class Annotation(Node):
    """`@name`, `@name(expr, ...)` or `@name[tokens]`; `body` keeps unparsed bodies as text."""

    name: str
    args: list[Expression] = field(default_factory=list)
    body: str | None = None
    # `@name[...]`: its elements, each (key or None, value); `body` keeps the text.
    structured: list[tuple[str | None, Expression]] | None = None


@dataclass(eq=False, kw_only=True)
class Annotated(Node):
    annotations: list[Annotation] = field(default_factory=list)

    def annotation(self, name: str) -> Annotation | None:
        for ann in self.annotations:
            if ann.name == name:
                return ann
        return None


# ---------------------------------------------------------------------------------------
# Type references (syntax; the checker turns them into behavioral_model.frontend.types)


@dataclass(eq=False, kw_only=True)
class TypeRef(Node):
    resolved: Any = field(default=None, repr=False)  # set by the checker: a types.Type


@dataclass(eq=False, kw_only=True)
class BaseTypeRef(TypeRef):
    """bool, error, string, int, void, match_kind, packet_in/out are named types instead."""

    name: str


@dataclass(eq=False, kw_only=True)
class BitTypeRef(TypeRef):
    """`bit<W>` (signed=False) or `int<W>` (signed=True); plain `bit` is width 1."""

    width: Expression
    signed: bool = False


@dataclass(eq=False, kw_only=True)
class VarbitTypeRef(TypeRef):
    width: Expression


@dataclass(eq=False, kw_only=True)
class NamedTypeRef(TypeRef):
    """A declared type or a type variable; `dot_prefix` for `.name` (top-level scope)."""

    name: str
    dot_prefix: bool = False


@dataclass(eq=False, kw_only=True)
class SpecializedTypeRef(TypeRef):
    """`Base<A, B>`, e.g. `register<bit<32>>` or `Checksum<bit<16>>`."""

    base: NamedTypeRef
    args: list[TypeRef]


@dataclass(eq=False, kw_only=True)
class StackTypeRef(TypeRef):
    """`elem[size]`: a header stack."""

    elem: TypeRef
    size: Expression


@dataclass(eq=False, kw_only=True)
class TupleTypeRef(TypeRef):
    elems: list[TypeRef]


@dataclass(eq=False, kw_only=True)
class ListTypeRef(TypeRef):
    """`list<T>` (spec 7.2.11): a list of compile-time known values of type T."""

    elem: TypeRef


@dataclass(eq=False, kw_only=True)
class DontCareTypeRef(TypeRef):
    """`_` in a type argument list."""


# ---------------------------------------------------------------------------------------
# Expressions


@dataclass(eq=False, kw_only=True)
class Expression(Node):
    type: Any = field(default=None, repr=False)  # set by the checker: a types.Type


@dataclass(eq=False, kw_only=True)
class IntLiteral(Expression):
    """`5` (width None: arbitrary precision), `8w5` (width 8), `8s5` (signed)."""

    value: int
    width: int | None = None
    signed: bool = False


@dataclass(eq=False, kw_only=True)
class BoolLiteral(Expression):
    value: bool


@dataclass(eq=False, kw_only=True)
class StringLiteral(Expression):
    value: str


@dataclass(eq=False, kw_only=True)
class PathExpr(Expression):
    """A name; `decl` is set by the checker to the declaration it names."""

    name: str
    dot_prefix: bool = False
    decl: Any = field(default=None, repr=False)


@dataclass(eq=False, kw_only=True)
class TypeNameExpr(Expression):
    """A type used where an expression stands: the base of `E.member` or `T.minSizeInBits()`."""

    type_ref: TypeRef


@dataclass(eq=False, kw_only=True)
class MemberExpr(Expression):
    """`base.member`: header/struct field, enum member (`MyEnum.A`, `error.NoError`),
    method (`t.apply`), stack property (`next`, `last`, `lastIndex`, `size`)."""

    base: Expression
    member: str


@dataclass(eq=False, kw_only=True)
class IndexExpr(Expression):
    """`base[index]`: header stack element (or tuple element with a constant index)."""

    base: Expression
    index: Expression


@dataclass(eq=False, kw_only=True)
class SliceExpr(Expression):
    """`base[hi:lo]`, or `base[lo +: width]` (spec 8.6: `width` bits from bit `lo`). For
    the latter the checker sets `hi` when `lo` is compile-time known; a run-time `lo`
    leaves `hi` None."""

    base: Expression
    hi: Expression | None
    lo: Expression
    width: Expression | None = None


@dataclass(eq=False, kw_only=True)
class UnaryExpr(Expression):
    """op is one of `!`, `~`, `-`, `+`."""

    op: str
    operand: Expression


@dataclass(eq=False, kw_only=True)
class BinaryExpr(Expression):
    """op is one of `* / % + - |+| |-| << >> <= >= < > == != & ^ | && || ++`."""

    op: str
    left: Expression
    right: Expression
    compound: bool = False  # written `left op= right` (p4test's @test_keep_opassign)


@dataclass(eq=False, kw_only=True)
class TernaryExpr(Expression):
    cond: Expression
    then: Expression
    else_: Expression


@dataclass(eq=False, kw_only=True)
class CastExpr(Expression):
    type_ref: TypeRef
    expr: Expression


@dataclass(eq=False, kw_only=True)
class Argument(Node):
    """A call argument; `name` for named arguments (`f(x = 1)`), value may be DontCareExpr."""

    value: Expression
    name: str | None = None


@dataclass(eq=False, kw_only=True)
class MethodCallExpr(Expression):
    """`func<type_args>(args)`: func is a PathExpr or MemberExpr (e.g. `pkt.extract`)."""

    func: Expression
    type_args: list[TypeRef] = field(default_factory=list)
    args: list[Argument] = field(default_factory=list)
    target: Any = field(default=None, repr=False)  # set by the checker: a checker.CallTarget


@dataclass(eq=False, kw_only=True)
class ConstructorCallExpr(Expression):
    """`Type(args)` in an expression, e.g. an extern constructed as an argument.
    `instance_name` is set by the checker for a parser/control built as a constructor
    argument inside a block: the name p4c's MoveConstructors declares it under."""

    type_ref: TypeRef
    args: list[Argument] = field(default_factory=list)
    instance_name: str | None = None


@dataclass(eq=False, kw_only=True)
class ListExpr(Expression):
    """`{a, b, c}`: a tuple/list initializer (also `(a, b)` tuples in select keys)."""

    elems: list[Expression]


@dataclass(eq=False, kw_only=True)
class StructInitExpr(Expression):
    """`{a = 1, b = 2}`, or `(T){...}` when a cast names the type."""

    fields: list[tuple[str, Expression]]


@dataclass(eq=False, kw_only=True)
class DontCareExpr(Expression):
    """`_`."""


@dataclass(eq=False, kw_only=True)
class DefaultValueExpr(Expression):
    """`...`: the default value of the type its context gives (spec 8.26); as the last
    element of a list or key-value list (named "..."), the default of the rest."""


@dataclass(eq=False, kw_only=True)
class InvalidHeaderExpr(Expression):
    """`{#}`: the invalid value of the header or header union its context gives
    (spec 8.17); the checker sets `type` to that header or union."""


@dataclass(eq=False, kw_only=True)
class DefaultExpr(Expression):
    """`default` in a select or table key set."""


@dataclass(eq=False, kw_only=True)
class MaskExpr(Expression):
    """`value &&& mask` in a key set."""

    value: Expression
    mask: Expression


@dataclass(eq=False, kw_only=True)
class RangeExpr(Expression):
    """`low .. high` in a key set."""

    low: Expression
    high: Expression
