"""Where the real P4 toolchain is: p4c (``p4c-bm2-ss``, ``p4c-bm2-pna``, ``p4c-dpdk``,
``p4test``) and BMv2 (``simple_switch_grpc``, ``simple_switch``, ``pna_nic``).

One search order for every caller (the tests, ``mrc-ctl``, the process fabric and the
scripts): ``PATH``, then ``$P4TOOLS`` (a bin folder, or a prefix holding ``bin/``), then
``/opt/p4tools/bin``, where ``../shared/p4tools/install.sh`` puts a prebuilt toolchain.
``P4TOOLS=none`` limits the search to PATH.

A prebuilt p4c looks for its ``p4include`` under the prefix it was built for, not under
the folder it was unpacked into, so where ``BIN/../share/p4c/p4include`` exists it is
named in ``P4C_16_INCLUDE_PATH`` (p4c reads that variable before its built-in path).
Tofino's ``tna.p4`` is found in ``BIN/../share/p4c/tofino`` when the toolchain ships it.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from pathlib import Path

__all__ = ["DEFAULT_PREFIX_BIN", "Toolchain", "find", "use"]

DEFAULT_PREFIX_BIN = Path("/opt/p4tools/bin")
INCLUDE_VARIABLE = "P4C_16_INCLUDE_PATH"


@dataclass(frozen=True)
class Toolchain:
    """The folder the tools were found in (``bin``) and what they need around them."""

    bin: Path

    def tool(self, name: str) -> Path | None:
        """``bin/name`` if it is installed there."""
        path = self.bin / name
        return path if path.is_file() and os.access(path, os.X_OK) else None

    @property
    def p4include(self) -> Path | None:
        """p4c's own include folder beside a relocated toolchain (core.p4, v1model.p4)."""
        folder = self.bin.parent / "share" / "p4c" / "p4include"
        return folder if (folder / "core.p4").is_file() else None

    @property
    def tna_include(self) -> Path | None:
        """A folder holding Intel's ``tna.p4``, where the toolchain ships one."""
        folder = self.bin.parent / "share" / "p4c" / "tofino"
        return folder if (folder / "tna.p4").is_file() else None

    def environment(self, base: dict[str, str] | None = None) -> dict[str, str]:
        """``base`` (default: this process's environment) with ``bin`` first on PATH and
        p4c's include folder named, so the tools run as if installed normally."""
        env = dict(os.environ if base is None else base)
        path = env.get("PATH", "")
        if str(self.bin) not in path.split(os.pathsep):
            env["PATH"] = os.pathsep.join(p for p in (str(self.bin), path) if p)
        if self.p4include is not None and not env.get(INCLUDE_VARIABLE):
            env[INCLUDE_VARIABLE] = str(self.p4include)
        return env


def _candidates() -> list[Path]:
    found = shutil.which("p4c-bm2-ss") or shutil.which("simple_switch_grpc")
    folders = [Path(found).resolve().parent] if found else []
    tools = os.environ.get("P4TOOLS")
    if tools == "none":  # PATH alone: for tests that fake or hide the tools
        return folders
    if tools:
        folders += [Path(tools), Path(tools) / "bin"]
    folders.append(DEFAULT_PREFIX_BIN)
    return folders


def find() -> Toolchain | None:
    """The first folder of the search order with p4c or BMv2 in it, or None."""
    for folder in _candidates():
        chain = Toolchain(folder)
        if chain.tool("p4c-bm2-ss") or chain.tool("simple_switch_grpc") \
                or chain.tool("p4test"):
            return chain
    return None


def use() -> Toolchain | None:
    """Put the toolchain (if any) on this process's PATH, with p4c's include folder, so
    that ``shutil.which`` and child processes find it; returns what was found."""
    chain = find()
    if chain is not None:
        os.environ.update(chain.environment())
    return chain
