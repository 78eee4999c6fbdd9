"""Helpers for tests that run the controller against real device processes: topologies
on free loopback ports and the controller's command line as a subprocess (free ports and
waiting: tests/loopback.py)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from fabric.procs.free_ports import move_to_free_ports

ROOT = Path(__file__).resolve().parents[2]
SMALL = ROOT / "controller" / "examples" / "small.yaml"


def small_on_free_ports(folder: Path) -> Path:
    """small.yaml with every gRPC address moved to a free port (other tests, or a
    fabric someone runs by hand, may hold the fixed ones)."""
    text = move_to_free_ports(SMALL.read_text())
    path = folder / "small.yaml"
    path.write_text(text)
    return path


def mrc_ctl(*args: str | Path, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """``python -m controller ARGS`` from the repository root."""
    return subprocess.run([sys.executable, "-m", "controller", *map(str, args)],
                          capture_output=True, text=True, timeout=timeout, cwd=ROOT,
                          check=False)
