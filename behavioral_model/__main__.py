"""``python -m behavioral_model ...`` and the ``mrc-bm`` console script."""

from __future__ import annotations

import sys

from behavioral_model.cli import main

__all__ = ["main"]

if __name__ == "__main__":
    sys.exit(main())
