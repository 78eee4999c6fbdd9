"""What each ``<`` and ``>`` means: comparison, type arguments, type parameters or ``>>``.

The raw lexer cannot tell ``a < b`` from ``register<bit<32>>``; this pass decides from
the tokens around them (after type names are known): a ``<`` after a type, or starting
``f<T, ...>(``, opens type arguments; one that the type-name pass saw opening a
declaration's type parameters opens those; the ``>`` closing either becomes
_RANGLE_ARGS, two adjacent ``>`` that close nothing are the shift SHR, and ``>`` ``>=``
that close nothing are the compound assignment ``>>=``.
"""

from __future__ import annotations

from collections.abc import Callable

from lark import Token

from .rawlex import match_brackets

__all__ = ["classify_angles"]


_TYPE_STARTS = frozenset(
    {"TYPE_IDENTIFIER", "BIT", "INT", "VARBIT", "BOOL", "STRING", "TUPLE", "VOID", "ERROR",
     "MATCH_KIND", "DONTCARE", "LIST"}
)
_ANGLE_AFTER_TYPE = frozenset(
    {"TYPE_IDENTIFIER", "BIT", "INT", "VARBIT", "TUPLE", "VALUESET", "LIST"})
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


def classify_angles(toks: list[Token], param_angles: Callable[[int], bool]) -> list[Token]:
    """Turn `<`/`>` into LANGLE/_LANGLE_ARGS/_LANGLE_PARAMS and RANGLE/_RANGLE_ARGS/SHR."""
    if not any(t.type in ("LANGLE", "RANGLE") for t in toks):
        return toks
    pairs = match_brackets(toks)
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
            elif (i + 1 < n and toks[i + 1].type == "GE"
                  and toks[i + 1].start_pos == t.end_pos):
                # `a >>= b` (spec 11.1), lexed as `>` `>=` for `bit<8>>=`'s sake.
                out.append(Token("OP_ASSIGN", ">>=", t.start_pos, t.line, t.column, t.line,
                                 t.column + 3, t.end_pos + 2))
                i += 2
                continue
        out.append(t)
        i += 1
    return out
