"""Smoke test of scripts/bench_model.py: it runs and prints its figures (no timing checks)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "bench_model.py"
NUMBER = r"[0-9][0-9,]*(?:\.[0-9]+)?"


def test_bench_model_quick() -> None:
    proc = subprocess.run([sys.executable, str(SCRIPT), "--quick"], capture_output=True,
                          text=True, timeout=300, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    lines = proc.stdout.splitlines()

    def figure(prefix: str, pattern: str) -> None:
        hits = [line for line in lines if line.startswith(prefix)]
        assert hits, f"no line starting with {prefix!r} in:\n{proc.stdout}"
        assert any(re.search(pattern, line) for line in hits), hits

    figure("(a) ", rf"{NUMBER} pps, {NUMBER} us/packet")
    figure("(a')", rf"{NUMBER} pps, {NUMBER} us/packet")
    figure("(b) ", r"srv6_switch\.p4: (not present yet|compiled; front-end .* ms|does NOT compile)")
    figure("(c) ", rf"front-end \(preprocess\+parse\+check\) {NUMBER} ms")
    figure("(c) ", rf"compile \(pipeline codegen\) {NUMBER} ms")
    figure("(d) ", rf"mrc_nic\.p4 transmit .*: {NUMBER} pps, {NUMBER} us/packet")
    figure("(d')", rf"mrc_nic\.p4 receive .*: {NUMBER} pps, {NUMBER} us/packet")
    figure("(e) ", rf"srv6_switch\.p4 forwarding .*: {NUMBER} pps, {NUMBER} us/packet")


def test_bench_model_opcodes() -> None:
    proc = subprocess.run([sys.executable, str(SCRIPT), "--opcodes"], capture_output=True,
                          text=True, timeout=300, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    for prefix in ("(d) ", "(d')", "(e) "):
        hits = [line for line in proc.stdout.splitlines() if line.startswith(prefix)]
        assert hits and re.search(rf"{NUMBER} Python opcodes and {NUMBER} C calls per packet",
                                  hits[0]), proc.stdout
