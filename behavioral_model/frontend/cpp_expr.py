"""The condition of ``#if`` and ``#elif``: the ``defined`` operator and integer evaluation.

``replace_defined`` runs before macro expansion (``defined X`` must see the name, not
its expansion); ``IfExpr`` then evaluates the expanded text with cpp's rules: signed
64-bit arithmetic, identifiers left over count as 0, and unevaluated operands may
divide by zero.
"""

from __future__ import annotations

import re
from collections.abc import Container

from .cpp_tokens import Tok, is_punct, next_non_ws
from .errors import PreprocessError, SourceLocation

__all__ = ["ExprError", "IfExpr", "replace_defined"]


def replace_defined(
    toks: list[Tok], macros: Container[str], loc: SourceLocation
) -> list[Tok]:
    """Replace ``defined X`` and ``defined(X)`` by 1 or 0 before macro expansion."""
    out: list[Tok] = []
    i = 0
    while i < len(toks):
        tok = toks[i]
        if tok.kind != "id" or tok.text != "defined":
            out.append(tok)
            i += 1
            continue
        j = next_non_ws(toks, i + 1)
        paren = j < len(toks) and is_punct(toks[j], "(")
        if paren:
            j = next_non_ws(toks, j + 1)
        if j >= len(toks) or toks[j].kind != "id":
            raise PreprocessError("operator 'defined' requires an identifier", loc)
        name = toks[j].text
        if paren:
            j = next_non_ws(toks, j + 1)
            if j >= len(toks) or not is_punct(toks[j], ")"):
                raise PreprocessError("missing ')' after 'defined'", loc)
        out.append(Tok("num", "1" if name in macros else "0"))
        i = j + 1
    return out


class ExprError(Exception):
    """A malformed ``#if`` expression; the caller adds the directive's location."""


_EXPR_TOKEN_RE = re.compile(
    r"\s*(?:(?P<num>[0-9][0-9A-Za-z_]*)|(?P<id>[A-Za-z_][A-Za-z0-9_]*)"
    r"|(?P<op>&&|\|\||==|!=|<=|>=|<<|>>|[-+*/%&|^~!<>()?:])|(?P<bad>\S))"
)
_INT_RE = re.compile(r"(0[xX][0-9a-fA-F]+|0[bB][01]+|0[0-7]*|[1-9][0-9]*)[uUlL]*")
_BINARY_PREC = {
    "||": 1, "&&": 2, "|": 3, "^": 4, "&": 5, "==": 6, "!=": 6,
    "<": 7, ">": 7, "<=": 7, ">=": 7, "<<": 8, ">>": 8,
    "+": 9, "-": 9, "*": 10, "/": 10, "%": 10,
}  # fmt: skip


def _wrap64(value: int) -> int:
    """Wrap to a signed 64-bit value, like cpp's intmax_t arithmetic."""
    return ((value + (1 << 63)) % (1 << 64)) - (1 << 63)


class IfExpr:
    """Recursive-descent evaluator for the integer expression of ``#if``/``#elif``.

    Identifiers left after macro expansion count as 0.  Operands that are not
    evaluated (right of a decided ``&&``/``||``, the unused ``?:`` branch) may
    divide by zero without error, as in cpp.
    """

    def __init__(self, text: str) -> None:
        self.toks: list[tuple[str, str]] = []
        for m in _EXPR_TOKEN_RE.finditer(text):
            kind = m.lastgroup
            if kind is None:
                continue
            if kind == "bad":
                raise ExprError(f"unexpected character '{m.group(kind)}'")
            self.toks.append((kind, m.group(kind)))
        self.pos = 0

    def evaluate(self) -> int:
        if not self.toks:
            raise ExprError("missing expression")
        value = self._cond(True)
        if self.pos < len(self.toks):
            raise ExprError(f"unexpected '{self.toks[self.pos][1]}'")
        return value

    def _peek(self) -> str | None:
        return self.toks[self.pos][1] if self.pos < len(self.toks) else None

    def _next(self) -> tuple[str, str]:
        if self.pos >= len(self.toks):
            raise ExprError("unexpected end of expression")
        tok = self.toks[self.pos]
        self.pos += 1
        return tok

    def _expect(self, text: str) -> None:
        kind, got = self._next()
        if got != text:
            raise ExprError(f"expected '{text}', got '{got}'")

    def _cond(self, live: bool) -> int:
        value = self._binary(1, live)
        if self._peek() != "?":
            return value
        self._next()
        then = self._cond(live and value != 0)
        self._expect(":")
        other = self._cond(live and value == 0)
        return then if value else other

    def _binary(self, min_prec: int, live: bool) -> int:
        lhs = self._unary(live)
        while True:
            op = self._peek()
            prec = _BINARY_PREC.get(op or "")
            if prec is None or prec < min_prec or self.toks[self.pos][0] != "op":
                return lhs
            self._next()
            rhs_live = live and (lhs != 0 if op == "&&" else lhs == 0 if op == "||" else True)
            rhs = self._binary(prec + 1, rhs_live)
            lhs = _apply(op or "", lhs, rhs, rhs_live)

    def _unary(self, live: bool) -> int:
        kind, text = self._next()
        if kind == "op" and text in "+-!~" and len(text) == 1:
            value = self._unary(live)
            return {"+": value, "-": _wrap64(-value), "!": int(not value), "~": ~value}[text]
        if text == "(" and kind == "op":
            value = self._cond(live)
            self._expect(")")
            return value
        if kind == "num":
            m = _INT_RE.fullmatch(text)
            if m is None:
                raise ExprError(f"invalid integer constant '{text}'")
            digits = m.group(1)
            if digits[:2] in ("0b", "0B"):
                return _wrap64(int(digits[2:], 2))
            base = 16 if digits[:2] in ("0x", "0X") else 8 if digits.startswith("0") else 10
            return _wrap64(int(digits, base))
        if kind == "id":
            return 0
        raise ExprError(f"unexpected '{text}'")


def _apply(op: str, a: int, b: int, live: bool) -> int:
    if op in ("/", "%"):
        if b == 0:
            if live:
                raise ExprError("division by zero")
            return 0
        quotient = abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1)  # truncates, like C
        return _wrap64(quotient if op == "/" else a - quotient * b)
    if op in ("<<", ">>"):
        if b < 0:
            if live:
                raise ExprError("negative shift count")
            return 0
        return _wrap64(a << min(b, 64)) if op == "<<" else a >> min(b, 64)
    results = {
        "||": lambda: int(bool(a) or bool(b)),
        "&&": lambda: int(bool(a) and bool(b)),
        "|": lambda: a | b,
        "^": lambda: a ^ b,
        "&": lambda: a & b,
        "==": lambda: int(a == b),
        "!=": lambda: int(a != b),
        "<": lambda: int(a < b),
        ">": lambda: int(a > b),
        "<=": lambda: int(a <= b),
        ">=": lambda: int(a >= b),
        "+": lambda: _wrap64(a + b),
        "-": lambda: _wrap64(a - b),
        "*": lambda: _wrap64(a * b),
    }
    return results[op]()
