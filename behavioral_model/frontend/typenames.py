"""Which identifiers are type names: the lexer's declaration and scope pass.

P4's grammar, like C's, needs to know whether a name denotes a type, and p4c's lexer
asks its symbol table.  ``TypeScanner`` approximates that table from the token list
alone: it finds the declared type names (header, header_union, struct, enum, extern
object, parser, control, package, typedef and type), the type parameters of generic
declarations (``<T, U>``, scoped to that declaration), and the variables and parameters
that shadow a type name until the end of their enclosing ``{...}`` (a struct or header
field does not: p4c never looks a field name up).
``classify_names`` then marks each name TYPE_IDENTIFIER or IDENTIFIER; a name right
after a member ``.`` is always IDENTIFIER (``hdr.x`` is a member name).
"""

from __future__ import annotations

from collections.abc import Callable

from lark import Token

from .rawlex import match_brackets

__all__ = ["TypeScanner", "classify_names"]


_TYPE_KEYWORD_ENDS = frozenset(
    {"BOOL", "BIT", "INT", "VARBIT", "STRING", "ERROR", "MATCH_KIND", "VOID"}
)
_NAME_TYPES = frozenset({"IDENTIFIER", "TYPE_IDENTIFIER"})
# Tokens after which a `.` is member access (otherwise it is the top-level `.name` prefix).
_EXPR_ENDS = frozenset(
    {"IDENTIFIER", "TYPE_IDENTIFIER", "_RPAREN", "_RBRACKET", "APPLY", "KEY", "ACTIONS",
     "STATE", "ENTRIES", "TYPE", "ERROR"}
)


class TypeScanner:
    """Finds declared type names, type-parameter scopes and shadowing declarations."""

    def __init__(self, toks: list[Token]) -> None:
        self.toks = toks
        self.n = len(toks)
        self.pairs = match_brackets(toks)
        self.declared: dict[str, int] = {}  # type name -> index from which it is a type
        self.tvar_scopes: dict[str, list[tuple[int, int]]] = {}  # type variable -> extents
        self.param_angles: set[int] = set()  # indices of `<` opening type parameters
        self.shadows: dict[str, list[tuple[int, int]]] = {}
        self.decl_ends: list[int] = []  # end index of each top-level declaration
        self.field_bodies: set[int] = set()  # `{` opening a struct, header or union body

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
            if kw in ("HEADER", "STRUCT", "HEADER_UNION"):
                self.field_bodies.update(k for k in range(j + 2, end + 1)
                                         if self.tt(k) == "LBRACE")
        elif kw == "ENUM":
            for k in range(j + 1, end + 1):
                if self.tt(k) == "LBRACE":
                    self.declare(k - 1)
                    break
        elif kw in ("TYPEDEF", "TYPE"):
            if self.tt(end) == "SEMI":
                name = end - 1
                while self.tt(name) == "_RBRACKET" and name in self.pairs:
                    name = self.pairs[name] - 1  # `typedef bit<8> T[2];` declares T
                self.declare(name)
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
        """Variables and parameters named like a type hide it in their scope."""
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
            if braces and braces[-1] in self.field_bodies:
                continue  # a field (`t1 t1;`) is no name in scope: it hides no type
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

    def is_type(self, name: str, i: int, top_level: bool = False) -> bool:
        """Is `name` at token i a type? A `top_level` name (`.X`) skips the type
        parameters and the shadowing names around it (p4c's issue1342.p4)."""
        scopes = self.tvar_scopes.get(name)
        if scopes is not None and not top_level:
            for lo, hi in scopes:
                if lo <= i <= hi:
                    return True
        at = self.declared.get(name)
        if at is None or at > i:
            return False
        if top_level:
            return True
        for lo, hi in self.shadows.get(name, ()):
            if lo <= i <= hi:
                return False
        return True


def classify_names(toks: list[Token], is_type: Callable[[str, int, bool], bool],
                   index_of: Callable[[int], int]) -> None:
    """Set IDENTIFIER / TYPE_IDENTIFIER; ``index_of`` maps list positions to scan indices."""
    prev2, prev = "", ""
    for i, t in enumerate(toks):
        tt = t.type
        if tt == "IDENTIFIER" or tt == "TYPE_IDENTIFIER":
            member = prev == "DOT" and prev2 in _EXPR_ENDS
            top_level = prev == "DOT" and not member
            t.type = "TYPE_IDENTIFIER" if not member and is_type(
                t.value, index_of(i), top_level) else "IDENTIFIER"
        prev2, prev = prev, t.type
