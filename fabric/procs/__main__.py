import sys

import toolchain

from .cli import main

toolchain.use()  # BMv2 and p4c from PATH, $P4TOOLS or /opt/p4tools/bin
sys.exit(main())
