"""Semantic types of P4_16 values, as the checker infers them.

Named types (headers, structs, enums, externs...) keep a reference to their declaration;
two named types are the same type when they come from the same declaration.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


class Type:
    """Base of every semantic type."""

    def __str__(self) -> str:
        return type(self).__name__


@dataclass(frozen=True)
class BitT(Type):
    """`bit<W>` or, with signed=True, `int<W>`."""

    width: int
    signed: bool = False

    def __str__(self) -> str:
        return f"{'int' if self.signed else 'bit'}<{self.width}>"


@dataclass(frozen=True)
class IntT(Type):
    """Arbitrary-precision integer: untyped literals and compile-time constants."""

    def __str__(self) -> str:
        return "int"


@dataclass(frozen=True)
class BoolT(Type):
    def __str__(self) -> str:
        return "bool"


@dataclass(frozen=True)
class StringT(Type):
    def __str__(self) -> str:
        return "string"


@dataclass(frozen=True)
class VoidT(Type):
    def __str__(self) -> str:
        return "void"


@dataclass(frozen=True)
class ErrorT(Type):
    def __str__(self) -> str:
        return "error"


@dataclass(frozen=True)
class MatchKindT(Type):
    def __str__(self) -> str:
        return "match_kind"


@dataclass(frozen=True)
class DontCareT(Type):
    def __str__(self) -> str:
        return "_"


@dataclass(frozen=True)
class InvalidHeaderT(Type):
    """The type of `{#}` until its context makes it a header or header union."""

    def __str__(self) -> str:
        return "{#}"


@dataclass(frozen=True)
class VarbitT(Type):
    max_width: int

    def __str__(self) -> str:
        return f"varbit<{self.max_width}>"


@dataclass(frozen=True)
class TypeVar(Type):
    name: str
    owner: Any = field(default=None, compare=False, hash=False, repr=False)

    def __str__(self) -> str:
        return self.name


@dataclass(eq=False)
class NamedType(Type):
    """A type introduced by a declaration; identity is the declaration."""

    name: str
    decl: Any = field(default=None, repr=False)

    def __eq__(self, other: object) -> bool:
        return (
            type(other) is type(self)
            and other.decl is self.decl  # type: ignore[attr-defined]
            and other.name == self.name  # type: ignore[attr-defined]
            and self._args() == other._args()  # type: ignore[attr-defined]
        )

    def __hash__(self) -> int:
        return hash((type(self).__name__, self.name, id(self.decl)))

    def _args(self) -> tuple:
        return ()

    def __str__(self) -> str:
        return self.name


@dataclass(eq=False)
class StructLike(NamedType):
    """Header, header union or struct: an ordered list of named fields."""

    fields: list[tuple[str, Type]] = field(default_factory=list)

    def field_type(self, name: str) -> Type | None:
        for fname, ftype in self.fields:
            if fname == name:
                return ftype
        return None

    def _args(self) -> tuple:
        return tuple(self.fields)


@dataclass(eq=False)
class HeaderT(StructLike):
    def width_bits(self) -> int:
        """Fixed width; a varbit field counts with width 0 (minSizeInBits)."""
        return sum(t.width for _, t in self.fields if isinstance(t, BitT))

    def max_width_bits(self) -> int:
        return sum(
            t.width if isinstance(t, BitT) else t.max_width
            for _, t in self.fields
            if isinstance(t, BitT | VarbitT)
        )


@dataclass(eq=False)
class HeaderUnionT(StructLike):
    pass


@dataclass(eq=False)
class StructT(StructLike):
    pass


@dataclass(eq=False)
class EnumT(NamedType):
    """Plain enum (underlying None) or serializable enum with member values."""

    members: list[str] = field(default_factory=list)
    underlying: BitT | None = None
    values: dict[str, int] = field(default_factory=dict)


@dataclass(eq=False)
class NewT(NamedType):
    """`type base Name`: a distinct type with the representation of `base`."""

    base: Type = field(default_factory=BoolT)


@dataclass(frozen=True)
class StackT(Type):
    elem: Type
    size: int

    def __str__(self) -> str:
        return f"{self.elem}[{self.size}]"


@dataclass(frozen=True)
class ListT(Type):
    """`list<T>` (spec 7.2.11): known values of type T, as an extern constructor takes them."""

    elem: Type

    def __str__(self) -> str:
        return f"list<{self.elem}>"


@dataclass(frozen=True)
class TupleT(Type):
    elems: tuple[Type, ...]

    def __str__(self) -> str:
        return "tuple<" + ", ".join(str(e) for e in self.elems) + ">"


@dataclass(eq=False)
class ExternT(NamedType):
    """An extern object type, possibly specialised: `register<bit<32>>`."""

    type_args: tuple[Type, ...] = ()

    def _args(self) -> tuple:
        return self.type_args

    def __str__(self) -> str:
        if not self.type_args:
            return self.name
        return f"{self.name}<{', '.join(str(a) for a in self.type_args)}>"


@dataclass(eq=False)
class ParserT(NamedType):
    """A parser type or declaration; `type_args` when specialised."""

    type_args: tuple[Type, ...] = ()


@dataclass(eq=False)
class ControlT(NamedType):
    type_args: tuple[Type, ...] = ()


@dataclass(eq=False)
class PackageT(NamedType):
    type_args: tuple[Type, ...] = ()


@dataclass(eq=False)
class TableT(NamedType):
    """A table instance; `t.apply()` has type ApplyResultT."""


@dataclass(eq=False)
class ApplyResultT(NamedType):
    """Result of `t.apply()`: fields hit, miss, action_run."""


@dataclass(eq=False)
class ActionRunT(NamedType):
    """Type of `t.apply().action_run`: an enum of the table's actions."""


@dataclass(eq=False)
class ActionT(NamedType):
    pass


@dataclass(eq=False)
class FunctionT(NamedType):
    pass


@dataclass(eq=False)
class StateT(NamedType):
    """A parser state name used as a value (transition target)."""


@dataclass(eq=False)
class ValueSetT(NamedType):
    elem: Type = field(default_factory=BoolT)


def width_of(t: Type) -> int | None:
    """Width in bits of a fixed-width value type: bit/int/bool/serializable enum/newtype,
    and headers, structs and tuples of them; None for anything else."""
    if isinstance(t, BitT):
        return t.width
    if isinstance(t, BoolT):
        return 1
    if isinstance(t, EnumT) and t.underlying is not None:
        return t.underlying.width
    if isinstance(t, NewT):
        return width_of(t.base)
    if isinstance(t, HeaderT | StructT | TupleT):
        total = 0
        for ft in (t.elems if isinstance(t, TupleT) else [ft for _, ft in t.fields]):
            w = width_of(ft)
            if w is None:
                return None
            total += w
        return total
    return None


def strip_newtype(t: Type) -> Type:
    while isinstance(t, NewT):
        t = t.base
    return t


def is_header_stack(t: Type) -> bool:
    """A stack of headers or header unions (a type variable may stand for one): only these
    have next, last, size, lastIndex, push_front and pop_front (spec 8.18); an array of
    any other type is indexed only."""
    return isinstance(t, StackT) and isinstance(t.elem, HeaderT | HeaderUnionT | TypeVar)


def has_default_value(t: Type) -> bool:
    """Whether `...` can stand for a value of type `t` (spec 8.26: zero, false, "", the
    first enum member or error, an invalid header, field by field). p4c finds none for
    a type variable, a varbit, a list or an instance of a generic struct."""
    if isinstance(t, BitT | IntT | BoolT | StringT | ErrorT | EnumT):
        return True
    if isinstance(t, StructLike) and getattr(t.decl, "type_params", None):
        return False
    if isinstance(t, StackT):
        return has_default_value(t.elem)
    if isinstance(t, TupleT):
        return all(has_default_value(e) for e in t.elems)
    return isinstance(t, StructLike) and all(has_default_value(ft) for _, ft in t.fields)
