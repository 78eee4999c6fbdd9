"""``mrc-ctl`` (``python -m controller``): subcommands and exit codes.

0: done. 1: a device could not be reached or a write failed. 2: bad input: a topology
file that cannot be planned, an unknown QP or device, a program that cannot be built,
a bad option.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from controller.device import PipelineError
from controller.topology import TopologyError

from . import apply_cmd, paths_cmd, plan_cmd, status_cmd, watch_cmd
from .errors import EXIT_BAD_INPUT, EXIT_OK, BadInput


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="mrc-ctl", description="The MRC fabric controller: topology file -> uSID plan "
                                    "-> P4Runtime tables.",
        epilog="Exit codes: 0 ok, 1 a device or write failed, 2 bad input.")
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    plan_cmd.add_parser(subparsers)
    paths_cmd.add_parser(subparsers)
    apply_cmd.add_parser(subparsers)
    watch_cmd.add_parser(subparsers)
    status_cmd.add_parser(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.run(args)
    except (TopologyError, BadInput, PipelineError) as err:
        print(err, file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        return EXIT_OK
    except BrokenPipeError:
        # `mrc-ctl plan --entries ... | head`: the reader is gone, which is not a failure.
        sys.stderr.close()
        return EXIT_OK
