"""What the transformer's rule modules share: the parse context and location helpers.

The rules run inline with the LALR parser, so they cannot be handed per-parse arguments;
``LOCATE`` and ``ANNOTATION_PARSER`` are context variables that ``parser.py`` sets for
the duration of one parse.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from contextvars import ContextVar
from typing import Any

from lark import Token

from . import ast
from .errors import P4SyntaxError, SourceLocation
from .lexer import parse_int_literal

__all__ = [
    "ANNOTATION_PARSER",
    "LOCATE",
    "Locate",
    "first_loc",
    "int_literal",
    "join_anns",
    "loc_of",
    "present",
    "with_dims",
]

Locate = Callable[[int, int], SourceLocation]

#: Maps (line, col) of the text being parsed to a source location.
LOCATE: ContextVar[Locate] = ContextVar("p4_locate")

#: Parses the tokens of an annotation body as an expression list, or with start
#: "annotation_kv" as key-value pairs; None if it is not one (set by parser.py).
ANNOTATION_PARSER: ContextVar[Callable[..., Any]] = ContextVar(
    "p4_annotation_parser"
)


def loc_of(item: Any) -> SourceLocation | None:
    """Location of a token, node, list/tuple (its first element)."""
    if isinstance(item, Token):
        return LOCATE.get()(item.line, item.column)
    if isinstance(item, ast.Node):
        return item.loc
    if isinstance(item, list | tuple):
        for x in item:
            loc = loc_of(x)
            if loc is not None:
                return loc
    return None


def first_loc(*items: Any) -> SourceLocation | None:
    for item in items:
        if item is not None:
            loc = loc_of(item)
            if loc is not None:
                return loc
    return None


def join_anns(*groups: list[ast.Annotation] | None) -> list[ast.Annotation]:
    out: list[ast.Annotation] = []
    for g in groups:
        if g:
            out.extend(g)
    return out


def present(items: Iterable[Any]) -> list[Any]:
    return [x for x in items if x is not None]


def int_literal(tok: Token) -> ast.IntLiteral:
    parsed = parse_int_literal(str(tok))
    if parsed is None:  # the lexer turns bad literals into BAD tokens already
        raise P4SyntaxError(f"invalid integer literal '{tok}'", loc_of(tok))
    value, width, signed = parsed
    return ast.IntLiteral(value=value, width=width, signed=signed, loc=loc_of(tok))


def with_dims(type_ref: ast.TypeRef, dims: list[ast.Expression] | None) -> ast.TypeRef:
    """The type of `T name[N][M]`: `T[N][M]`, an array of M arrays `T[N]`, as p4c reads
    a declarator's sizes (its array2.p4)."""
    for size in dims or ():
        type_ref = ast.StackTypeRef(elem=type_ref, size=size, loc=type_ref.loc)
    return type_ref
