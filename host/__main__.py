"""``python -m host``: the ``mrc-host`` command."""

from .cli import main

raise SystemExit(main())
