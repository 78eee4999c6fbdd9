"""scripts/bench_patch_panel.py runs and accounts for every frame (its speed is not
checked here)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_quick_run_with_loss_accounts_for_every_frame() -> None:
    run = subprocess.run([sys.executable, str(ROOT / "scripts" / "bench_patch_panel.py"),
                          "--quick", "--loss", "0.1"],
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "frames/s" in run.stdout and "20,000 frames" in run.stdout
