"""Resolve the names an STF file writes (tables, key fields, actions, parameters,
counters, meters, registers) against a loaded program, the way p4c's BMv2 STF runner
does, but with dotted-suffix matching and readable errors.

The rules for writing names are those of the P4Runtime client and the ``cli`` command
(``p4rt_client.names``): full names or unique dotted suffixes, and p4c's JSON forms
(``hdr.h.$valid$``, ``hdr.h`` for a validity key, ``stack$0.f``). Key field names follow
P4Info (``hdr.h.isValid()``, ``hdr.eth.dst_addr``). Every failure raises
``UnknownNameError`` whose message says what was looked for and what exists; the
runner prefixes the STF ``file:line``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeVar

from behavioral_model.frontend.errors import P4Error
from behavioral_model.runtime.externs import CounterArray, MeterArray
from behavioral_model.runtime.state import DeviceState, DirectResource
from behavioral_model.runtime.tables import Table
from p4rt_client import names
from p4rt_client.names import resolve_name

if TYPE_CHECKING:
    from behavioral_model.frontend.checker import CheckedProgram

__all__ = [
    "ActionParam",
    "resolve_table",
    "resolve_key_field",
    "resolve_action",
    "resolve_extern",
    "resolve_counter",
    "resolve_meter",
    "action_parameters",
]

_T = TypeVar("_T")


@dataclass(frozen=True, slots=True)
class ActionParam:
    """One control-plane parameter of an action (P4Info ``Action.Param``)."""

    name: str
    width: int


def resolve_table(state: DeviceState, name: str) -> Table:
    """The table called ``name`` or with the unique dotted suffix ``name``."""
    return state.tables[resolve_name(name, state.tables, "table")]


def resolve_key_field(table: Table, name: str) -> int:
    """Position in ``table.keys`` of the key field an STF ``add`` names."""
    return names.resolve_key_field(name, [k.name for k in table.keys], table.name)


def resolve_action(table: Table, name: str) -> str:
    """Full name of the action ``name`` (or a unique dotted suffix) of ``table``."""
    return resolve_name(name, table.action_names, "action", f" in table '{table.name}'")


def resolve_extern(objects: dict[str, _T], name: str, what: str) -> tuple[str, _T]:
    """``(full name, object)`` for a counter/meter/register name or dotted suffix."""
    full = resolve_name(name, objects, what)
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
