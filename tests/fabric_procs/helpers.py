"""Shared by the fabric_procs tests (next to the ``workdir`` fixture of conftest.py): the
smallest fabric they bring up, and the ``python -m fabric.procs`` command line."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.loopback import free_tcp_port

ROOT = Path(__file__).resolve().parents[2]


def tiny(workdir: Path, nic_address: str | None = None) -> Path:
    """``workdir/tiny.yaml``: three devices (T1, T0, NIC) on free loopback ports, or the
    NIC on ``nic_address``."""
    t1, t0, nic = (free_tcp_port() for _ in range(3))
    path = workdir / "tiny.yaml"
    path.write_text(f"""name: tiny
planes:
  - t1: [{{name: t1, address: "127.0.0.1:{t1}"}}]
    t0: [{{name: t0, address: "127.0.0.1:{t0}"}}]
nics:
  - {{name: nic0, address: "{nic_address or f'127.0.0.1:{nic}'}", ports: [1]}}
links:
  - [nic0:1, t0:1]
  - [t0:2, t1:1]
""")
    return path


def fabric_cli(*args: str | Path, timeout: float = 120,
               env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    # PATH alone (P4TOOLS=none): BMv2 only where the test's own PATH has it.
    env = env if env is not None else {**os.environ, "P4TOOLS": "none"}
    return subprocess.run([sys.executable, "-m", "fabric.procs", *map(str, args)],
                          capture_output=True, text=True, timeout=timeout, cwd=ROOT, env=env)
