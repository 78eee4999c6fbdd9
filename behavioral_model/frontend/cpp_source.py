"""Reading preprocessor input: files to text, text to logical lines.

The preprocessor works line by line, like cpp: comments are blanked out first (so a
``//`` or ``/* */`` can neither hide nor start a directive), then lines ending in a
backslash are joined with the next.  Each logical line remembers how many physical lines
it spans, so the output can keep one line per original line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from .errors import PreprocessError, SourceLocation

__all__ = ["Line", "directive_col", "logical_lines", "read_source", "strip_comments"]


def read_source(path: Path, name: str, loc: SourceLocation | None) -> str:
    """The text of ``path`` with newlines normalised; ``loc`` is the ``#include``, if any."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise PreprocessError(f"cannot read '{name}': {exc.strerror or exc}", loc) from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise PreprocessError("file is not valid UTF-8", SourceLocation(name, line, 1)) from None
    return text.replace("\r\n", "\n").replace("\r", "\n")


_QUOTE_OR_SLASH_RE = re.compile(r'["/]')


def strip_comments(text: str, fname: str) -> str:
    """Replace every comment by spaces (keeping newlines), leaving strings alone."""
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch == '"':
            j = i + 1
            while j < n and text[j] not in '"\n':
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n) if j < n and text[j] == '"' else min(j, n)
            out.append(text[i:j])
            i = j
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            if j < 0:
                line = text.count("\n", 0, i) + 1
                col = i - (text.rfind("\n", 0, i) + 1) + 1
                raise PreprocessError("unterminated comment", SourceLocation(fname, line, col))
            j += 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        else:
            m = _QUOTE_OR_SLASH_RE.search(text, i + 1)
            j = m.start() if m else n
            out.append(text[i:j])
            i = j
    return "".join(out)


@dataclass(frozen=True, slots=True)
class Line:
    text: str  # after comment removal and joining of continuation lines
    lineno: int  # 1-based line of its first physical line
    nphys: int  # number of physical lines it spans


def logical_lines(text: str) -> list[Line]:
    phys = text.split("\n")
    if phys and phys[-1] == "":
        phys.pop()
    lines: list[Line] = []
    i = 0
    while i < len(phys):
        start, cur = i, phys[i]
        while True:
            trimmed = cur.rstrip(" \t\f\v")
            if not trimmed.endswith("\\"):
                break
            cur = trimmed[:-1]
            if i + 1 >= len(phys):
                break
            i += 1
            cur += phys[i]
        lines.append(Line(cur, start + 1, i - start + 1))
        i += 1
    return lines


def directive_col(text: str) -> int:
    """1-based column of the ``#`` if ``text`` is a directive line, else 0."""
    stripped = text.lstrip(" \t\f\v")
    return len(text) - len(stripped) + 1 if stripped.startswith("#") else 0
