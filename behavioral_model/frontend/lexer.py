"""Tokenizer for P4_16 with the context the LALR grammar (p4.lark) needs.

`tokenize(text)` returns lark Tokens whose types are the grammar's terminals. Beyond plain
lexing it does what p4c's lexer does with the help of its symbol table:

* **Type names.** A pre-pass over the declarations finds the names of declared types
  (header, header_union, struct, enum, extern object, parser, control, package, typedef and
  type) and the type parameters of generic declarations (`<T, U>`, scoped to that
  declaration), then emits TYPE_IDENTIFIER for them and IDENTIFIER otherwise. A type name is
  a type from its declaration onwards, except where a variable, parameter or field of the
  same name shadows it (until the end of the enclosing `{...}`), and except right after a
  member `.` (`hdr.x` is always a member name).
* **Angle brackets.** `<` becomes LANGLE (less-than), _LANGLE_ARGS (a type argument list:
  after a type, or a call `f<T>(...)`) or _LANGLE_PARAMS (a declaration's type parameters);
  the `>` closing either is _RANGLE_ARGS. Two adjacent `>` that close nothing are SHR (`>>`),
  so `register<bit<32>>` and `a >> 2` both work.
* **Annotations.** `@name`, `@name(...)` and `@name[...]` become one ANNOTATION token
  (an :class:`AnnotationToken` carrying the body's text and tokens).

Problems (a bad character, an unterminated string or comment, a malformed integer literal)
become a BAD token carrying the message, so the parser reports the first error in source
order.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from lark import Token

__all__ = [
    "AnnotationToken",
    "BadToken",
    "KEYWORDS",
    "TERMINAL_NAMES",
    "parse_int_literal",
    "tokenize",
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
        "abstract action actions apply bool bit const control default else entries enum "
        "error exit extern false header header_union if in inout int key match_kind out "
        "package parser return select state string struct switch table transition true "
        "tuple type typedef varbit void"
    ).split()
}
KEYWORDS["value_set"] = "VALUESET"

_PUNCT: dict[str, str] = {
    "&&&": "MASK",
    "|+|": "PLUS_SAT",
    "|-|": "MINUS_SAT",
    "..": "RANGE",
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
  | (?P<string>"(?:[^"\\\n]|\\.)*")
  | (?P<openstring>")
  | (?P<punct>&&&|\|\+\||\|-\||\.\.|<<|<=|>=|==|!=|&&|\|\||\+\+|[-+*/%&|^~!<>()\[\]{};,:.=?@])
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


def _raw_tokens(text: str) -> list[Token]:
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
            append(_make("STRING_LITERAL", value, pos, line, col))
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


def _match_brackets(toks: list[Token]) -> dict[int, int]:
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


def _group_annotations(toks: list[Token], source: str) -> list[Token]:
    """Fold `@name`, `@name(...)` and `@name[...]` into single ANNOTATION tokens."""
    if not any(t.type == "AT" for t in toks):
        return toks
    pairs = _match_brackets(toks)
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
        if j < n and toks[j].type in ("LPAREN", "LBRACKET"):
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


# ---------------------------------------------------------------------------------------
# Type names


_TYPE_KEYWORD_ENDS = frozenset(
    {"BOOL", "BIT", "INT", "VARBIT", "STRING", "ERROR", "MATCH_KIND", "VOID"}
)
_NAME_TYPES = frozenset({"IDENTIFIER", "TYPE_IDENTIFIER"})
# Tokens after which a `.` is member access (otherwise it is the top-level `.name` prefix).
_EXPR_ENDS = frozenset(
    {"IDENTIFIER", "TYPE_IDENTIFIER", "_RPAREN", "_RBRACKET", "APPLY", "KEY", "ACTIONS",
     "STATE", "ENTRIES", "TYPE", "ERROR"}
)


class _Scanner:
    """Finds declared type names, type-parameter scopes and shadowing declarations."""

    def __init__(self, toks: list[Token]) -> None:
        self.toks = toks
        self.n = len(toks)
        self.pairs = _match_brackets(toks)
        self.declared: dict[str, int] = {}  # type name -> index from which it is a type
        self.tvar_scopes: dict[str, list[tuple[int, int]]] = {}  # type variable -> extents
        self.param_angles: set[int] = set()  # indices of `<` opening type parameters
        self.shadows: dict[str, list[tuple[int, int]]] = {}
        self.decl_ends: list[int] = []  # end index of each top-level declaration

    # -- helpers

    def tt(self, i: int) -> str:
        return self.toks[i].type if 0 <= i < self.n else "$END"

    def declare(self, i: int) -> None:
        if self.tt(i) in _NAME_TYPES:
            name = self.toks[i].value
            if name not in self.declared or self.declared[name] > i:
                self.declared[name] = i

    def skip_annotations(self, i: int) -> int:
        while self.tt(i) == "ANNOTATION":
            i += 1
        return i

    def angle_close(self, i: int, limit: int) -> int | None:
        """Index of the `>` closing the `<` at i (None if not found before limit)."""
        depth = 0
        k = i
        while k <= limit and k < self.n:
            tt = self.toks[k].type
            if tt == "LANGLE":
                depth += 1
            elif tt == "RANGLE":
                depth -= 1
                if depth == 0:
                    return k
            elif tt in ("LPAREN", "LBRACKET"):
                k = self.pairs.get(k, limit)
            elif tt in ("SEMI", "LBRACE", "_RBRACE"):
                return None
            k += 1
        return None

    def angle_open(self, i: int, limit: int) -> int | None:
        """Index of the `<` matching the `>` at i, scanning backwards down to limit."""
        depth = 0
        k = i
        while k >= limit:
            tt = self.toks[k].type
            if tt == "RANGLE":
                depth += 1
            elif tt == "LANGLE":
                depth -= 1
                if depth == 0:
                    return k
            elif tt in ("_RPAREN", "_RBRACKET"):
                k = self.pairs.get(k, limit)
            elif tt in ("SEMI", "LBRACE", "_RBRACE"):
                return None
            k -= 1
        return None

    def type_params(self, lt: int, scope: tuple[int, int]) -> None:
        """Record the type parameters in the list opened by the `<` at lt."""
        gt = self.angle_close(lt, scope[1])
        if gt is None:
            return
        self.param_angles.add(lt)
        for k in range(lt + 1, gt):
            if self.tt(k) in _NAME_TYPES and self.tt(k - 1) in ("LANGLE", "_COMMA"):
                self.tvar_scopes.setdefault(self.toks[k].value, []).append(scope)

    def decl_end(self, i: int) -> int:
        """Last index of the declaration starting at i (its `;` or closing `}`)."""
        k = i
        while k < self.n:
            tt = self.toks[k].type
            if tt == "SEMI":
                return k
            if tt in ("LPAREN", "LBRACKET", "LBRACE"):
                close = self.pairs.get(k)
                if close is None:
                    return self.n - 1
                if tt == "LBRACE" and self.tt(close + 1) != "SEMI":
                    # `{...}` ends the declaration unless a `;` follows (`x = {...};`).
                    return close
                k = close
            k += 1
        return self.n - 1

    # -- declarations

    def scan(self) -> None:
        i = 0
        while i < self.n:
            if self.tt(i) == "SEMI":
                i += 1
                continue
            start = self.skip_annotations(i)
            end = self.decl_end(start)
            self.declaration(start, end)
            self.decl_ends.append(end)
            i = end + 1
        self.find_shadows()

    def declaration(self, j: int, end: int) -> None:
        kw = self.tt(j)
        if kw in ("HEADER", "STRUCT", "HEADER_UNION", "PARSER", "CONTROL", "PACKAGE"):
            self.declare(j + 1)
            if self.tt(j + 2) == "LANGLE":
                self.type_params(j + 2, (j + 1, end))
        elif kw == "ENUM":
            for k in range(j + 1, end + 1):
                if self.tt(k) == "LBRACE":
                    self.declare(k - 1)
                    break
        elif kw in ("TYPEDEF", "TYPE"):
            if self.tt(end) == "SEMI":
                self.declare(end - 1)
        elif kw == "EXTERN":
            k = j + 1
            if self.tt(k) in _NAME_TYPES:
                after = k + 1
                if self.tt(after) == "LANGLE":
                    gt = self.angle_close(after, end)
                    after = gt + 1 if gt is not None else after
                if self.tt(after) in ("LBRACE", "SEMI"):
                    self.declare(k)
                    if self.tt(k + 1) == "LANGLE":
                        self.type_params(k + 1, (k, end))
                    if self.tt(after) == "LBRACE":
                        self.extern_body(after, self.pairs.get(after, end))
                    return
            self.function(k, end)
        elif kw in ("ERROR", "MATCH_KIND", "CONST", "ACTION"):
            pass
        else:
            self.function(j, end)

    def extern_body(self, lb: int, rb: int) -> None:
        i = lb + 1
        while i < rb:
            start = self.skip_annotations(i)
            if self.tt(start) == "ABSTRACT":
                start += 1
            k = start
            while k < rb and self.tt(k) != "SEMI":
                if self.tt(k) in ("LPAREN", "LBRACKET", "LBRACE"):
                    k = self.pairs.get(k, rb)
                k += 1
            self.function(start, k)
            i = k + 1

    def function(self, j: int, end: int) -> None:
        """`Ret name<T, U>(...)`: record T and U for the whole declaration [j, end]."""
        for p in range(j, end + 1):
            if self.tt(p) == "LPAREN":
                break
        else:
            return
        if self.tt(p - 1) != "RANGLE":
            return
        lt = self.angle_open(p - 1, j)
        if lt is None or lt - 1 <= j or self.tt(lt - 1) not in _NAME_TYPES:
            return
        if self.tt(lt - 2) == "DOT":
            return
        self.type_params(lt, (j, end))

    # -- shadowing

    def find_shadows(self) -> None:
        """Variables, parameters and fields named like a type hide it in their scope."""
        toks, declared = self.toks, self.declared
        if not declared:
            return
        braces: list[int] = []
        decl_idx = 0
        for i, t in enumerate(toks):
            tt = t.type
            if tt == "LBRACE":
                braces.append(i)
                continue
            if tt == "_RBRACE":
                if braces:
                    braces.pop()
                continue
            if tt != "IDENTIFIER" or t.value not in declared or declared[t.value] >= i:
                continue
            prev, nxt = self.tt(i - 1), self.tt(i + 1)
            if nxt not in ("SEMI", "_ASSIGN", "_COMMA", "_RPAREN"):
                continue
            if prev == "_RPAREN":
                if nxt != "SEMI":
                    continue
            elif not (prev in _NAME_TYPES or prev in ("RANGLE", "_RBRACKET")
                      or prev in _TYPE_KEYWORD_ENDS):
                continue
            if prev == "IDENTIFIER" and self.tt(i - 2) == "DOT":
                continue  # `a.b c`: not a declaration
            if braces:
                end = self.pairs.get(braces[-1], self.n - 1)
            else:
                while decl_idx < len(self.decl_ends) and self.decl_ends[decl_idx] < i:
                    decl_idx += 1
                end = self.decl_ends[decl_idx] if decl_idx < len(self.decl_ends) else self.n - 1
            self.shadows.setdefault(t.value, []).append((i, end))

    # -- queries

    def is_type(self, name: str, i: int) -> bool:
        scopes = self.tvar_scopes.get(name)
        if scopes is not None:
            for lo, hi in scopes:
                if lo <= i <= hi:
                    return True
        at = self.declared.get(name)
        if at is None or at > i:
            return False
        for lo, hi in self.shadows.get(name, ()):
            if lo <= i <= hi:
                return False
        return True


def _classify_names(toks: list[Token], is_type: Callable[[str, int], bool],
                    index_of: Callable[[int], int]) -> None:
    """Set IDENTIFIER / TYPE_IDENTIFIER; ``index_of`` maps list positions to scan indices."""
    prev2, prev = "", ""
    for i, t in enumerate(toks):
        tt = t.type
        if tt == "IDENTIFIER" or tt == "TYPE_IDENTIFIER":
            member = prev == "DOT" and prev2 in _EXPR_ENDS
            t.type = "TYPE_IDENTIFIER" if not member and is_type(t.value, index_of(i)) \
                else "IDENTIFIER"
        prev2, prev = prev, t.type


_TYPE_STARTS = frozenset(
    {"TYPE_IDENTIFIER", "BIT", "INT", "VARBIT", "BOOL", "STRING", "TUPLE", "VOID", "ERROR",
     "MATCH_KIND", "DONTCARE"}
)
_ANGLE_AFTER_TYPE = frozenset({"TYPE_IDENTIFIER", "BIT", "INT", "VARBIT", "TUPLE", "VALUESET"})
# Tokens that cannot appear inside a type argument list.
_NOT_IN_TYPE_ARGS = frozenset(
    {"SEMI", "LBRACE", "_RBRACE", "_ASSIGN", "AND", "OR", "EQ", "NE", "LE", "GE", "_QUESTION",
     "_COLON", "$END"}
)


def _call_type_args(toks: list[Token], i: int, pairs: dict[int, int]) -> bool:
    """Is the `<` at i (after a non-type) the start of `f<T, ...>(`?"""
    n = len(toks)
    nxt = toks[i + 1].type if i + 1 < n else "$END"
    if nxt == "DOT":
        nxt = toks[i + 2].type if i + 2 < n else "$END"
    if nxt not in _TYPE_STARTS:
        return False
    depth = 0
    k = i
    while k < n:
        tt = toks[k].type
        if tt == "LANGLE":
            depth += 1
        elif tt == "RANGLE":
            depth -= 1
            if depth == 0:
                return k + 1 < n and toks[k + 1].type == "LPAREN"
        elif tt in ("LPAREN", "LBRACKET"):
            close = pairs.get(k)
            if close is None:
                return False
            k = close
        elif tt in _NOT_IN_TYPE_ARGS or tt in ("_RPAREN", "_RBRACKET"):
            return False
        k += 1
    return False


def _classify_angles(toks: list[Token], param_angles: Callable[[int], bool]) -> list[Token]:
    """Turn `<`/`>` into LANGLE/_LANGLE_ARGS/_LANGLE_PARAMS and RANGLE/_RANGLE_ARGS/SHR."""
    if not any(t.type in ("LANGLE", "RANGLE") for t in toks):
        return toks
    pairs = _match_brackets(toks)
    out: list[Token] = []
    stack: list[int] = []  # paren depth at each open type-argument `<`
    depth = 0
    i, n = 0, len(toks)
    while i < n:
        t = toks[i]
        tt = t.type
        if tt == "LPAREN":
            depth += 1
        elif tt == "_RPAREN":
            depth = max(depth - 1, 0)
        elif tt in ("SEMI", "LBRACE", "_RBRACE"):
            stack.clear()
        elif tt == "LANGLE":
            prev = toks[i - 1].type if i else ""
            if param_angles(i):
                t.type = "_LANGLE_PARAMS"
                stack.append(depth)
            elif prev in _ANGLE_AFTER_TYPE or _call_type_args(toks, i, pairs):
                t.type = "_LANGLE_ARGS"
                stack.append(depth)
        elif tt == "RANGLE":
            if stack and stack[-1] == depth:
                stack.pop()
                t.type = "_RANGLE_ARGS"
            elif (i + 1 < n and toks[i + 1].type == "RANGLE"
                  and toks[i + 1].start_pos == t.end_pos):
                out.append(Token("SHR", ">>", t.start_pos, t.line, t.column, t.line,
                                 t.column + 2, t.end_pos + 1))
                i += 2
                continue
        out.append(t)
        i += 1
    return out


def tokenize(text: str) -> list[Token]:
    """Tokens of ``text`` ready for the grammar (see the module docstring)."""
    toks = _group_annotations(_raw_tokens(text), text)
    scanner = _Scanner(toks)
    scanner.scan()
    _classify_names(toks, scanner.is_type, lambda i: i)
    for i, t in enumerate(toks):
        if isinstance(t, AnnotationToken) and t.body_tokens:
            _classify_names(t.body_tokens, scanner.is_type, lambda _k, _i=i: _i)
            t.body_tokens = _classify_angles(t.body_tokens, lambda _k: False)
    return _classify_angles(toks, scanner.param_angles.__contains__)

