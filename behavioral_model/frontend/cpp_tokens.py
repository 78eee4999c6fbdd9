"""Preprocessing tokens: what the preprocessor splits a line into, and how it joins them back.

Macro expansion (``macros``) and ``#if`` handling work on these tokens rather than on
characters, so that names, numbers and strings are replaced or pasted as whole units.
Whitespace is kept as tokens of its own so that an unchanged line reads back unchanged.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = [
    "IDENT_RE",
    "MARK",
    "Tok",
    "is_punct",
    "join_tokens",
    "next_non_ws",
    "strip_ws",
    "tokenize",
]

IDENT_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_TOKEN_RE = re.compile(
    r"""
    (?P<ws>[ \t\f\v\r\n]+)
  | (?P<id>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<num>\.?[0-9](?:[eEpP][+-]|[0-9A-Za-z_.])*)
  | (?P<str>"(?:[^"\\\n]|\\.)*"?)
  | (?P<punct>\#\#|.)
    """,
    re.VERBOSE | re.DOTALL,
)


@dataclass(frozen=True, slots=True)
class Tok:
    kind: str  # "ws", "id", "num", "str", "punct" or "mark" (empty expansion)
    text: str
    hide: frozenset[str] = frozenset()  # macros that must not expand this token again
    col: int = 1  # 1-based column in the source line (of the invocation, for expansions)


# Left where a macro expanded to nothing, so join_tokens can keep its neighbours apart.
MARK = Tok("mark", "")


def tokenize(text: str) -> list[Tok]:
    return [
        Tok(m.lastgroup or "punct", m.group(), frozenset(), m.start() + 1)
        for m in _TOKEN_RE.finditer(text)
    ]


def strip_ws(toks: list[Tok]) -> list[Tok]:
    start, end = 0, len(toks)
    while start < end and toks[start].kind == "ws":
        start += 1
    while end > start and toks[end - 1].kind == "ws":
        end -= 1
    return toks[start:end]


def is_punct(tok: Tok, text: str) -> bool:
    return tok.kind == "punct" and tok.text == text


def next_non_ws(toks: Sequence[Tok], i: int) -> int:
    while i < len(toks) and toks[i].kind == "ws":
        i += 1
    return i


# Character pairs that begin a multi-character P4 token (or a comment).
_GLUING_PAIRS = frozenset(
    "++ -- += -= *= /= %= &= |= ^= <= >= == != << >> && || .. // /* ## |+ |- +| -| ->".split()
)


def join_tokens(toks: list[Tok]) -> str:
    """Concatenate tokens; where an expansion meets its neighbour, keep them apart.

    Without the space, ``#define A +1`` used as ``x +A`` would read as ``x ++1``
    (P4's concatenation operator); cpp separates such tokens too.
    """
    parts: list[str] = []
    prev: Tok | None = None
    boundary = False
    for tok in toks:
        if tok.kind == "mark":
            boundary = True
            continue
        if (
            prev is not None
            and tok.kind != "ws"
            and (boundary or prev.hide != tok.hide)
            and (
                (prev.text[-1] + tok.text[0] in _GLUING_PAIRS)
                or (prev.kind in ("id", "num") and tok.kind in ("id", "num"))
            )
        ):
            parts.append(" ")
        parts.append(tok.text)
        prev = None if tok.kind == "ws" else tok
        boundary = False
    return "".join(parts)
