"""``python -m controller`` and the ``mrc-ctl`` console script."""

from __future__ import annotations

import sys

from controller.cli.main import main

if __name__ == "__main__":
    sys.exit(main())
