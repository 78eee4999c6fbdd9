"""Resolve the names an STF file writes (tables, key fields, actions, parameters,
counters, meters, registers) against a loaded program, the way p4c's BMv2 STF runner
does, but with dotted-suffix matching and readable errors.

Every failure raises :class:`ResolveError` whose message says what was looked for and
what exists; the runner prefixes the STF ``file:line``.

Key field names follow P4Info (``hdr.h.isValid()``, ``hdr.eth.dst_addr``); an STF file
may also write the BMv2 JSON forms p4c's tests use:

* ``hdr.h.$valid$`` or ``hdr.h.valid`` for ``hdr.h.isValid()``, and ``hdr.h`` alone
  when the table has a validity key for ``hdr.h`` but no field of that name;
* ``stack$0.f`` for ``stack[0].f``;
* any unique dotted suffix, down to the bare field name (``dst_addr``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeVar

from behavioral_model.frontend.errors import P4Error
from behavioral_model.runtime.externs import CounterArray, MeterArray
from behavioral_model.runtime.state import DeviceState, DirectResource
from behavioral_model.runtime.tables import Table

if TYPE_CHECKING:
    from behavioral_model.frontend.checker import CheckedProgram

__all__ = [
    "ResolveError",
    "ActionParam",
    "normalize_name",
    "resolve_table",
    "resolve_key_field",
    "resolve_action",
    "resolve_extern",
    "resolve_counter",
    "resolve_meter",
    "action_parameters",
]

_T = TypeVar("_T")

_ARRAY_INDEX = re.compile(r"\$(\d+)(?=\.|$)")
_VALID_SUFFIXES = (".$valid$", ".valid", ".isValid()", ".isValid")
_VALID = ".$valid$"


class ResolveError(Exception):
    """A name in an STF file that matches nothing, or several things."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


@dataclass(frozen=True, slots=True)
class ActionParam:
    """One control-plane parameter of an action (P4Info ``Action.Param``)."""

    name: str
    width: int


def normalize_name(name: str) -> str:
    """p4c's ``$N`` array notation to ``[N]``: ``extra$0.h`` -> ``extra[0].h``."""
    return _ARRAY_INDEX.sub(r"[\1]", name)


def _canonical_key(name: str) -> str:
    """One spelling per key field: validity keys end in ``.$valid$``."""
    name = normalize_name(name)
    for suffix in _VALID_SUFFIXES:
        if name.endswith(suffix):
            return name[: -len(suffix)] + _VALID
        if name == suffix[1:]:
            return _VALID[1:]
    return name


def _by_name(query: str, names: Iterable[str], what: str, owner: str = "") -> str:
    """The name equal to ``query``, else the only one ending in ``"." + query``."""
    all_names = sorted(names)
    if query in all_names:
        return query
    candidates = [n for n in all_names if n.endswith("." + query)]
    if len(candidates) == 1:
        return candidates[0]
    if candidates:
        raise ResolveError(f"ambiguous {what} name '{query}'{owner}: candidates are "
                           f"{', '.join(candidates)}")
    known = ", ".join(all_names) if all_names else "none"
    raise ResolveError(f"no {what} '{query}'{owner}; known {what}s: {known}")


def resolve_table(state: DeviceState, name: str) -> Table:
    """The table called ``name`` or with the unique dotted suffix ``name``."""
    return state.tables[_by_name(normalize_name(name), state.tables, "table")]


def resolve_key_field(table: Table, name: str) -> int:
    """Position in ``table.keys`` of the key field an STF ``add`` names."""
    names = [k.name for k in table.keys]
    if not names:
        raise ResolveError(f"table '{table.name}' has no key")
    canonical = [_canonical_key(n) for n in names]
    query = _canonical_key(name)
    stages: list[Callable[[str], bool]] = [
        lambda c: c == query,
        # `hdr.h` for the validity of hdr.h (p4c: key + '.$valid$').
        lambda c: c == query + _VALID,
        lambda c: c.endswith("." + query),
        lambda c: c.endswith("." + query + _VALID),
    ]
    if query == _VALID[1:]:
        stages.append(lambda c: c.endswith(_VALID))
    for stage in stages:
        found = [i for i, c in enumerate(canonical) if stage(c)]
        if len(found) == 1:
            return found[0]
        if len(found) > 1:
            candidates = ", ".join(names[i] for i in found)
            raise ResolveError(
                f"ambiguous key field '{name}' for table '{table.name}': "
                f"candidates are {candidates}"
            )
    raise ResolveError(
        f"table '{table.name}' has no key field '{name}'; its key fields are "
        f"{', '.join(names)}"
    )


def resolve_action(table: Table, name: str) -> str:
    """Full name of the action ``name`` (or a unique dotted suffix) of ``table``."""
    return _by_name(name, table.action_names, "action", f" in table '{table.name}'")


def resolve_extern(objects: dict[str, _T], name: str, what: str) -> tuple[str, _T]:
    """``(full name, object)`` for a counter/meter/register name or dotted suffix."""
    full = _by_name(normalize_name(name), objects, what)
    return full, objects[full]


def resolve_counter(state: DeviceState, name: str) -> tuple[str, CounterArray | DirectResource]:
    """An indexed counter or a direct counter (``DirectResource``), by name or suffix."""
    objects: dict[str, CounterArray | DirectResource] = {
        **state.counters, **state.direct_counters
    }
    return resolve_extern(objects, name, "counter")


def resolve_meter(state: DeviceState, name: str) -> tuple[str, MeterArray | DirectResource]:
    """An indexed meter or a direct meter (``DirectResource``), by name or suffix."""
    objects: dict[str, MeterArray | DirectResource] = {**state.meters, **state.direct_meters}
    return resolve_extern(objects, name, "meter")


# -- action parameters ---------------------------------------------------------------


def action_parameters(checked: CheckedProgram) -> dict[str, tuple[ActionParam, ...]]:
    """Control-plane parameters of every action a table of the program can run, by the
    action's full name (as in ``Table.action_names``).

    The one place that knows where these come from: P4Info
    (``behavioral_model.frontend.p4info``), completed from the checked AST for actions
    P4Info leaves out (those of tables that are never applied) or when P4Info cannot
    be generated.
    """
    params = _action_parameters_from_ast(checked)
    try:
        from behavioral_model.frontend import p4info
    except ImportError:  # pragma: no cover - the module is part of the package
        return params
    try:
        info = p4info.generate_p4info(checked)
    except P4Error:
        return params
    for action in info.actions:
        params[action.preamble.name] = tuple(
            ActionParam(p.name, p.bitwidth) for p in action.params
        )
    return params


def _action_parameters_from_ast(checked: CheckedProgram) -> dict[str, tuple[ActionParam, ...]]:
    from behavioral_model.frontend import ast
    from behavioral_model.frontend.naming import BlockInstance, block_instances, qualify
    from behavioral_model.pipeline.loader import key_width

    top = {id(d) for d in checked.program.decls}
    found: dict[str, tuple[ActionParam, ...]] = {}

    def visit(inst: BlockInstance) -> None:
        for local in getattr(inst.decl, "locals", []):
            if not isinstance(local, ast.TableDecl):
                continue
            for ref in local.actions:
                decl = ref.decl
                if decl is None:
                    continue
                name = qualify("" if id(decl) in top else inst.path, decl)
                found[name] = tuple(
                    ActionParam(p.display_name(), key_width(p.type_ref.resolved))
                    for p in decl.params
                    if not p.direction
                )
        for child in inst.children:
            visit(child)

    for inst in block_instances(checked.package_blocks):
        visit(inst)
    return found
