"""Command-line interface of the bm target: ``python -m behavioral_model`` / ``mrc-bm``.

Each subcommand lives in its own module and declares one :class:`Subcommand`;
``SUBCOMMANDS`` lists them in ``--help`` order. A new subcommand (e.g. ``switch``)
is a new module plus one line in ``SUBCOMMANDS``.

Exit codes: 0 success, 1 failure (P4 errors, failing tests, internal errors),
2 usage errors and bad input (unknown options, missing files, unreadable STF).
"""

from __future__ import annotations

import argparse
import sys
import traceback
from collections.abc import Sequence
from pathlib import Path

from behavioral_model.cli import check, p4info, runtime_cli, stf, switch
from behavioral_model.cli.common import EXIT_FAILURE, CliError, Subcommand
from behavioral_model.frontend.errors import P4Error

__all__ = ["SUBCOMMANDS", "build_parser", "main"]

SUBCOMMANDS: list[Subcommand] = [check.SUBCOMMAND, p4info.SUBCOMMAND, stf.SUBCOMMAND,
                                 switch.SUBCOMMAND, runtime_cli.SUBCOMMAND]


def _prog_name() -> str:
    name = Path(sys.argv[0]).name if sys.argv and sys.argv[0] else "mrc-bm"
    return "python -m behavioral_model" if name in ("__main__.py", "-c", "") else name


def build_parser(prog: str | None = None) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=prog or _prog_name(),
        description="bm, the mrc-p4 pure-Python P4_16 target (v1model, like BMv2 "
        "simple_switch): check programs, write P4Info, run STF tests, run a switch with "
        "P4Runtime and packet ports.",
        epilog="Exit codes: 0 ok, 1 failure (P4 errors, failing tests), "
        "2 usage errors or bad input.",
    )
    parser.add_argument(
        "--traceback", action="store_true",
        help="show the Python traceback of internal errors (for bug reports)",
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for sub in SUBCOMMANDS:
        sub_parser = subparsers.add_parser(
            sub.name, help=sub.help, description=sub.description or sub.help
        )
        sub.configure(sub_parser)
        sub_parser.set_defaults(_run=sub.run)
    return parser


def main(argv: Sequence[str] | None = None, prog: str | None = None) -> int:
    """Entry point of ``mrc-bm`` and ``python -m behavioral_model``; returns the exit
    code (argparse usage errors raise SystemExit(2) as usual)."""
    parser = build_parser(prog)
    args = parser.parse_args(list(argv) if argv is not None else None)
    try:
        return int(args._run(args))
    except CliError as error:
        print(error.message, file=sys.stderr)
        return error.exit_code
    except P4Error as error:  # the program, found wrong where it is loaded, not checked
        print(error, file=sys.stderr)
        return EXIT_FAILURE
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except Exception as error:  # a bug of ours: one line unless asked for details
        if args.traceback:
            traceback.print_exc()
        else:
            print(f"internal error: {type(error).__name__}: {error} "
                  "(run with --traceback for details)", file=sys.stderr)
        return EXIT_FAILURE


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
