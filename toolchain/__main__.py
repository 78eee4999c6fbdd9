"""``python -m toolchain``: where the real P4 toolchain is, for people and shell scripts.

    python -m toolchain          # where it is, and which tools it has
    eval "$(python -m toolchain env)"   # PATH and P4C_16_INCLUDE_PATH for a shell
"""

from __future__ import annotations

import argparse
import shlex
import sys

from toolchain import Toolchain, find

TOOLS = ("p4c-bm2-ss", "p4c-bm2-pna", "p4c-dpdk", "p4test", "simple_switch_grpc",
         "simple_switch", "pna_nic", "simple_switch_CLI")


def _report(chain: Toolchain) -> None:
    print(f"toolchain: {chain.bin}")
    for name in TOOLS:
        print(f"  {name}: {'yes' if chain.tool(name) else 'no'}")
    print(f"  p4c include: {chain.p4include or 'built in'}")
    print(f"  Tofino tna.p4: {chain.tna_include or 'no'}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m toolchain",
        description="Find the real P4 toolchain (p4c, BMv2): PATH, then $P4TOOLS, then "
                    "/opt/p4tools/bin (../shared/p4tools/install.sh installs it there).",
        epilog="Exit status: 0 found, 1 not found.")
    parser.add_argument("what", nargs="?", choices=("show", "env"), default="show",
                        help="show: where it is and what it has (default); env: shell "
                             "exports of PATH, P4C_16_INCLUDE_PATH and TNA_P4INCLUDE")
    args = parser.parse_args(argv)
    chain = find()
    if chain is None:
        if args.what == "show":
            print("toolchain: not found (not on PATH, $P4TOOLS, or /opt/p4tools/bin)")
        return 1
    if args.what == "env":
        env = chain.environment()
        print(f"export PATH={shlex.quote(env['PATH'])}")
        if "P4C_16_INCLUDE_PATH" in env:
            print(f"export P4C_16_INCLUDE_PATH={shlex.quote(env['P4C_16_INCLUDE_PATH'])}")
        if chain.tna_include is not None:
            print(f"export TNA_P4INCLUDE=${{TNA_P4INCLUDE:-{shlex.quote(str(chain.tna_include))}}}")
        return 0
    _report(chain)
    return 0


if __name__ == "__main__":
    sys.exit(main())
