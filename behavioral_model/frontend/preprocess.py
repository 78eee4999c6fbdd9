"""A C-style preprocessor for P4_16 source, standing in for the ``cpp`` run by p4c.

Supported: ``#include`` (``<...>`` and ``"..."``), object-like and function-like
``#define`` (``#`` stringify, ``##`` paste, variadic ``...``), ``#undef``,
``#if/#ifdef/#ifndef/#elif/#else/#endif`` with ``defined``, ``#error``,
``#warning``, ``#pragma once``, line continuations and comment removal.

The output keeps one output line per original line (directives and skipped lines
become empty lines; an included file's lines replace its ``#include`` line), and
``line_map`` records where every output line came from, so later stages can report
errors against the original file and line.

This module drives the run (files, lines, directives, conditional groups, includes);
``cpp_source`` reads files and splits them into logical lines, ``cpp_tokens`` holds the
preprocessing tokens, ``macros`` defines and expands macros and ``cpp_expr`` evaluates
``#if`` conditions.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from .cpp_expr import ExprError, IfExpr, replace_defined
from .cpp_source import Line, directive_col, logical_lines, read_source, strip_comments
from .cpp_tokens import IDENT_RE, Tok, join_tokens, tokenize
from .errors import PreprocessError, SourceLocation
from .macros import MacroTable, NeedMore

__all__ = [
    "BUILTIN_INCLUDE_DIR",
    "MAX_INCLUDE_DEPTH",
    "PreprocessedSource",
    "parse_define_option",
    "preprocess",
    "preprocess_text",
]

#: Folder with our own ``core.p4``, ``v1model.p4``, ``pna.p4``, ...; searched after
#: ``include_dirs``.
BUILTIN_INCLUDE_DIR = Path(__file__).resolve().parent / "p4include"
#: Maximum nesting of ``#include``; deeper nesting is almost surely a missing guard.
MAX_INCLUDE_DEPTH = 64

# A -D name: an identifier, optionally followed by a parameter list.
_IDENT_PREFIX_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\([^)]*\))?$")


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


#: What bm defines before it reads any program, as p4c's BMv2 back ends do
#: (p4c-bm2-ss and p4c-bm2-pna add ``-D__TARGET_BMV2__``): programs test it to take
#: the spelling BMv2 runs. A ``None`` value in ``defines`` (``-U NAME``) removes it,
#: to read a program as another compiler (p4c-dpdk, p4test) would.
PREDEFINED_MACROS: Mapping[str, str] = {"__TARGET_BMV2__": "1"}


def _command_line_macros(defines: Mapping[str, str | None] | None) -> dict[str, str]:
    """:data:`PREDEFINED_MACROS` with ``defines`` applied in order, as cpp applies its
    ``-D`` and ``-U`` options: a later one replaces or removes an earlier macro of the
    same name (``F(x)`` and ``F`` are one name)."""
    macros = dict(PREDEFINED_MACROS)
    for name, value in (defines or {}).items():
        base = name.partition("(")[0].strip()
        for earlier in [key for key in macros if key.partition("(")[0].strip() == base]:
            del macros[earlier]
        if value is not None:
            macros[name] = value
    return macros


def parse_undefine_option(opt: str) -> str:
    """The NAME of a ``-U`` value (a leading ``-U`` is accepted and ignored)."""
    name = (opt[2:] if opt.startswith("-U") else opt).strip()
    if not IDENT_RE.fullmatch(name):
        raise PreprocessError(f"invalid -U option '{opt}': expected NAME")
    return name


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
    defines: Mapping[str, str | None] | None = None,
) -> PreprocessedSource:
    """Preprocess the P4 file at ``path``.

    ``include_dirs`` are searched (in order) for ``#include`` files before the
    built-in folder with ``core.p4``, ``v1model.p4``, ``pna.p4``, ...  ``defines`` maps macro
    names (optionally ``NAME(params)``) to replacement text, like ``-D``, or to ``None``,
    like ``-U``; they apply on top of :data:`PREDEFINED_MACROS`.
    Raises :class:`PreprocessError` for any problem with the input.
    """
    name = str(path)
    text = read_source(Path(path), name, None)
    return preprocess_text(text, name, include_dirs, defines)


def preprocess_text(
    text: str,
    filename: str = "<string>",
    include_dirs: Sequence[str | Path] = (),
    defines: Mapping[str, str | None] | None = None,
) -> PreprocessedSource:
    """Preprocess ``text`` as if it were the contents of ``filename``.

    ``#include "x"`` looks in ``filename``'s folder first, unless the name starts
    with ``<`` (as in ``"<string>"``), in which case that step is skipped.
    """
    pp = _Preprocessor(include_dirs)
    for name, value in _command_line_macros(defines).items():
        pp.macros.define(f"{name} {value}", None)
    directory = None if filename.startswith("<") else Path(filename).parent
    pp.run(text, filename, directory)
    return PreprocessedSource(
        text="".join(line + "\n" for line in pp.out_lines),
        line_map=pp.line_map,
        warnings=pp.warnings,
        main_file=filename,
    )


@dataclass
class _Cond:
    """One open ``#if``/``#ifdef``/``#ifndef`` group and the state of its branches."""

    directive: str  # "if", "ifdef" or "ifndef"
    loc: SourceLocation
    parent_active: bool
    taken: bool  # some branch of this group has been selected
    active: bool  # the current branch is being emitted
    seen_else: bool = False


class _Preprocessor:
    """One preprocessing run: the output so far and the state the directives change."""

    def __init__(self, include_dirs: Sequence[str | Path]) -> None:
        self.include_dirs = [Path(d) for d in include_dirs]
        self.macros = MacroTable()
        self.out_lines: list[str] = []
        self.line_map: list[tuple[str, int]] = []
        self.warnings: list[str] = []
        self.once: set[Path] = set()
        self.depth = 0

    # ------------------------------------------------------------ file driver

    def run(self, text: str, fname: str, directory: Path | None) -> None:
        lines = logical_lines(strip_comments(text, fname))
        conds: list[_Cond] = []
        i = 0
        while i < len(lines):
            line = lines[i]
            self.macros.cur_file, self.macros.cur_line = fname, line.lineno
            col = directive_col(line.text)
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

    def _emit_blank(self, fname: str, line: Line) -> None:
        for k in range(line.nphys):
            self.out_lines.append("")
            self.line_map.append((fname, line.lineno + k))

    def _emit_text(self, lines: list[Line], i: int, fname: str) -> int:
        """Expand and emit lines[i] (and any lines a macro call spans); return next index."""
        first = lines[i]
        names = set(IDENT_RE.findall(first.text))
        if not (names & self.macros.defs.keys() or names & {"__LINE__", "__FILE__"}):
            self.out_lines.append(first.text.rstrip())
            self.line_map.append((fname, first.lineno))
            self.out_lines.extend([""] * (first.nphys - 1))
            self.line_map.extend((fname, first.lineno + k) for k in range(1, first.nphys))
            return i + 1
        toks = tokenize(first.text)
        loc = SourceLocation(fname, first.lineno, 1)
        j = i
        while True:
            more = j + 1 < len(lines) and not directive_col(lines[j + 1].text)
            try:
                out = self.macros.expand(toks, loc, more)
                break
            except NeedMore:
                j += 1
                toks = toks + [Tok("ws", " ")] + tokenize(lines[j].text)
        text = join_tokens(out).replace("\n", " ").rstrip()
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
        m = IDENT_RE.match(body.lstrip(" \t\f\v"))
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
            self.macros.define(rest, loc)
        elif name == "undef":
            target = IDENT_RE.match(rest)
            if target is None:
                raise PreprocessError("macro name missing in #undef", loc)
            self.macros.defs.pop(target.group(), None)
        elif name == "include":
            self._include(rest, loc, directory)
            return True
        elif name == "error":
            raise PreprocessError(f"#error: {rest}" if rest else "#error", loc)
        elif name == "warning":
            self.warnings.append(f"{loc}: #warning: {rest}")
        elif name == "pragma" and rest.split() == ["once"]:
            self.once.add(_canonical(loc.file))
        elif name == "line":
            # bm's messages keep the file's own lines (p4c accepts line.p4).
            if not re.fullmatch(r'\d+(\s+"[^"]*")?\s*', rest):
                raise PreprocessError('#line needs a line number and optionally a "file"',
                                      loc)
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
        target = IDENT_RE.match(rest)
        if target is None:
            raise PreprocessError(f"no macro name given in #{name} directive", loc)
        defined = target.group() in self.macros.defs
        return defined if name == "ifdef" else not defined

    def _include(self, rest: str, loc: SourceLocation, directory: Path | None) -> None:
        spec = _parse_include_name(rest)
        if spec is None:  # computed include: expand macros, then try again
            toks = self.macros.expand(tokenize(rest), loc, False)
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
        text = read_source(found, fname, loc)
        self.depth += 1
        try:
            self.run(text, fname, found.parent)
        finally:
            self.depth -= 1

    # ------------------------------------------------------------ #if values

    def _eval_if(self, rest: str, loc: SourceLocation) -> bool:
        toks = replace_defined(tokenize(rest), self.macros.defs, loc)
        toks = self.macros.expand(toks, loc, False)
        text = join_tokens(toks)
        try:
            return IfExpr(text).evaluate() != 0
        except ExprError as exc:
            raise PreprocessError(f"invalid #if expression: {exc}", loc) from None


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
