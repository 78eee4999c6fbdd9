"""scripts/bench_fabric.py runs (quick mode) and prints its figures; no timing is
asserted (the machine decides those)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_bench_fabric_quick_prints_its_figures() -> None:
    result = subprocess.run([sys.executable, str(ROOT / "scripts" / "bench_fabric.py"),
                             "--quick", "--procs", "2"], capture_output=True, text=True,
                            timeout=900, check=False)
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "(1) small fabric (12 devices)" in out and "hops per CPU-second" in out
    assert "default processes (--procs 2, ran on 2)" in out
    assert "(2) CPU time per hop against devices" in out
    rows = [line.split() for line in out.splitlines() if line.strip()[:2] in ("12", "48")]
    assert [row[0] for row in rows] == ["12", "48"]
    assert all(row[7] == "yes" for row in rows), "a transfer was not intact"
    # the half-load run: at most as many senders, the uplinks at most half loaded, and
    # where every other NIC sending already is half load (12 devices), the same run
    assert all(int(row[9]) <= int(row[1]) and float(row[10]) <= 0.5 for row in rows)
    assert rows[0][9] == rows[0][1] and rows[0][11] == rows[0][6]
    assert int(rows[1][9]) < int(rows[1][1]) and float(rows[1][8]) > 0.5
    assert "the same at half load:" in out
    # the two flows of the 12-device run in every shape: at 12 devices that run itself
    assert rows[0][12] == rows[0][6] and float(rows[1][12]) > 0
    assert "the same with 2 flows:" in out
    # each size also ran on two processes: its wall time and speed-up, the same run
    assert all(row[-1].endswith("x") for row in rows)
    assert "a different run" not in out
    assert "(3) pipelines in-process" in out and "switch forwarding" in out
