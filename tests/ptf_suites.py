"""The PTF suites of the repository and one shared ``scripts/run_ptf.sh --all`` run.

The PTF tests of ``tests/`` (test_run_ptf_all.py, test_ptf_mrc_nic.py, ...) check what
one ``--all`` run found, so a pytest session starts each suite's target once. Each
test's outcome is read from the results file the run writes (``--results-dir``), not
from PTF's console output, where a message of another thread can split a verdict line.
"""

from __future__ import annotations

import ast
import json
import os
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RUN_PTF = ROOT / "scripts" / "run_ptf.sh"

# Suite name (as run_ptf.sh --all names it) -> its PTF test folder.
SUITE_DIRS = {
    "smoke": ROOT / "ptf_tests" / "smoke",
    "srv6_switch": ROOT / "ptf_tests" / "srv6_switch",
    "mrc_nic": ROOT / "ptf_tests" / "mrc_nic",
    # The PNA NIC (p4src/pna/mrc_nic.p4) through the same tests, on bm only.
    "mrc_nic_pna": ROOT / "ptf_tests" / "mrc_nic",
}
# Generous: the three suites take well under a minute each on bm.
ALL_TIMEOUT = 600


def env() -> dict[str, str]:
    """The environment for run_ptf.sh: this interpreter's bin first (ptf, python)."""
    out = dict(os.environ)
    out["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{out.get('PATH', '')}"
    return out


def test_classes(module: Path) -> set[str]:
    """``module.Class`` for every class of ``module`` with a runTest (what PTF runs)."""
    tests = set()
    for node in ast.parse(module.read_text()).body:
        if isinstance(node, ast.ClassDef) and any(
                isinstance(item, ast.FunctionDef) and item.name == "runTest"
                for item in node.body):
            tests.add(f"{module.stem}.{node.name}")
    return tests


def suite_classes(suite: str) -> set[str]:
    """Every test class of a suite's folder, as PTF names them in its output."""
    found: set[str] = set()
    for module in sorted(SUITE_DIRS[suite].glob("*.py")):
        found |= test_classes(module)
    return found


def read_outcomes(path: Path) -> dict[str, str]:
    """``module.Class`` -> its verdict as PTF prints it ("ok", "FAIL", "ERROR",
    "skipped 'REASON'", ...), from a ``run_ptf.sh --results-dir`` results file (none
    if the file is missing: the run did not get as far as PTF)."""
    if not path.exists():
        return {}
    verdicts = {}
    for line in path.read_text().splitlines():
        record = json.loads(line)
        outcome = record["outcome"]
        verdicts[record["test"]] = (f"skipped {record['detail']!r}"
                                    if outcome == "skipped" else outcome)
    return verdicts


@dataclass(frozen=True)
class AllRun:
    returncode: int
    output: str
    outcomes: dict[str, dict[str, str]]

    def section(self, suite: str) -> str:
        """What the run printed for one suite (between its header and the next)."""
        parts = re.split(r"^run_ptf\.sh --all: ---- suite (\w+) ----$", self.output,
                         flags=re.MULTILINE)
        sections = dict(zip(parts[1::2], parts[2::2], strict=True))
        return sections.get(suite, "")

    def results(self, suite: str) -> dict[str, str]:
        """``module.Class`` -> PTF's verdict ("ok", "FAIL", "skipped ...") for a suite."""
        return self.outcomes.get(suite, {})

    def verdict(self, suite: str) -> str | None:
        """The suite's summary line verdict ("passed", "FAILED (exit N)") or None."""
        found = re.search(rf"^run_ptf\.sh --all: {suite}: (.+?)\s*$", self.output,
                          re.MULTILINE)
        return found.group(1) if found else None


@cache
def run_all(target: str = "bm") -> AllRun:
    """``scripts/run_ptf.sh --all --target TARGET``, once per pytest session."""
    with tempfile.TemporaryDirectory(prefix="ptf_results_") as results:
        proc = subprocess.run(["bash", str(RUN_PTF), "--all", "--target", target,
                               "--results-dir", results], cwd=ROOT, env=env(),
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                              timeout=ALL_TIMEOUT)
        outcomes = {suite: read_outcomes(Path(results) / suite / "results.jsonl")
                    for suite in SUITE_DIRS}
    return AllRun(proc.returncode, proc.stdout, outcomes)
