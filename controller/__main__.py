"""``python -m controller`` and the ``mrc-ctl`` console script."""

from __future__ import annotations

import sys

import toolchain
from controller.cli.main import main as cli_main


def main() -> int:
    """``mrc-ctl``: with the real toolchain (p4c-bm2-ss for bmv2 devices) found on PATH,
    ``$P4TOOLS`` or /opt/p4tools/bin."""
    toolchain.use()
    return cli_main()


if __name__ == "__main__":
    sys.exit(main())
