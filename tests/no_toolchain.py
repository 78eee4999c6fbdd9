"""An environment in which the real P4 toolchain cannot be found, so that the paths a
user without p4c or BMv2 takes are checked on every machine, not only on one without them."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

BMV2_AND_P4C = ("simple_switch_grpc", "simple_switch", "p4c-bm2-ss", "p4c-bm2-pna", "p4c-dpdk",
                "p4test", "pna_nic")


def env_without_toolchain(keep: tuple[str, ...] = ("bash",)) -> dict[str, str]:
    """os.environ with every PATH folder that holds a p4c or BMv2 tool dropped and
    ``P4TOOLS=none`` (which also stops the /opt/p4tools fallback). Raises if a tool that
    the caller needs (``keep``) shares its folder with the toolchain, as a bare assertion
    could not say why."""
    folders = os.environ.get("PATH", "").split(os.pathsep)
    kept = [f for f in folders
            if f and not any((Path(f) / tool).exists() for tool in BMV2_AND_P4C)]
    path = os.pathsep.join(kept)
    for tool in keep:
        if shutil.which(tool, path=path) is None:
            raise RuntimeError(f"{tool} shares a PATH folder with p4c or BMv2: "
                               "cannot hide the toolchain from this test")
    return {**os.environ, "PATH": path, "P4TOOLS": "none"}
