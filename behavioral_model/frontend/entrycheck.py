"""Rules on a table's entry list as p4c applies them: entry priorities (spec 14.2.1.4,
p4c's front end) and duplicate entries (p4c's mid end)."""

from __future__ import annotations

from typing import Any

from . import ast
from .consteval import NotConstant, evaluate
from .errors import P4TypeError

#: Size of p4c's priority counter (a C size_t): priorities are computed modulo 2**64.
_PRIORITY_LIMIT = 1 << 64
#: Match kinds whose entries carry no priority (spec 14.2.1.4).
_UNPRIORITISED = frozenset({"exact", "lpm"})
_COVERING_KINDS = frozenset({"ternary", "optional"})


def check_priorities(table: ast.TableDecl, priorities: list[int | None]) -> None:
    """Spec 14.2.1.4: the priorities of `table`'s entries, given as `priority = N` or
    implied. `priorities` holds each entry's explicit value (None where it has none)."""
    explicit = next((e for e, p in zip(table.entries, priorities, strict=True)
                     if p is not None), None)
    if table.entries_const:
        if explicit is not None:
            raise P4TypeError(f"table {table.name}: a table with const entries cannot give "
                              "them priorities", explicit.loc)
        return
    if not table.keys or all(k.match_kind in _UNPRIORITISED for k in table.keys):
        if explicit is not None and table.keys:
            raise P4TypeError(f"table {table.name}: its key has only exact and lpm fields, "
                              "whose entries take no priority, but some entry gives one",
                              explicit.loc)
        return
    largest_wins = _property(table, "largest_priority_wins", True)
    delta = _property(table, "priority_delta", 1)
    if isinstance(delta, bool) or not isinstance(delta, int) or delta < 0:
        raise P4TypeError(f"table {table.name}: priority_delta must be a non-negative "
                          "integer", table.property("priority_delta").value.loc)
    step = -delta if largest_wins and explicit is not None else delta
    if explicit is not None and priorities[0] is None:
        raise P4TypeError(f"table {table.name}: the first entry must give a priority when "
                          "another entry gives one", table.entries[0].loc)
    current = 1
    for given in priorities if explicit is not None else table.entries:
        if isinstance(given, int):
            current = given
        following = current + step
        if not 0 <= following < _PRIORITY_LIMIT:
            # Each entry without a priority takes the previous one's plus or minus the
            # delta; p4c refuses a list where that leaves the unsigned range.
            raise P4TypeError(f"table {table.name}: the entry priorities overflow (each "
                              f"entry without one takes the previous {'-' if step < 0 else '+'}"
                              f" priority_delta {delta})", table.loc)
        current = following


def duplicate_entry(table: ast.TableDecl) -> P4TypeError | None:
    """p4c's mid end: an entry whose keys equal an earlier entry's (ternary and optional
    fields compared as value and mask) is an error; None when there is none."""
    covering = [k.match_kind in _COVERING_KINDS for k in table.keys]
    seen: list[list[Any]] = []
    for entry in table.entries:
        elems = entry.keyset.elems if isinstance(entry.keyset, ast.ListExpr) and \
            len(table.keys) != 1 else [entry.keyset]
        try:
            keys = [_key_value(e) for e in elems]
        except NotConstant:
            continue
        if len(keys) != len(covering):
            continue
        if keys in seen:
            return P4TypeError(f"table {table.name}: duplicate entry keys (the same as entry "
                               f"{seen.index(keys) + 1})", entry.keyset.loc)
        seen.append(keys)
    return None


def _key_value(expr: ast.Expression) -> Any:
    """A key element's value for comparing entries: a constant, (value, mask), range
    bounds, or None for `_`/`default`."""
    if isinstance(expr, ast.DontCareExpr | ast.DefaultExpr):
        return None
    if isinstance(expr, ast.MaskExpr):
        value, mask = evaluate(expr.value), evaluate(expr.mask)
        return ("mask", value & mask, mask)
    if isinstance(expr, ast.RangeExpr):
        return ("range", evaluate(expr.low), evaluate(expr.high))
    value = evaluate(expr)
    return ("value", value if isinstance(value, int | bool | str) else repr(value))


def _property(table: ast.TableDecl, name: str, default: Any) -> Any:
    prop = table.property(name)
    if prop is None:
        return default
    try:
        return evaluate(prop.value)
    except NotConstant:
        raise P4TypeError(f"table {table.name}: {name} must be a compile-time constant",
                          prop.value.loc) from None
