"""Raw lexing of P4_16: characters to lark Tokens, before any use of context.

Keywords, punctuation, integer and string literals get their grammar terminal here, and
every identifier is still IDENTIFIER (``typenames`` decides which are type names) and
every ``<``/``>`` still LANGLE/RANGLE (``angles`` decides what they delimit).
Annotations are folded into single ANNOTATION tokens, and problems become BAD tokens
so the parser reports the first error in source order.
"""

from __future__ import annotations

import re

from lark import Token

__all__ = [
    "AnnotationToken",
    "BadToken",
    "KEYWORDS",
    "TERMINAL_NAMES",
    "group_annotations",
    "match_brackets",
    "parse_int_literal",
    "raw_tokens",
]


class AnnotationToken(Token):
    """An ANNOTATION token; its value is the annotation name.

    ``kind`` is ``""`` (no body), ``"("`` or ``"["``; ``body`` is the source text between
    the brackets and ``body_tokens`` its (classified) tokens.
    """

    kind: str
    body: str | None
    body_tokens: list[Token]


class BadToken(Token):
    """A BAD token: something the lexer rejected; ``message`` says what."""

    message: str


KEYWORDS: dict[str, str] = {
    kw: kw.upper()
    for kw in (
        "abstract action actions apply bool bit break const continue control default else "
        "entries enum error exit extern false for header header_union if in inout int key "
        "match_kind out "
        "package parser return select state string struct switch table transition true "
        "tuple type typedef varbit void"
    ).split()
}
KEYWORDS["value_set"] = "VALUESET"

_PUNCT: dict[str, str] = {
    # Compound assignments (P4_16 1.2.4): `a op= b` means `a = a op b`.
    "+=": "OP_ASSIGN", "-=": "OP_ASSIGN", "*=": "OP_ASSIGN", "/=": "OP_ASSIGN",
    "%=": "OP_ASSIGN", "&=": "OP_ASSIGN", "|=": "OP_ASSIGN", "^=": "OP_ASSIGN",
    "<<=": "OP_ASSIGN", "|+|=": "OP_ASSIGN", "|-|=": "OP_ASSIGN", "++=": "OP_ASSIGN",
    "&&&": "MASK",
    "|+|": "PLUS_SAT",
    "|-|": "MINUS_SAT",
    "...": "DOTS",  # a default-value argument (P4_16 1.2.4, spec 8.26)
    "..": "RANGE",
    "{#}": "INVALID_HEADER",  # the invalid header or header union value, spec 8.17
    "+:": "PLUS_SLICE",  # `x[lo +: w]`, spec 8.6 (an indexed slice)
    "<<": "SHL",
    "<=": "LE",
    ">=": "GE",
    "==": "EQ",
    "!=": "NE",
    "&&": "AND",
    "||": "OR",
    "++": "PP",
    "(": "LPAREN",
    ")": "_RPAREN",
    "{": "LBRACE",
    "}": "_RBRACE",
    "[": "LBRACKET",
    "]": "_RBRACKET",
    "<": "LANGLE",
    ">": "RANGLE",
    ";": "SEMI",
    ",": "_COMMA",
    ":": "_COLON",
    ".": "DOT",
    "=": "_ASSIGN",
    "?": "_QUESTION",
    "@": "AT",
    "+": "PLUS",
    "-": "MINUS",
    "*": "MUL",
    "/": "DIV",
    "%": "MOD",
    "&": "BIT_AND",
    "|": "BIT_OR",
    "^": "BIT_XOR",
    "~": "COMPLEMENT",
    "!": "NOT",
}

#: Human-readable names of the grammar's terminals, for error messages.
TERMINAL_NAMES: dict[str, str] = {tt: f"'{text}'" for text, tt in _PUNCT.items()}
TERMINAL_NAMES.update({tt: f"'{kw}'" for kw, tt in KEYWORDS.items()})
TERMINAL_NAMES.update(
    {
        "LANGLE": "'<'",
        "_LANGLE_ARGS": "'<'",
        "_LANGLE_PARAMS": "'<'",
        "_RANGLE_ARGS": "'>'",
        "SHR": "'>>'",
        "IDENTIFIER": "identifier",
        "TYPE_IDENTIFIER": "type name",
        "INTEGER": "integer",
        "STRING_LITERAL": "string",
        "ANNOTATION": "annotation",
        "DONTCARE": "'_'",
        "LIST": "'list'",
        "$END": "end of file",
    }
)

_TOKEN_RE = re.compile(
    r"""
    (?P<ws>[ \t\r\f\v]+)
  | (?P<nl>\n)
  | (?P<comment>//[^\n]*|/\*.*?\*/)
  | (?P<opencomment>/\*)
  | (?P<word>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<number>[0-9][A-Za-z0-9_]*)
  | (?P<string>"(?:[^"\\]|\\.)*")
  | (?P<openstring>")
  | (?P<punct>\|\+\|=|\|-\|=|<<=|\+\+=|&&&|\|\+\||\|-\||\.\.\.|\.\.|\+:|\{\#\}|<<|<=|>=|==|!=|&&
              |\|\||\+\+|[-+*/%&|^]=|[-+*/%&|^~!<>()\[\]{};,:.=?@])
  | (?P<other>.)
    """,
    re.VERBOSE | re.DOTALL,
)

_INT_RE = re.compile(
    r"""(?:(?P<width>[0-9]+)(?P<sign>[ws]))?
        (?:0[xX](?P<hex>[0-9a-fA-F_]*)
          |0[oO](?P<oct>[0-7_]*)
          |0[bB](?P<bin>[01_]*)
          |0[dD](?P<dec2>[0-9_]*)
          |(?P<dec>[0-9][0-9_]*))""",
    re.VERBOSE,
)


_INT_BASES = {"hex": 16, "oct": 8, "bin": 2, "dec2": 10, "dec": 10}


def parse_int_literal(text: str) -> tuple[int, int | None, bool] | None:
    """``"8w0x1F"`` -> ``(31, 8, False)``; None when ``text`` is not a valid literal."""
    m = _INT_RE.fullmatch(text)
    if m is None:
        return None
    group = m.lastgroup or "dec"
    base = _INT_BASES[group]
    digits = m.group(group).replace("_", "")
    if not digits:
        return None
    value = int(digits, base)
    if m.group("width") is None:
        return value, None, False
    return value, int(m.group("width")), m.group("sign") == "s"


# ---------------------------------------------------------------------------------------
# Raw lexing


def _make(tt: str, value: str, pos: int, line: int, col: int, cls: type[Token] = Token) -> Token:
    end_line = line + value.count("\n")
    end_col = col + len(value) if end_line == line else len(value) - value.rfind("\n")
    return cls(tt, value, pos, line, col, end_line, end_col, pos + len(value))


def _bad(message: str, value: str, pos: int, line: int, col: int) -> BadToken:
    tok = _make("BAD", value, pos, line, col, BadToken)
    assert isinstance(tok, BadToken)
    tok.message = message
    return tok


def raw_tokens(text: str) -> list[Token]:
    """Tokens of ``text`` (comments and whitespace dropped); problems become BAD tokens."""
    toks: list[Token] = []
    append = toks.append
    line, line_start = 1, 0
    pos, n = 0, len(text)
    match = _TOKEN_RE.match
    while pos < n:
        m = match(text, pos)
        assert m is not None  # `other` matches any character
        kind = m.lastgroup
        value = m.group()
        col = pos - line_start + 1
        if kind == "ws":
            pass
        elif kind == "nl":
            line += 1
            line_start = pos + 1
        elif kind == "word":
            tt = KEYWORDS.get(value)
            if tt is None:
                tt = "DONTCARE" if value == "_" else "IDENTIFIER"
            append(Token(tt, value, pos, line, col, line, col + len(value), pos + len(value)))
        elif kind == "punct":
            tt = _PUNCT[value]
            append(Token(tt, value, pos, line, col, line, col + len(value), pos + len(value)))
        elif kind == "number":
            if parse_int_literal(value) is None:
                append(_bad(f"invalid integer literal '{value}'", value, pos, line, col))
            else:
                append(Token("INTEGER", value, pos, line, col, line, col + len(value), m.end()))
        elif kind == "string":
            # p4c's lexer lets a string run across lines (its pragma-string.p4).
            append(_make("STRING_LITERAL", value, pos, line, col))
            nls = value.count("\n")
            if nls:
                line += nls
                line_start = pos + value.rfind("\n") + 1
        elif kind == "comment":
            nls = value.count("\n")
            if nls:
                line += nls
                line_start = pos + value.rfind("\n") + 1
        elif kind == "opencomment":
            append(_bad("unterminated comment", value, pos, line, col))
            break
        elif kind == "openstring":
            append(_bad("unterminated string literal", value, pos, line, col))
            break
        else:
            shown = value if value.isprintable() else repr(value)
            append(_bad(f"unexpected character '{shown}'", value, pos, line, col))
        pos = m.end()
    return toks


_OPEN = {"LPAREN": "_RPAREN", "LBRACKET": "_RBRACKET", "LBRACE": "_RBRACE"}
_CLOSE = {v: k for k, v in _OPEN.items()}


def match_brackets(toks: list[Token]) -> dict[int, int]:
    """Index of the matching bracket for every matched ( [ { and ) ] }."""
    pairs: dict[int, int] = {}
    stack: list[int] = []
    for i, t in enumerate(toks):
        tt = t.type
        if tt in _OPEN:
            stack.append(i)
        elif tt in _CLOSE:
            # Pop to the nearest opener of the right kind (tolerates stray brackets).
            for k in range(len(stack) - 1, -1, -1):
                if toks[stack[k]].type == _CLOSE[tt]:
                    j = stack[k]
                    del stack[k:]
                    pairs[i] = j
                    pairs[j] = i
                    break
    return pairs


# Annotation names: identifiers and the keywords p4c also accepts as names.
_ANNOTATION_NAMES = frozenset(
    {"IDENTIFIER", "APPLY", "KEY", "ACTIONS", "STATE", "ENTRIES", "TYPE"}
)


def group_annotations(toks: list[Token], source: str) -> list[Token]:
    """Fold `@name`, `@name(...)` and `@name[...]` into single ANNOTATION tokens."""
    if not any(t.type == "AT" for t in toks):
        return toks
    pairs = match_brackets(toks)
    out: list[Token] = []
    i, n = 0, len(toks)
    while i < n:
        t = toks[i]
        if t.type != "AT":
            out.append(t)
            i += 1
            continue
        if i + 1 >= n or toks[i + 1].type not in _ANNOTATION_NAMES:
            out.append(_bad("expected an annotation name after '@'", "@", t.start_pos, t.line,
                            t.column))
            break
        name_tok = toks[i + 1]
        j = i + 2
        kind, body, body_tokens = "", None, []
        if name_tok.value == "pragma" and j < n and toks[j].type in _ANNOTATION_NAMES and \
                toks[j].line == t.line:
            # `@pragma name tokens...` (p4c): the annotation @name(tokens), its body the
            # rest of the line.
            name_tok = toks[j]
            j += 1
            rest = j
            while j < n and toks[j].line == t.line:
                j += 1
            end = toks[j - 1]
            if j > rest:
                kind, body = "(", source[toks[rest].start_pos : end.end_pos]
                body_tokens = toks[rest:j]
        elif j < n and toks[j].type in ("LPAREN", "LBRACKET"):
            close = pairs.get(j)
            if close is None:
                what = "(" if toks[j].type == "LPAREN" else "["
                out.append(_bad(f"unbalanced '{what}' in annotation body", toks[j].value,
                                toks[j].start_pos, toks[j].line, toks[j].column))
                break
            kind = toks[j].value
            body = source[toks[j].end_pos : toks[close].start_pos]
            body_tokens = toks[j + 1 : close]
            end = toks[close]
            j = close + 1
        else:
            end = name_tok
        ann = AnnotationToken(
            "ANNOTATION", name_tok.value, t.start_pos, t.line, t.column,
            end.end_line, end.end_column, end.end_pos,
        )
        assert isinstance(ann, AnnotationToken)
        ann.kind, ann.body, ann.body_tokens = kind, body, body_tokens
        out.append(ann)
        i = j
    return out
