"""Smoke test of scripts/bench_controller.py: it runs and its counts agree (no timing
is asserted; speed is the benchmark's own report)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_bench_controller_quick() -> None:
    result = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "bench_controller.py"), "--quick", "--json"],
        capture_output=True, text=True, check=False, cwd=ROOT)
    assert result.returncode == 0, result.stderr
    figures = json.loads(result.stdout)
    planned, streamed = figures["plan"], figures["stream"]
    assert planned["devices"] == 8 * (16 + 32) + 32 * 64
    assert planned["entries"] == streamed["entities"]
    assert streamed["devices"] == planned["devices"]
    assert planned["roles"]["t0"]["per_device_min"] == 1 + 3 * (64 + 16)
    assert figures["small"]["entities"] == 170
    assert planned["peak_traced_bytes"] > 0 and figures["peak_rss_bytes"] > 0


def test_bench_controller_apply_on_processes() -> None:
    result = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "bench_controller.py"), "--quick",
         "--no-stream", "--apply", "--json"],
        capture_output=True, text=True, check=False, cwd=ROOT, timeout=300)
    assert result.returncode == 0, result.stderr
    applied = json.loads(result.stdout)["apply"]
    assert (applied["first"]["pushed"], applied["first"]["written"]) == (12, 170)
    assert (applied["unchanged"]["pushed"], applied["unchanged"]["written"]) == (0, 0)
    # nic1 holds 30 entries of the plan (mrc-ctl plan --device nic1)
    assert (applied["one_nic_lost"]["pushed"], applied["one_nic_lost"]["written"]) == (1, 30)
