"""``check PROG.p4``: preprocess, parse and type-check a program."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from behavioral_model.cli.common import (
    EXIT_OK,
    Subcommand,
    add_program_arguments,
    load_checked,
    load_program,
)

if TYPE_CHECKING:
    from behavioral_model.frontend.checker import CheckedProgram

__all__ = ["SUBCOMMAND", "count_tables_and_actions"]


def count_tables_and_actions(checked: CheckedProgram) -> tuple[int, int]:
    """Tables of the instantiated blocks, and the distinct actions those tables can
    run (what P4Info lists)."""
    from behavioral_model.frontend import ast
    from behavioral_model.frontend.naming import BlockInstance, block_instances, qualify

    top = {id(d) for d in checked.program.decls}
    tables: set[str] = set()
    actions: set[str] = set()

    def visit(inst: BlockInstance) -> None:
        for local in getattr(inst.decl, "locals", []):
            if isinstance(local, ast.TableDecl):
                tables.add(qualify(inst.path, local))
                for ref in local.actions:
                    if ref.decl is not None:
                        prefix = "" if id(ref.decl) in top else inst.path
                        actions.add(qualify(prefix, ref.decl))
        for child in inst.children:
            visit(child)

    for inst in block_instances(checked.package_blocks):
        visit(inst)
    return len(tables), len(actions)


def _configure(parser: argparse.ArgumentParser) -> None:
    add_program_arguments(parser)
    parser.add_argument(
        "--compile", action="store_true",
        help="also build the executable v1model pipeline, as 'stf' does",
    )


def _run(args: argparse.Namespace) -> int:
    checked = load_program(args).checked if args.compile else load_checked(args)
    tables, actions = count_tables_and_actions(checked)
    print(f"{args.program}: ok ({tables} table{'s' * (tables != 1)}, "
          f"{actions} action{'s' * (actions != 1)})")
    return EXIT_OK


SUBCOMMAND = Subcommand(
    name="check",
    help="preprocess, parse and type-check a P4 program",
    description="Preprocess, parse and type-check a P4_16 program. Prints "
    "'PROG.p4: ok (N tables, M actions)', or the first error as file:line:col: message "
    "on stderr (exit 1).",
    configure=_configure,
    run=_run,
)
