"""``mrc-ctl`` (``python -m controller``): subcommands and exit codes.

0: done. 1: a device could not be reached or a write failed (and, for now, the
subcommands that need devices). 2: bad input: a topology file that cannot be planned,
an unknown QP or device, a bad option.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from controller.topology import TopologyError

from . import paths_cmd, plan_cmd
from .errors import EXIT_BAD_INPUT, EXIT_DEVICE_FAILURE, EXIT_OK, BadInput

# Subcommands that need the P4Runtime client (p4rt_client/) and the NIC program.
_DEVICE_COMMANDS = {
    "apply": "program every device of the fabric: pipelines, then the planned entries "
             "(only the difference), then read back",
    "watch": "live health of the fabric: EV events, probes, counters per plane, link and "
             "QP",
    "status": "one reading of every device: reachable, primary, entries as planned",
}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="mrc-ctl", description="The MRC fabric controller: topology file -> uSID plan "
                                    "-> P4Runtime tables.",
        epilog="Exit codes: 0 ok, 1 a device or write failed, 2 bad input.")
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    plan_cmd.add_parser(subparsers)
    paths_cmd.add_parser(subparsers)
    for name, summary in _DEVICE_COMMANDS.items():
        sub = subparsers.add_parser(name, help=f"{summary} (not implemented yet)",
                                    description=f"{summary[0].upper()}{summary[1:]}. Not "
                                                "implemented yet: exits 1.")
        sub.add_argument("topology", metavar="TOPO", help="topology file (YAML)")
        sub.set_defaults(run=_not_implemented)
    return parser


def _not_implemented(args: argparse.Namespace) -> int:
    print(f"mrc-ctl {args.command}: not implemented yet (it needs the P4Runtime client "
          "and the NIC program); 'mrc-ctl plan' and 'mrc-ctl paths' work without devices",
          file=sys.stderr)
    return EXIT_DEVICE_FAILURE


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.run(args)
    except (TopologyError, BadInput) as err:
        print(err, file=sys.stderr)
        return EXIT_BAD_INPUT
    except BrokenPipeError:
        # `mrc-ctl plan --entries ... | head`: the reader is gone, which is not a failure.
        sys.stderr.close()
        return EXIT_OK
