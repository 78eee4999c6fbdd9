"""Annotations p4c reads (spec 18): the bodies of the standard annotations it parses
(p4c's `ParseAnnotations`) and the values of structured annotations `@name[...]`
(spec 18.1.2: compile-time known values of type int, string or bool)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from lark import Token

from . import ast
from .errors import P4SyntaxError, P4TypeError
from .printer import expr_text
from .scope import Scope
from .types import BoolT, IntT, StringT

#: Standard annotations without a body: `@hidden` or `@hidden()`, never `@hidden(x)`.
EMPTY = frozenset({"atomic", "defaultonly", "hidden", "likely", "noSideEffects", "optional",
                   "pure", "tableonly", "unlikely", "disable_optimization", "unroll",
                   "nounroll"})
#: Standard annotations whose body is one expression; those of STRING a string literal
#: (or string literals joined by `++`, which p4c folds).
ONE_EXPRESSION = frozenset({"name", "deprecated", "noWarn", "length", "match"})
STRING = frozenset({"name", "deprecated", "noWarn"})
#: Standard annotations whose body is a list of expressions (command_line: strings).
LISTS = frozenset({"synchronous", "field_list", "command_line"})


def check_annotation(ann: ast.Annotation, kind: str, tokens: list[Token],
                     parse: Callable[..., Any]) -> None:
    """What p4c checks of `ann` while parsing; `kind` is "", "(" or "[", `tokens` the
    body's tokens and `parse` the annotation body parser (see transform_base)."""
    if kind == "[":
        _check_structured(ann)
        return
    if ann.name in EMPTY and tokens:
        raise P4SyntaxError(f"@{ann.name} should not have any arguments", ann.loc)
    if ann.name == "pkginfo" and (not tokens or parse(tokens, "annotation_kv") is None):
        raise P4SyntaxError("@pkginfo takes key=value pairs, e.g. @pkginfo(version=\"1.0\")",
                            ann.loc)
    if ann.name in LISTS and tokens and (ann.body is not None or ann.name == "command_line"
                                         and not all(isinstance(a, ast.StringLiteral)
                                                     for a in ann.args)):
        what = "string literals" if ann.name == "command_line" else "expressions"
        raise P4SyntaxError(f"@{ann.name} takes a list of {what}", ann.loc)
    if ann.name not in ONE_EXPRESSION:
        return
    if len(ann.args) != 1:
        raise P4SyntaxError(f"@{ann.name} takes one expression", ann.loc)
    value = ann.args[0]
    if ann.name in STRING and not isinstance(value, ast.StringLiteral):
        text = _joined_strings(value)
        if text is None:
            raise P4TypeError(f"{expr_text(value)}: the value of @{ann.name} must be a string "
                              "literal or string literals joined by ++", value.loc)
        # p4c folds `"a" ++ "b"` here (spec 8.4.1); readers of the annotation see "ab".
        ann.args[0] = ast.StringLiteral(value=text, loc=value.loc)


def _joined_strings(e: ast.Expression) -> str | None:
    """The string `e` folds to when it is string literals joined by `++`, else None."""
    if isinstance(e, ast.StringLiteral):
        return e.value
    if isinstance(e, ast.BinaryExpr) and e.op == "++":
        left, right = _joined_strings(e.left), _joined_strings(e.right)
        if left is not None and right is not None:
            return left + right
    return None


def _check_structured(ann: ast.Annotation) -> None:
    if ann.structured is None:
        raise P4SyntaxError(f"@{ann.name}[...] must hold a list of expressions or of "
                            "key=value pairs", ann.loc)
    keys: set[str] = set()
    for key, value in ann.structured:
        if key is not None:
            if key in keys:
                raise P4TypeError(f"@{ann.name}: key '{key}' appears twice", value.loc)
            keys.add(key)
        for node in _nodes(value):
            if isinstance(node, ast.IntLiteral) and node.width is None or isinstance(
                    node, ast.StringLiteral | ast.BoolLiteral | ast.UnaryExpr | ast.BinaryExpr
                    | ast.TernaryExpr | ast.PathExpr):
                continue
            raise P4TypeError(f"{expr_text(node)}: illegal value in structured annotation "
                              f"@{ann.name}; it must be an int, string or bool constant",
                              node.loc)


def check_structured_names(nodes: Iterable[ast.Node], root: Scope) -> None:
    """A name in a structured annotation is a constant of type int, string or bool
    (a `bit<8>` constant, an instance or a type is not)."""
    for node in nodes:
        for ann in getattr(node, "annotations", None) or []:
            for _, value in ann.structured or []:
                for part in _nodes(value):
                    if not isinstance(part, ast.PathExpr):
                        continue
                    decl = root.lookup(part.name)
                    t = decl.type_ref.resolved if isinstance(decl, ast.ConstDecl) else None
                    if not isinstance(t, IntT | StringT | BoolT):
                        raise P4TypeError(f"{part.name}: illegal value in structured "
                                          f"annotation @{ann.name}; it must be an int, string "
                                          "or bool constant", part.loc)


def _nodes(e: ast.Expression) -> list[ast.Expression]:
    """`e` and the operands it is built from (for the operators a constant can use)."""
    if isinstance(e, ast.UnaryExpr):
        return [e, *_nodes(e.operand)]
    if isinstance(e, ast.BinaryExpr):
        return [e, *_nodes(e.left), *_nodes(e.right)]
    if isinstance(e, ast.TernaryExpr):
        return [e, *_nodes(e.cond), *_nodes(e.then), *_nodes(e.else_)]
    return [e]
