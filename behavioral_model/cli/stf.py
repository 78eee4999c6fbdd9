"""``stf PROG.p4 TEST.stf``: run an STF test (table entries, packets in, expected
packets out) against a program."""

from __future__ import annotations

import argparse

from behavioral_model.cli.common import (
    EXIT_FAILURE,
    EXIT_OK,
    EXIT_USAGE,
    CliError,
    Subcommand,
    add_program_arguments,
    load_program,
    require_file,
)

__all__ = ["SUBCOMMAND"]


def _configure(parser: argparse.ArgumentParser) -> None:
    add_program_arguments(parser)
    parser.add_argument("stf_file", metavar="TEST.stf", help="the STF test file")
    parser.add_argument(
        "-v", "--verbose", action="store_true",
        help="trace every command, packet in and packet out",
    )
    parser.add_argument(
        "--strict-ports", action="store_true",
        help="also fail on packets leaving ports that no packet/expect line names "
        "(p4c's BMv2 runner does not see those ports)",
    )


def _run(args: argparse.Namespace) -> int:
    from behavioral_model.stf.errors import STFError
    from behavioral_model.stf.parse import parse_stf_file
    from behavioral_model.stf.runner import run_stf

    require_file(args.program, "file")
    require_file(args.stf_file, "file")
    try:
        commands = parse_stf_file(args.stf_file)
    except STFError as error:
        raise CliError(str(error), EXIT_USAGE) from None
    program = load_program(args)
    result = run_stf(
        program, commands, args.stf_file, strict_ports=args.strict_ports,
        log=print if args.verbose else None,
    )
    for note in result.notes:
        print(f"note: {note}")
    if args.verbose and not result.passed:
        print("-- failures --")
    for failure in result.failures:
        print(failure)
    print(result.summary())
    return EXIT_OK if result.passed else EXIT_FAILURE


SUBCOMMAND = Subcommand(
    name="stf",
    help="run an STF test file against a program",
    description="Run an STF test (p4c's format: add/setdefault table entries, packet, "
    "expect, wait, check_counter and BMv2 CLI commands) on a fresh device. Prints "
    "the failures with hex diffs and a PASS/FAIL line; exit 0 when it passes, 1 when "
    "it fails, 2 for an unreadable STF file.",
    configure=_configure,
    run=_run,
)
