"""P4_16 parser: source text -> `ast.Program`.

Public API::

    parse_text(text, filename="<string>", locate=None) -> ast.Program
    parse_source(src: PreprocessedSource) -> ast.Program
    parse_file(path, include_dirs=(), defines=None) -> ast.Program

`lexer.tokenize` classifies identifiers and angle brackets, the LALR grammar `p4.lark`
recognises the program, and `transform.P4Transformer` builds the AST while parsing.
Every problem with the input raises `P4SyntaxError` (or the preprocessor's
`PreprocessError`) located in the original file.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from lark import Lark, Token
from lark.exceptions import LarkError, UnexpectedInput, UnexpectedToken, VisitError
from lark.lexer import Lexer

from . import ast
from .errors import P4Error, P4SyntaxError, SourceLocation
from .lexer import KEYWORDS, TERMINAL_NAMES, BadToken, tokenize
from .preprocess import PreprocessedSource, preprocess
from .transform import ANNOTATION_PARSER, LOCATE, P4Transformer

__all__ = ["parse_file", "parse_source", "parse_text"]

Locate = Callable[[int, int], SourceLocation]

_GRAMMAR = Path(__file__).with_name("p4.lark")


class _TokenListLexer(Lexer):
    """Hands lark the token list produced by `lexer.tokenize`."""

    def __init__(self, lexer_conf: Any) -> None:
        pass

    def lex(self, data: Any) -> Iterator[Token]:  # type: ignore[override]
        return iter(data)


@functools.cache
def _parser() -> Lark:
    return Lark(
        _GRAMMAR.read_text(),
        parser="lalr",
        lexer=_TokenListLexer,
        start=["program", "annotation_args", "annotation_kv"],
        transformer=P4Transformer(),
        maybe_placeholders=True,
        cache=True,
    )


def parse_text(text: str, filename: str = "<string>", locate: Locate | None = None
               ) -> ast.Program:
    """Parse P4 source that needs no preprocessing (or was already preprocessed).

    ``locate(line, col)`` maps positions in ``text`` to source locations; by default they
    are taken as positions in ``filename``.
    """
    if locate is None:
        def locate(line: int, col: int) -> SourceLocation:
            return SourceLocation(filename, line, col)
    try:
        tokens = tokenize(text)
        program = _parse_tokens(tokens, "program", locate)
    except P4Error:
        raise
    except RecursionError:
        raise P4SyntaxError("program is nested too deeply", locate(1, 1)) from None
    except Exception as exc:  # a bug here must still not show a traceback to users
        raise P4SyntaxError(f"internal parser error: {exc!r}", locate(1, 1)) from exc
    assert isinstance(program, ast.Program)
    program.loc = SourceLocation(filename, 1, 1)
    return program


def parse_source(src: PreprocessedSource) -> ast.Program:
    """Parse preprocessor output; locations point into the original files."""
    return parse_text(src.text, src.main_file, src.location)


def parse_file(path: str | Path, include_dirs: Sequence[str | Path] = (),
               defines: Mapping[str, str] | None = None) -> ast.Program:
    """Preprocess and parse the P4 file at ``path``."""
    return parse_source(preprocess(path, include_dirs, defines))


# ---------------------------------------------------------------------------------------


def _parse_tokens(tokens: list[Token], start: str, locate: Locate) -> Any:
    loc_token = LOCATE.set(locate)
    ann_token = ANNOTATION_PARSER.set(_parse_annotation_body)
    try:
        return _parser().parse(tokens, start=start)
    except VisitError as exc:  # an error raised inside a transformer callback
        if isinstance(exc.orig_exc, P4Error):
            raise exc.orig_exc from None
        raise
    except UnexpectedToken as exc:
        raise _syntax_error(exc, tokens, locate) from None
    except UnexpectedInput as exc:
        line, col = getattr(exc, "line", 1) or 1, getattr(exc, "column", 1) or 1
        raise P4SyntaxError("syntax error", locate(line, col)) from None
    finally:
        ANNOTATION_PARSER.reset(ann_token)
        LOCATE.reset(loc_token)


def _parse_annotation_body(tokens: list[Token], start: str = "annotation_args") -> Any:
    """The body of `@name(...)` or `@name[...]` as expressions (`start` "annotation_args")
    or key-value pairs ("annotation_kv"), or None if it is not one."""
    if any(t.type == "BAD" for t in tokens):
        return None
    try:
        return _parser().parse(tokens, start=start)
    except (LarkError, P4Error):
        return None


# ---------------------------------------------------------------------------------------
# Error messages


_EXPR_STARTS = frozenset(
    {"INTEGER", "STRING_LITERAL", "TRUE", "FALSE", "NOT", "COMPLEMENT", "MINUS", "PLUS",
     "LPAREN", "LBRACE", "DOT", "ERROR", "INVALID_HEADER"}
)
_BIN_OPS = frozenset(
    {"LE", "GE", "EQ", "NE", "AND", "OR", "SHL", "SHR", "PLUS", "MINUS", "PLUS_SAT",
     "MINUS_SAT", "MUL", "DIV", "MOD", "BIT_OR", "BIT_AND", "BIT_XOR", "PP", "LANGLE",
     "RANGLE", "_QUESTION"}
)
_NAME_KEYWORDS = frozenset({"APPLY", "KEY", "ACTIONS", "STATE", "ENTRIES", "TYPE"})
_TYPE_KEYWORDS = frozenset({"BOOL", "BIT", "INT", "VARBIT", "STRING", "TUPLE", "MATCH_KIND",
                            "ERROR", "LIST"})
_POSTFIX = frozenset({"LBRACKET", "_LANGLE_ARGS"})
# Preferred order in "expected ..." lists; anything else follows alphabetically.
_ORDER = ["';'", "')'", "'}'", "']'", "'>'", "','", "':'", "'='", "'{'", "'('", "identifier",
          "type", "type name", "expression", "operator"]


def _describe_token(tok: Token) -> str:
    tt = tok.type
    if tt == "$END":
        return "end of file"
    if tt == "IDENTIFIER":
        return f"identifier '{tok}'"
    if tt == "TYPE_IDENTIFIER":
        return f"type name '{tok}'"
    if tt == "INTEGER":
        return f"integer '{tok}'"
    if tt == "STRING_LITERAL":
        return f"string {tok}"
    if tt == "ANNOTATION":
        return f"annotation '@{tok}'"
    if str(tok) in KEYWORDS:
        return f"keyword '{tok}'"
    return f"'{tok}'"


def _describe_expected(expected: Iterable[str]) -> list[str]:
    exp = set(expected)
    names: set[str] = set()
    if {"INTEGER", "TRUE", "NOT"} <= exp:
        exp -= _EXPR_STARTS | _NAME_KEYWORDS | {"IDENTIFIER", "TYPE_IDENTIFIER"}
        names.add("expression")
    if len(exp & _BIN_OPS) >= 4:
        exp -= _BIN_OPS | _POSTFIX | {"LPAREN", "DOT"}
        names.add("operator")
    if "IDENTIFIER" in exp:
        exp -= _NAME_KEYWORDS | {"TYPE_IDENTIFIER"}
    if len(exp & _TYPE_KEYWORDS) >= 3:
        exp -= _TYPE_KEYWORDS | {"TYPE_IDENTIFIER", "DOT", "VOID"}
        names.add("type")
    exp.discard("BAD")
    names.update(TERMINAL_NAMES.get(t, t.lower()) for t in exp)

    def key(name: str) -> tuple[int, str]:
        return (_ORDER.index(name) if name in _ORDER else len(_ORDER), name)

    return sorted(names, key=key)


def _acceptable(exc: UnexpectedToken) -> set[str]:
    """Terminals that could really come next (lark's `expected` is LALR's superset)."""
    try:
        accepts = exc.accepts
    except Exception:  # fall back to the parse table's view
        accepts = None
    return set(accepts) if accepts else set(exc.expected or ())


def _syntax_error(exc: UnexpectedToken, tokens: list[Token], locate: Locate) -> P4SyntaxError:
    tok = exc.token
    if isinstance(tok, BadToken):
        return P4SyntaxError(tok.message, locate(tok.line, tok.column))
    if tok.type == "$END":
        if tokens:
            last = tokens[-1]
            loc = locate(last.end_line or 1, last.end_column or 1)
        else:
            loc = locate(1, 1)
    else:
        loc = locate(tok.line or 1, tok.column or 1)
    message = f"unexpected {_describe_token(tok)}"
    expected = _describe_expected(_acceptable(exc))
    if expected:
        if len(expected) == 1:
            message += f" — expected {expected[0]}"
        elif len(expected) <= 4:
            message += f" — expected {', '.join(expected[:-1])} or {expected[-1]}"
        else:
            message += f" — expected one of {', '.join(expected[:4])}, ..."
    return P4SyntaxError(message, loc)
