"""Tokenizer for P4_16 with the context the LALR grammar (p4.lark) needs.

`tokenize(text)` returns lark Tokens whose types are the grammar's terminals. Beyond plain
lexing it does what p4c's lexer does with the help of its symbol table:

* **Type names.** A pre-pass over the declarations finds the names of declared types
  (header, header_union, struct, enum, extern object, parser, control, package, typedef and
  type) and the type parameters of generic declarations (`<T, U>`, scoped to that
  declaration), then emits TYPE_IDENTIFIER for them and IDENTIFIER otherwise. A type name is
  a type from its declaration onwards, except where a variable or parameter of the
  same name shadows it (until the end of the enclosing `{...}`), and except right after a
  member `.` (`hdr.x` is always a member name).
* **Angle brackets.** `<` becomes LANGLE (less-than), _LANGLE_ARGS (a type argument list:
  after a type, or a call `f<T>(...)`) or _LANGLE_PARAMS (a declaration's type parameters);
  the `>` closing either is _RANGLE_ARGS. Two adjacent `>` that close nothing are SHR (`>>`),
  so `register<bit<32>>` and `a >> 2` both work.
* **`list<T>`.** `list` right before `<` is the LIST keyword; elsewhere it is a name.
* **Annotations.** `@name`, `@name(...)` and `@name[...]` become one ANNOTATION token
  (an :class:`AnnotationToken` carrying the body's text and tokens).

Problems (a bad character, an unterminated string or comment, a malformed integer literal)
become a BAD token carrying the message, so the parser reports the first error in source
order.

The passes live in their own modules: ``rawlex`` (characters to tokens, annotations),
``typenames`` (type names and their scopes) and ``angles`` (angle brackets).
"""

from __future__ import annotations

from lark import Token

from .angles import classify_angles
from .rawlex import (
    KEYWORDS,
    TERMINAL_NAMES,
    AnnotationToken,
    BadToken,
    group_annotations,
    parse_int_literal,
    raw_tokens,
)
from .typenames import TypeScanner, classify_names

__all__ = [
    "AnnotationToken",
    "BadToken",
    "KEYWORDS",
    "TERMINAL_NAMES",
    "parse_int_literal",
    "tokenize",
]


def tokenize(text: str) -> list[Token]:
    """Tokens of ``text`` ready for the grammar (see the module docstring)."""
    toks = group_annotations(raw_tokens(text), text)
    scanner = TypeScanner(toks)
    scanner.scan()
    classify_names(toks, scanner.is_type, lambda i: i)
    for i, t in enumerate(toks[:-1]):
        if t.type == "IDENTIFIER" and t.value == "list" and toks[i + 1].type == "LANGLE":
            # `list<T>` (spec 7.2.11); otherwise `list` is an ordinary name, as in p4c.
            t.type = "LIST"
    for i, t in enumerate(toks):
        if isinstance(t, AnnotationToken) and t.body_tokens:
            classify_names(t.body_tokens, scanner.is_type, lambda _k, _i=i: _i)
            t.body_tokens = classify_angles(t.body_tokens, lambda _k: False)
    return classify_angles(toks, scanner.param_angles.__contains__)
