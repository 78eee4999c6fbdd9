"""A C-style preprocessor for P4_16 source, standing in for the ``cpp`` run by p4c.

Supported: ``#include`` (``<...>`` and ``"..."``), object-like and function-like
``#define`` (``#`` stringify, ``##`` paste, variadic ``...``), ``#undef``,
``#if/#ifdef/#ifndef/#elif/#else/#endif`` with ``defined``, ``#error``,
``#warning``, ``#pragma once``, line continuations and comment removal.

The output keeps one output line per original line (directives and skipped lines
become empty lines; an included file's lines replace its ``#include`` line), and
``line_map`` records where every output line came from, so later stages can report
errors against the original file and line.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from .errors import PreprocessError, SourceLocation

__all__ = [
    "BUILTIN_INCLUDE_DIR",
    "MAX_INCLUDE_DEPTH",
    "PreprocessedSource",
    "parse_define_option",
    "preprocess",
    "preprocess_text",
]

#: Folder with our own ``core.p4`` and ``v1model.p4``; searched after ``include_dirs``.
BUILTIN_INCLUDE_DIR = Path(__file__).resolve().parent / "p4include"
#: Maximum nesting of ``#include``; deeper nesting is almost surely a missing guard.
MAX_INCLUDE_DEPTH = 64
# Upper bound on macro replacements for one line, against runaway expansion.
_MAX_EXPANSIONS = 20_000


@dataclass
class PreprocessedSource:
    """Preprocessor output plus the map from output lines to original lines."""

    text: str
    #: ``line_map[i]`` is ``(original file, original 1-based line)`` of output line ``i + 1``.
    line_map: list[tuple[str, int]]
    #: Messages from ``#warning`` directives, already prefixed with their location.
    warnings: list[str] = field(default_factory=list)
    #: The top-level file name (used when ``line_map`` is empty).
    main_file: str = "<unknown>"

    def location(self, line: int, col: int) -> SourceLocation:
        """Map a 1-based (line, col) of ``text`` to the original file and line.

        Lines past the end (e.g. an "unexpected end of input" error) map to the
        last line; the column is kept as given.
        """
        if not self.line_map:
            return SourceLocation(self.main_file, line, col)
        index = min(max(line, 1), len(self.line_map)) - 1
        file, orig_line = self.line_map[index]
        return SourceLocation(file, orig_line, col)


def parse_define_option(opt: str) -> tuple[str, str]:
    """Split a ``-D`` value: ``"NAME"`` -> ``("NAME", "1")``, ``"NAME=V"`` -> ``("NAME", "V")``.

    A leading ``-D`` is accepted and ignored.  ``NAME`` may carry a parameter list,
    as with cpp: ``"F(x)=x+1"`` -> ``("F(x)", "x+1")``.
    """
    text = opt[2:] if opt.startswith("-D") else opt
    text = text.strip()
    name, sep, value = text.partition("=")
    name = name.strip()
    if not _IDENT_PREFIX_RE.match(name):
        raise PreprocessError(f"invalid -D option '{opt}': expected NAME or NAME=VALUE")
    return name, value if sep else "1"


def preprocess(
    path: str | Path,
    include_dirs: Sequence[str | Path] = (),
    defines: Mapping[str, str] | None = None,
) -> PreprocessedSource:
    """Preprocess the P4 file at ``path``.

    ``include_dirs`` are searched (in order) for ``#include`` files before the
    built-in folder with ``core.p4`` and ``v1model.p4``.  ``defines`` maps macro
    names (optionally ``NAME(params)``) to replacement text, like ``-D``.
    Raises :class:`PreprocessError` for any problem with the input.
    """
    name = str(path)
    text = _read_source(Path(path), name, None)
    return preprocess_text(text, name, include_dirs, defines)


def preprocess_text(
    text: str,
    filename: str = "<string>",
    include_dirs: Sequence[str | Path] = (),
    defines: Mapping[str, str] | None = None,
) -> PreprocessedSource:
    """Preprocess ``text`` as if it were the contents of ``filename``.

    ``#include "x"`` looks in ``filename``'s folder first, unless the name starts
    with ``<`` (as in ``"<string>"``), in which case that step is skipped.
    """
    pp = _Preprocessor(include_dirs)
    for name, value in (defines or {}).items():
        pp.define_from_text(f"{name} {value}", None)
    directory = None if filename.startswith("<") else Path(filename).parent
    pp.run(text, filename, directory)
    return PreprocessedSource(
        text="".join(line + "\n" for line in pp.out_lines),
        line_map=pp.line_map,
        warnings=pp.warnings,
        main_file=filename,
    )


# --------------------------------------------------------------------------- tokens

_IDENT_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_IDENT_PREFIX_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\([^)]*\))?$")
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
class _Tok:
    kind: str  # "ws", "id", "num", "str", "punct" or "mark" (empty expansion)
    text: str
    hide: frozenset[str] = frozenset()  # macros that must not expand this token again
    col: int = 1  # 1-based column in the source line (of the invocation, for expansions)


# Left where a macro expanded to nothing, so _join can keep its neighbours apart.
_MARK = _Tok("mark", "")


def _tokenize(text: str) -> list[_Tok]:
    return [
        _Tok(m.lastgroup or "punct", m.group(), frozenset(), m.start() + 1)
        for m in _TOKEN_RE.finditer(text)
    ]


def _strip_ws(toks: list[_Tok]) -> list[_Tok]:
    start, end = 0, len(toks)
    while start < end and toks[start].kind == "ws":
        start += 1
    while end > start and toks[end - 1].kind == "ws":
        end -= 1
    return toks[start:end]


def _is_punct(tok: _Tok, text: str) -> bool:
    return tok.kind == "punct" and tok.text == text


# ----------------------------------------------------------------- source reading


def _read_source(path: Path, name: str, loc: SourceLocation | None) -> str:
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


def _strip_comments(text: str, fname: str) -> str:
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
class _Line:
    text: str  # after comment removal and joining of continuation lines
    lineno: int  # 1-based line of its first physical line
    nphys: int  # number of physical lines it spans


def _logical_lines(text: str) -> list[_Line]:
    phys = text.split("\n")
    if phys and phys[-1] == "":
        phys.pop()
    lines: list[_Line] = []
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
        lines.append(_Line(cur, start + 1, i - start + 1))
        i += 1
    return lines


def _directive_col(text: str) -> int:
    """1-based column of the ``#`` if ``text`` is a directive line, else 0."""
    stripped = text.lstrip(" \t\f\v")
    return len(text) - len(stripped) + 1 if stripped.startswith("#") else 0


# --------------------------------------------------------------------- macros


@dataclass(frozen=True)
class _Macro:
    name: str
    params: tuple[str, ...] | None  # None for object-like macros
    variadic: bool
    body: tuple[_Tok, ...]


class _NeedMore(Exception):
    """A macro invocation continues past the end of the current line."""


@dataclass
class _Cond:
    directive: str  # "if", "ifdef" or "ifndef"
    loc: SourceLocation
    parent_active: bool
    taken: bool  # some branch of this group has been selected
    active: bool  # the current branch is being emitted
    seen_else: bool = False


class _Preprocessor:
    def __init__(self, include_dirs: Sequence[str | Path]) -> None:
        self.include_dirs = [Path(d) for d in include_dirs]
        self.macros: dict[str, _Macro] = {}
        self.out_lines: list[str] = []
        self.line_map: list[tuple[str, int]] = []
        self.warnings: list[str] = []
        self.once: set[Path] = set()
        self.depth = 0
        self.cur_file = ""
        self.cur_line = 0

    # ------------------------------------------------------------ file driver

    def run(self, text: str, fname: str, directory: Path | None) -> None:
        lines = _logical_lines(_strip_comments(text, fname))
        conds: list[_Cond] = []
        i = 0
        while i < len(lines):
            line = lines[i]
            self.cur_file, self.cur_line = fname, line.lineno
            col = _directive_col(line.text)
            active = not conds or conds[-1].active
            if col:
                loc = SourceLocation(fname, line.lineno, col)
                body = line.text[col:]
                if not self._directive(body, loc, conds, active, directory):
                    self._emit_blank(fname, line)
                i += 1
            elif not active or not line.text.strip():
                self._emit_blank(fname, line)
                i += 1
            else:
                i = self._emit_text(lines, i, fname)
        if conds:
            raise PreprocessError(f"unterminated #{conds[-1].directive}", conds[-1].loc)

    def _emit_blank(self, fname: str, line: _Line) -> None:
        for k in range(line.nphys):
            self.out_lines.append("")
            self.line_map.append((fname, line.lineno + k))

    def _emit_text(self, lines: list[_Line], i: int, fname: str) -> int:
        """Expand and emit lines[i] (and any lines a macro call spans); return next index."""
        first = lines[i]
        names = set(_IDENT_RE.findall(first.text))
        if not (names & self.macros.keys() or names & {"__LINE__", "__FILE__"}):
            self.out_lines.append(first.text.rstrip())
            self.line_map.append((fname, first.lineno))
            self.out_lines.extend([""] * (first.nphys - 1))
            self.line_map.extend((fname, first.lineno + k) for k in range(1, first.nphys))
            return i + 1
        toks = _tokenize(first.text)
        loc = SourceLocation(fname, first.lineno, 1)
        j = i
        while True:
            more = j + 1 < len(lines) and not _directive_col(lines[j + 1].text)
            try:
                out = self._expand(toks, loc, more)
                break
            except _NeedMore:
                j += 1
                toks = toks + [_Tok("ws", " ")] + _tokenize(lines[j].text)
        text = _join(out).replace("\n", " ").rstrip()
        emitted = False
        for line in lines[i : j + 1]:
            for k in range(line.nphys):
                self.out_lines.append("" if emitted else text)
                self.line_map.append((fname, line.lineno + k))
                emitted = True
        return j + 1

    # ------------------------------------------------------------- directives

    def _directive(
        self,
        body: str,
        loc: SourceLocation,
        conds: list[_Cond],
        active: bool,
        directory: Path | None,
    ) -> bool:
        """Handle one directive; return True if it emitted lines itself (#include)."""
        m = _IDENT_RE.match(body.lstrip(" \t\f\v"))
        if m is None:
            if body.strip() and active:
                word = body.split()[0]
                raise PreprocessError(f"unknown preprocessor directive '#{word}'", loc)
            return False  # the null directive '#'
        name = m.group()
        rest = body.lstrip(" \t\f\v")[m.end() :].strip()
        if name in ("if", "ifdef", "ifndef"):
            value = False
            if active:
                value = self._eval_if(rest, loc) if name == "if" else self._ifdef(name, rest, loc)
            conds.append(_Cond(name, loc, active, value, active and value))
        elif name == "elif":
            cond = self._top_cond(conds, name, loc)
            if cond.parent_active and not cond.taken:
                cond.active = self._eval_if(rest, loc)
                cond.taken = cond.active
            else:
                cond.active = False
        elif name == "else":
            cond = self._top_cond(conds, name, loc)
            cond.seen_else = True
            cond.active = cond.parent_active and not cond.taken
            cond.taken = True
        elif name == "endif":
            if not conds:
                raise PreprocessError("#endif without #if", loc)
            conds.pop()
        elif not active:
            pass  # other directives in skipped regions are ignored, as in cpp
        elif name == "define":
            self.define_from_text(rest, loc)
        elif name == "undef":
            target = _IDENT_RE.match(rest)
            if target is None:
                raise PreprocessError("macro name missing in #undef", loc)
            self.macros.pop(target.group(), None)
        elif name == "include":
            self._include(rest, loc, directory)
            return True
        elif name == "error":
            raise PreprocessError(f"#error: {rest}" if rest else "#error", loc)
        elif name == "warning":
            self.warnings.append(f"{loc}: #warning: {rest}")
        elif name == "pragma" and rest.split() == ["once"]:
            self.once.add(_canonical(loc.file))
        else:
            raise PreprocessError(f"unknown preprocessor directive '#{name}'", loc)
        return False

    @staticmethod
    def _top_cond(conds: list[_Cond], name: str, loc: SourceLocation) -> _Cond:
        if not conds:
            raise PreprocessError(f"#{name} without #if", loc)
        cond = conds[-1]
        if cond.seen_else:
            raise PreprocessError(f"#{name} after #else", loc)
        return cond

    def _ifdef(self, name: str, rest: str, loc: SourceLocation) -> bool:
        target = _IDENT_RE.match(rest)
        if target is None:
            raise PreprocessError(f"no macro name given in #{name} directive", loc)
        defined = target.group() in self.macros
        return defined if name == "ifdef" else not defined

    def define_from_text(self, text: str, loc: SourceLocation | None) -> None:
        """Define a macro from the text after ``#define`` (``NAME[(params)] body``)."""
        m = _IDENT_RE.match(text)
        if m is None:
            word = text.split()[0] if text.split() else ""
            if not word:
                raise PreprocessError("macro name missing", loc)
            raise PreprocessError(f"macro name must be an identifier, got '{word}'", loc)
        name = m.group()
        if name == "defined":
            raise PreprocessError("'defined' cannot be used as a macro name", loc)
        pos = m.end()
        params: tuple[str, ...] | None = None
        variadic = False
        if text.startswith("(", pos):  # '(' right after the name: function-like
            close = text.find(")", pos)
            if close < 0:
                raise PreprocessError("missing ')' in macro parameter list", loc)
            params, variadic = _parse_params(text[pos + 1 : close], loc)
            pos = close + 1
        # Like cpp, whitespace inside a replacement list collapses to one space.
        body = tuple(
            _Tok("ws", " ") if t.kind == "ws" else t for t in _strip_ws(_tokenize(text[pos:]))
        )
        _check_body(body, params, loc)
        self.macros[name] = _Macro(name, params, variadic, body)

    def _include(self, rest: str, loc: SourceLocation, directory: Path | None) -> None:
        spec = _parse_include_name(rest)
        if spec is None:  # computed include: expand macros, then try again
            toks = self._expand(_tokenize(rest), loc, False)
            spec = _parse_include_name("".join(t.text for t in toks).strip())
        if spec is None:
            raise PreprocessError('#include expects "FILENAME" or <FILENAME>', loc)
        name, angled = spec
        if not name:
            raise PreprocessError("empty file name in #include", loc)
        dirs: list[Path] = []
        if not angled and directory is not None:
            dirs.append(directory)
        dirs += self.include_dirs
        dirs.append(BUILTIN_INCLUDE_DIR)
        found = next((d / name for d in dirs if (d / name).is_file()), None)
        if found is None:
            searched = ", ".join(str(d) for d in dirs)
            raise PreprocessError(f"cannot find include file '{name}' (searched: {searched})", loc)
        if _canonical(str(found)) in self.once:
            return
        if self.depth >= MAX_INCLUDE_DEPTH:
            raise PreprocessError(
                f"#include nested too deeply (more than {MAX_INCLUDE_DEPTH} levels)", loc
            )
        fname = str(found)
        text = _read_source(found, fname, loc)
        self.depth += 1
        try:
            self.run(text, fname, found.parent)
        finally:
            self.depth -= 1

    # -------------------------------------------------------------- expansion

    def _expand(self, toks: list[_Tok], loc: SourceLocation, more: bool) -> list[_Tok]:
        """Macro-expand ``toks``; raise _NeedMore if a call may continue on the next line."""
        out: list[_Tok] = []
        pending = toks[::-1]  # a stack: the next token is pending[-1]
        budget = _MAX_EXPANSIONS
        while pending:
            tok = pending.pop()
            if tok.kind != "id" or tok.text in tok.hide:
                out.append(tok)
                continue
            macro = self.macros.get(tok.text)
            if macro is None:
                out.append(self._builtin(tok) or tok)
                continue
            budget -= 1
            if budget < 0:
                raise PreprocessError("macro expansion too deep or too large", loc)
            if macro.params is None:
                repl = self._subst(macro, None, tok.hide | {macro.name}, tok.col, loc)
                pending.extend(reversed(repl) if repl else [_MARK])
                continue
            k = len(pending) - 1
            while k >= 0 and pending[k].kind == "ws":
                k -= 1
            if k < 0 and more:
                raise _NeedMore
            if k < 0 or not _is_punct(pending[k], "("):
                out.append(tok)  # a function-like macro name without arguments
                continue
            del pending[k:]
            args, rparen = self._collect_args(pending, macro, tok, loc, more)
            hide = (tok.hide & rparen.hide) | {macro.name}
            repl = self._subst(macro, args, hide, tok.col, loc)
            pending.extend(reversed(repl) if repl else [_MARK])
        return out

    def _builtin(self, tok: _Tok) -> _Tok | None:
        if tok.text == "__LINE__":
            return _Tok("num", str(self.cur_line), tok.hide, tok.col)
        if tok.text == "__FILE__":
            return _Tok("str", _quote(self.cur_file), tok.hide, tok.col)
        return None

    def _collect_args(
        self, pending: list[_Tok], macro: _Macro, tok: _Tok, loc: SourceLocation, more: bool
    ) -> tuple[dict[str, list[_Tok]], _Tok]:
        assert macro.params is not None
        nparams = len(macro.params)
        args: list[list[_Tok]] = [[]]
        depth = 0
        while True:
            if not pending:
                if more:
                    raise _NeedMore
                raise PreprocessError(
                    f"unterminated argument list invoking macro '{macro.name}'",
                    SourceLocation(loc.file, loc.line, tok.col),
                )
            t = pending.pop()
            if _is_punct(t, "("):
                depth += 1
            elif _is_punct(t, ")"):
                if depth == 0:
                    rparen = t
                    break
                depth -= 1
            elif _is_punct(t, ",") and depth == 0:
                if not (macro.variadic and len(args) >= nparams):
                    args.append([])
                    continue
            args[-1].append(t)
        args = [_strip_ws(a) for a in args]
        if nparams == 0 and args == [[]]:
            args = []
        if macro.variadic and len(args) == nparams - 1:
            args.append([])
        if len(args) != nparams:
            raise PreprocessError(
                f"macro '{macro.name}' expects {nparams} argument(s), got {len(args)}",
                SourceLocation(loc.file, loc.line, tok.col),
            )
        return dict(zip(macro.params, args, strict=True)), rparen

    def _subst(
        self,
        macro: _Macro,
        args: dict[str, list[_Tok]] | None,
        hide: frozenset[str],
        col: int,
        loc: SourceLocation,
    ) -> list[_Tok]:
        """Replacement list of one macro call, with parameters substituted."""
        body = macro.body
        out: list[_Tok] = []
        expanded: dict[str, list[_Tok]] = {}
        i = 0
        while i < len(body):
            tok = body[i]
            if args is not None and _is_punct(tok, "#"):
                j = _next_non_ws(body, i + 1)
                out.append(_Tok("str", _stringify(args[body[j].text])))
                i = j + 1
            elif _is_punct(tok, "##"):
                j = _next_non_ws(body, i + 1)
                rhs = body[j]
                rhs_toks = args[rhs.text] if args and rhs.text in args else [rhs]
                while out and out[-1].kind == "ws":
                    out.pop()
                if out and rhs_toks:
                    lhs = out.pop()
                    out.extend(_tokenize(lhs.text + rhs_toks[0].text))
                    out.extend(rhs_toks[1:])
                else:
                    out.extend(rhs_toks)
                i = j + 1
            elif args is not None and tok.kind == "id" and tok.text in args:
                j = _next_non_ws(body, i + 1)
                if j < len(body) and _is_punct(body[j], "##"):
                    out.extend(args[tok.text])  # operand of ## is not expanded
                else:
                    if tok.text not in expanded:
                        expanded[tok.text] = self._expand(args[tok.text], loc, False)
                    out.extend(expanded[tok.text])
                i += 1
            else:
                out.append(tok)
                i += 1
        return [_Tok(t.kind, t.text, t.hide | hide, col) for t in out]

    # ------------------------------------------------------------ #if values

    def _eval_if(self, rest: str, loc: SourceLocation) -> bool:
        toks = _replace_defined(_tokenize(rest), self.macros, loc)
        toks = self._expand(toks, loc, False)
        text = _join(toks)
        try:
            return _IfExpr(text).evaluate() != 0
        except _ExprError as exc:
            raise PreprocessError(f"invalid #if expression: {exc}", loc) from None


# Character pairs that begin a multi-character P4 token (or a comment).
_GLUING_PAIRS = frozenset(
    "++ -- += -= *= /= %= &= |= ^= <= >= == != << >> && || .. // /* ## |+ |- +| -| ->".split()
)


def _join(toks: list[_Tok]) -> str:
    """Concatenate tokens; where an expansion meets its neighbour, keep them apart.

    Without the space, ``#define A +1`` used as ``x +A`` would read as ``x ++1``
    (P4's concatenation operator); cpp separates such tokens too.
    """
    parts: list[str] = []
    prev: _Tok | None = None
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


def _canonical(path: str) -> Path:
    try:
        return Path(path).resolve()
    except OSError:
        return Path(path)


def _parse_include_name(rest: str) -> tuple[str, bool] | None:
    for open_, close, angled in (('"', '"', False), ("<", ">", True)):
        if rest.startswith(open_):
            end = rest.find(close, 1)
            return (rest[1:end], angled) if end > 0 else None
    return None


def _parse_params(text: str, loc: SourceLocation | None) -> tuple[tuple[str, ...], bool]:
    if not text.strip():
        return (), False
    params: list[str] = []
    variadic = False
    for raw in text.split(","):
        param = raw.strip()
        if variadic:
            raise PreprocessError("'...' must be the last macro parameter", loc)
        if param == "...":
            variadic, param = True, "__VA_ARGS__"
        elif not _IDENT_RE.fullmatch(param):
            raise PreprocessError(f"expected parameter name, got '{param}'", loc)
        if param in params:
            raise PreprocessError(f"duplicate macro parameter '{param}'", loc)
        params.append(param)
    return tuple(params), variadic


def _check_body(
    body: tuple[_Tok, ...], params: tuple[str, ...] | None, loc: SourceLocation | None
) -> None:
    if body and (_is_punct(body[0], "##") or _is_punct(body[-1], "##")):
        raise PreprocessError("'##' cannot appear at either end of a macro expansion", loc)
    if params is None:
        return
    for i, tok in enumerate(body):
        if _is_punct(tok, "#"):
            j = _next_non_ws(body, i + 1)
            if j >= len(body) or body[j].text not in params:
                raise PreprocessError("'#' is not followed by a macro parameter", loc)


def _next_non_ws(toks: Sequence[_Tok], i: int) -> int:
    while i < len(toks) and toks[i].kind == "ws":
        i += 1
    return i


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _stringify(toks: list[_Tok]) -> str:
    parts: list[str] = []
    for tok in toks:
        if tok.kind == "ws":
            if parts and parts[-1] != " ":
                parts.append(" ")
        elif tok.kind == "str":
            parts.append(tok.text.replace("\\", "\\\\").replace('"', '\\"'))
        else:
            parts.append(tok.text)
    return '"' + "".join(parts).strip() + '"'


def _replace_defined(
    toks: list[_Tok], macros: Mapping[str, _Macro], loc: SourceLocation
) -> list[_Tok]:
    """Replace ``defined X`` and ``defined(X)`` by 1 or 0 before macro expansion."""
    out: list[_Tok] = []
    i = 0
    while i < len(toks):
        tok = toks[i]
        if tok.kind != "id" or tok.text != "defined":
            out.append(tok)
            i += 1
            continue
        j = _next_non_ws(toks, i + 1)
        paren = j < len(toks) and _is_punct(toks[j], "(")
        if paren:
            j = _next_non_ws(toks, j + 1)
        if j >= len(toks) or toks[j].kind != "id":
            raise PreprocessError("operator 'defined' requires an identifier", loc)
        name = toks[j].text
        if paren:
            j = _next_non_ws(toks, j + 1)
            if j >= len(toks) or not _is_punct(toks[j], ")"):
                raise PreprocessError("missing ')' after 'defined'", loc)
        out.append(_Tok("num", "1" if name in macros else "0"))
        i = j + 1
    return out


# ---------------------------------------------------------- #if expressions


class _ExprError(Exception):
    pass


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


class _IfExpr:
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
                raise _ExprError(f"unexpected character '{m.group(kind)}'")
            self.toks.append((kind, m.group(kind)))
        self.pos = 0

    def evaluate(self) -> int:
        if not self.toks:
            raise _ExprError("missing expression")
        value = self._cond(True)
        if self.pos < len(self.toks):
            raise _ExprError(f"unexpected '{self.toks[self.pos][1]}'")
        return value

    def _peek(self) -> str | None:
        return self.toks[self.pos][1] if self.pos < len(self.toks) else None

    def _next(self) -> tuple[str, str]:
        if self.pos >= len(self.toks):
            raise _ExprError("unexpected end of expression")
        tok = self.toks[self.pos]
        self.pos += 1
        return tok

    def _expect(self, text: str) -> None:
        kind, got = self._next()
        if got != text:
            raise _ExprError(f"expected '{text}', got '{got}'")

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
                raise _ExprError(f"invalid integer constant '{text}'")
            digits = m.group(1)
            if digits[:2] in ("0b", "0B"):
                return _wrap64(int(digits[2:], 2))
            base = 16 if digits[:2] in ("0x", "0X") else 8 if digits.startswith("0") else 10
            return _wrap64(int(digits, base))
        if kind == "id":
            return 0
        raise _ExprError(f"unexpected '{text}'")


def _apply(op: str, a: int, b: int, live: bool) -> int:
    if op in ("/", "%"):
        if b == 0:
            if live:
                raise _ExprError("division by zero")
            return 0
        quotient = abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1)  # truncates, like C
        return _wrap64(quotient if op == "/" else a - quotient * b)
    if op in ("<<", ">>"):
        if b < 0:
            if live:
                raise _ExprError("negative shift count")
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
