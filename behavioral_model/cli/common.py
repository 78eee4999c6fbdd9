"""Pieces shared by the subcommands: the registry record, errors with exit codes,
and the ``PROG.p4 -I DIR -D NAME[=VALUE]`` arguments with program loading."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from behavioral_model.frontend.checker import CheckedProgram
    from behavioral_model.frontend.preprocess import PreprocessedSource
    from behavioral_model.program import P4Program

__all__ = [
    "EXIT_OK",
    "EXIT_FAILURE",
    "EXIT_USAGE",
    "CliError",
    "Subcommand",
    "add_program_arguments",
    "require_file",
    "load_source",
    "load_checked",
    "load_program",
]

EXIT_OK = 0
EXIT_FAILURE = 1
EXIT_USAGE = 2


class CliError(Exception):
    """Ends the command with one line on stderr and ``exit_code``."""

    def __init__(self, message: str, exit_code: int = EXIT_FAILURE) -> None:
        super().__init__(message)
        self.message = message
        self.exit_code = exit_code


@dataclass(frozen=True)
class Subcommand:
    """One subcommand: ``configure`` adds its arguments, ``run`` returns the exit code."""

    name: str
    help: str
    configure: Callable[[argparse.ArgumentParser], None]
    run: Callable[[argparse.Namespace], int]
    description: str = ""


def define_option(text: str) -> tuple[str, str | None]:
    """argparse type of ``-D NAME[=VALUE]``."""
    from behavioral_model.frontend.errors import P4Error
    from behavioral_model.frontend.preprocess import parse_define_option

    try:
        return parse_define_option(text)
    except P4Error as error:
        raise argparse.ArgumentTypeError(error.message) from None


def undefine_option(text: str) -> tuple[str, str | None]:
    """argparse type of ``-U NAME``: a define whose value ``None`` removes the macro."""
    from behavioral_model.frontend.errors import P4Error
    from behavioral_model.frontend.preprocess import parse_undefine_option

    try:
        return parse_undefine_option(text), None
    except P4Error as error:
        raise argparse.ArgumentTypeError(error.message) from None


def add_macro_arguments(parser: argparse.ArgumentParser) -> None:
    """``-D NAME[=VALUE]`` and ``-U NAME`` (repeatable, applied in order, as with cpp)."""
    parser.add_argument(
        "-D", dest="defines", metavar="NAME[=VALUE]", action="append", default=[],
        type=define_option, help="define a preprocessor macro, as with cpp; repeatable",
    )
    parser.add_argument(
        "-U", dest="defines", metavar="NAME", action="append", type=undefine_option,
        help="undefine a macro, as with cpp; repeatable. bm defines __TARGET_BMV2__ as "
        "p4c's BMv2 back ends do: -U __TARGET_BMV2__ reads a program as p4c-dpdk would",
    )


def add_program_arguments(parser: argparse.ArgumentParser) -> None:
    """``PROG.p4``, ``-I DIR``, ``-D NAME[=VALUE]`` and ``-U NAME`` (repeatable)."""
    parser.add_argument("program", metavar="PROG.p4", help="the P4_16 program")
    parser.add_argument(
        "-I", dest="include_dirs", metavar="DIR", action="append", default=[],
        help="add DIR to the #include search path (before the built-in core.p4 and "
        "v1model.p4); repeatable",
    )
    add_macro_arguments(parser)


def require_file(path: str, what: str) -> Path:
    """``path`` as a Path, or CliError (exit 2) if it is not a readable file."""
    file = Path(path)
    if not file.exists():
        raise CliError(f"{path}: no such {what}", EXIT_USAGE)
    if not file.is_file():
        raise CliError(f"{path}: not a file", EXIT_USAGE)
    return file


def _check_include_dirs(args: argparse.Namespace) -> None:
    for directory in args.include_dirs:
        if not Path(directory).is_dir():
            raise CliError(f"-I {directory}: no such directory", EXIT_USAGE)


def load_source(args: argparse.Namespace) -> PreprocessedSource:
    """Preprocess the program; P4 errors become CliError (exit 1). Preprocessor
    warnings are printed on stderr."""
    from behavioral_model.frontend.errors import P4Error
    from behavioral_model.frontend.preprocess import preprocess

    require_file(args.program, "file")
    _check_include_dirs(args)
    try:
        source = preprocess(args.program, args.include_dirs, dict(args.defines))
    except P4Error as error:
        raise CliError(str(error), EXIT_FAILURE) from None
    for warning in source.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    return source


def load_checked(args: argparse.Namespace) -> CheckedProgram:
    """Preprocess, parse and type-check the program (frontend only)."""
    from behavioral_model.frontend.errors import P4Error
    from behavioral_model.program import check_source

    source = load_source(args)
    try:
        return check_source(source)
    except P4Error as error:
        raise CliError(str(error), EXIT_FAILURE) from None
    except RecursionError:
        raise CliError(f"{args.program}: program is nested too deeply", EXIT_FAILURE) from None


def load_program(args: argparse.Namespace) -> P4Program:
    """The checked and compiled program, ready to make devices."""
    from behavioral_model.frontend.errors import P4Error
    from behavioral_model.program import build_program

    source = load_source(args)
    try:
        return build_program(source)
    except P4Error as error:
        raise CliError(str(error), EXIT_FAILURE) from None
    except RecursionError:
        raise CliError(f"{args.program}: program is nested too deeply", EXIT_FAILURE) from None
