"""Macros of the preprocessor: parsing ``#define`` and expanding macro invocations.

Expansion follows cpp: each token carries the set of macros it came out of (its "hide
set") so a macro never expands inside its own expansion; arguments are fully expanded
before substitution, except as operands of ``#`` and ``##``; an invocation of a
function-like macro may span several lines (``NeedMore`` asks the caller for the next).
"""

from __future__ import annotations

from dataclasses import dataclass

from .cpp_tokens import IDENT_RE, MARK, Tok, is_punct, next_non_ws, strip_ws, tokenize
from .errors import PreprocessError, SourceLocation

__all__ = ["Macro", "MacroTable", "NeedMore"]

# Upper bound on macro replacements for one line, against runaway expansion.
_MAX_EXPANSIONS = 20_000


@dataclass(frozen=True)
class Macro:
    name: str
    params: tuple[str, ...] | None  # None for object-like macros
    variadic: bool
    body: tuple[Tok, ...]


class NeedMore(Exception):
    """A macro invocation continues past the end of the current line."""


class MacroTable:
    """The macros defined so far, and expansion of token lists with them."""

    def __init__(self) -> None:
        self.defs: dict[str, Macro] = {}
        # Where __FILE__ and __LINE__ point: the preprocessor sets them for each line.
        self.cur_file = ""
        self.cur_line = 0

    def define(self, text: str, loc: SourceLocation | None) -> None:
        """Define a macro from the text after ``#define`` (``NAME[(params)] body``)."""
        m = IDENT_RE.match(text)
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
            Tok("ws", " ") if t.kind == "ws" else t for t in strip_ws(tokenize(text[pos:]))
        )
        _check_body(body, params, loc)
        self.defs[name] = Macro(name, params, variadic, body)

    def expand(self, toks: list[Tok], loc: SourceLocation, more: bool) -> list[Tok]:
        """Macro-expand ``toks``; raise NeedMore if a call may continue on the next line."""
        out: list[Tok] = []
        pending = toks[::-1]  # a stack: the next token is pending[-1]
        budget = _MAX_EXPANSIONS
        while pending:
            tok = pending.pop()
            if tok.kind != "id" or tok.text in tok.hide:
                out.append(tok)
                continue
            macro = self.defs.get(tok.text)
            if macro is None:
                out.append(self._builtin(tok) or tok)
                continue
            budget -= 1
            if budget < 0:
                raise PreprocessError("macro expansion too deep or too large", loc)
            if macro.params is None:
                repl = self._subst(macro, None, tok.hide | {macro.name}, tok.col, loc)
                pending.extend(reversed(repl) if repl else [MARK])
                continue
            k = len(pending) - 1
            while k >= 0 and pending[k].kind == "ws":
                k -= 1
            if k < 0 and more:
                raise NeedMore
            if k < 0 or not is_punct(pending[k], "("):
                out.append(tok)  # a function-like macro name without arguments
                continue
            del pending[k:]
            args, rparen = self._collect_args(pending, macro, tok, loc, more)
            hide = (tok.hide & rparen.hide) | {macro.name}
            repl = self._subst(macro, args, hide, tok.col, loc)
            pending.extend(reversed(repl) if repl else [MARK])
        return out

    def _builtin(self, tok: Tok) -> Tok | None:
        if tok.text == "__LINE__":
            return Tok("num", str(self.cur_line), tok.hide, tok.col)
        if tok.text == "__FILE__":
            return Tok("str", _quote(self.cur_file), tok.hide, tok.col)
        return None

    def _collect_args(
        self, pending: list[Tok], macro: Macro, tok: Tok, loc: SourceLocation, more: bool
    ) -> tuple[dict[str, list[Tok]], Tok]:
        assert macro.params is not None
        nparams = len(macro.params)
        args: list[list[Tok]] = [[]]
        depth = 0
        while True:
            if not pending:
                if more:
                    raise NeedMore
                raise PreprocessError(
                    f"unterminated argument list invoking macro '{macro.name}'",
                    SourceLocation(loc.file, loc.line, tok.col),
                )
            t = pending.pop()
            if is_punct(t, "("):
                depth += 1
            elif is_punct(t, ")"):
                if depth == 0:
                    rparen = t
                    break
                depth -= 1
            elif is_punct(t, ",") and depth == 0:
                if not (macro.variadic and len(args) >= nparams):
                    args.append([])
                    continue
            args[-1].append(t)
        args = [strip_ws(a) for a in args]
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
        macro: Macro,
        args: dict[str, list[Tok]] | None,
        hide: frozenset[str],
        col: int,
        loc: SourceLocation,
    ) -> list[Tok]:
        """Replacement list of one macro call, with parameters substituted."""
        body = macro.body
        out: list[Tok] = []
        expanded: dict[str, list[Tok]] = {}
        i = 0
        while i < len(body):
            tok = body[i]
            if args is not None and is_punct(tok, "#"):
                j = next_non_ws(body, i + 1)
                out.append(Tok("str", _stringify(args[body[j].text])))
                i = j + 1
            elif is_punct(tok, "##"):
                j = next_non_ws(body, i + 1)
                rhs = body[j]
                rhs_toks = args[rhs.text] if args and rhs.text in args else [rhs]
                while out and out[-1].kind == "ws":
                    out.pop()
                if out and rhs_toks:
                    lhs = out.pop()
                    out.extend(tokenize(lhs.text + rhs_toks[0].text))
                    out.extend(rhs_toks[1:])
                else:
                    out.extend(rhs_toks)
                i = j + 1
            elif args is not None and tok.kind == "id" and tok.text in args:
                j = next_non_ws(body, i + 1)
                if j < len(body) and is_punct(body[j], "##"):
                    out.extend(args[tok.text])  # operand of ## is not expanded
                else:
                    if tok.text not in expanded:
                        expanded[tok.text] = self.expand(args[tok.text], loc, False)
                    out.extend(expanded[tok.text])
                i += 1
            else:
                out.append(tok)
                i += 1
        return [Tok(t.kind, t.text, t.hide | hide, col) for t in out]


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
        elif not IDENT_RE.fullmatch(param):
            raise PreprocessError(f"expected parameter name, got '{param}'", loc)
        if param in params:
            raise PreprocessError(f"duplicate macro parameter '{param}'", loc)
        params.append(param)
    return tuple(params), variadic


def _check_body(
    body: tuple[Tok, ...], params: tuple[str, ...] | None, loc: SourceLocation | None
) -> None:
    if body and (is_punct(body[0], "##") or is_punct(body[-1], "##")):
        raise PreprocessError("'##' cannot appear at either end of a macro expansion", loc)
    if params is None:
        return
    for i, tok in enumerate(body):
        if is_punct(tok, "#"):
            j = next_non_ws(body, i + 1)
            if j >= len(body) or body[j].text not in params:
                raise PreprocessError("'#' is not followed by a macro parameter", loc)


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _stringify(toks: list[Tok]) -> str:
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
