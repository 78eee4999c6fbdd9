"""scripts/bench_fabric.py runs (quick mode) and prints its figures; no timing is
asserted (the machine decides those)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from fabric.sim.events import uses_c_queue

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


def _bench(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(ROOT / "scripts" / "bench_fabric.py"), *args],
                          capture_output=True, text=True, timeout=1800, check=False, env=env)


@pytest.mark.skipif(shutil.which("valgrind") is None or shutil.which("callgrind_control") is None,
                    reason="valgrind is not installed (apt-get install valgrind)")
@pytest.mark.skipif(not uses_c_queue(), reason="the C event queue (fabric/sim/_eventq.c) "
                                               "is not built or is switched off")
def test_bench_fabric_counts_instructions_per_hop() -> None:
    result = _bench("--only", "instructions")
    assert result.returncode == 0, result.stderr
    (line,) = [line for line in result.stdout.splitlines() if line.startswith("(4)")]
    match = re.search(r": ([\d,]+) per hop \(([\d,]+) in ([\d,]+) hops", line)
    assert match, line
    per_hop, total, hops = (int(group.replace(",", "")) for group in match.groups())
    # the spray scenario at 1 MiB makes thousands of hops, each tens of thousands of
    # instructions (Python's own dispatch is about 20 per bytecode instruction)
    assert hops > 1_000 and abs(total / hops - per_hop) <= 1
    assert 10_000 < per_hop < 5_000_000


def test_bench_fabric_says_when_valgrind_is_missing() -> None:
    result = _bench("--only", "instructions", env={**os.environ, "PATH": "/nonexistent"})
    assert result.returncode == 0, result.stderr
    assert "not counted: valgrind is not installed" in result.stdout
