"""``p4info PROG.p4 -o OUT``: write the program's P4Info (text, binary or JSON)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from behavioral_model.cli.common import (
    EXIT_FAILURE,
    EXIT_OK,
    EXIT_USAGE,
    CliError,
    Subcommand,
    add_program_arguments,
    load_checked,
)

__all__ = ["SUBCOMMAND", "FORMATS", "format_for_path"]

FORMATS = ("text", "binary", "json")
_SUFFIX_FORMATS = {".json": "json", ".bin": "binary", ".pb": "binary", ".binpb": "binary"}


def format_for_path(path: str) -> str:
    """The format implied by an output file name: ``.json`` -> json, ``.bin``/``.pb``/
    ``.binpb`` -> binary, anything else (``.txt``, ``.txtpb``, ``-``) -> text."""
    return _SUFFIX_FORMATS.get(Path(path).suffix.lower(), "text")


def _configure(parser: argparse.ArgumentParser) -> None:
    add_program_arguments(parser)
    parser.add_argument(
        "-o", "--output", required=True, metavar="OUT",
        help="output file ('-' for standard output), e.g. prog.p4info.txtpb",
    )
    parser.add_argument(
        "--format", choices=FORMATS, default=None,
        help="protobuf text format, binary wire format or JSON (default: from the "
        "output file's suffix, else text)",
    )


def _run(args: argparse.Namespace) -> int:
    try:
        from behavioral_model.frontend import p4info as p4info_module
    except ImportError:
        raise CliError(
            "P4Info generation is not available: behavioral_model.frontend.p4info is "
            "missing from this installation", EXIT_FAILURE,
        ) from None
    fmt = args.format or format_for_path(args.output)
    checked = load_checked(args)
    from behavioral_model.frontend.errors import P4Error

    try:
        info = p4info_module.generate_p4info(checked)
    except P4Error as error:
        raise CliError(str(error), EXIT_FAILURE) from None
    if fmt == "text":
        data = p4info_module.p4info_text(info).encode()
    elif fmt == "json":
        from google.protobuf import json_format

        data = (json_format.MessageToJson(info) + "\n").encode()
    else:
        data = info.SerializeToString()
    if args.output == "-":
        sys.stdout.flush()
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
        return EXIT_OK
    try:
        Path(args.output).write_bytes(data)
    except OSError as error:
        raise CliError(f"{args.output}: cannot write: {error.strerror or error}",
                       EXIT_USAGE) from None
    print(f"{args.output}: wrote P4Info ({fmt}) for {args.program}", file=sys.stderr)
    return EXIT_OK


SUBCOMMAND = Subcommand(
    name="p4info",
    help="write a program's P4Info",
    description="Check a P4_16 program and write its P4Info (the control-plane "
    "description P4Runtime clients use) as protobuf text, binary or JSON.",
    configure=_configure,
    run=_run,
)
