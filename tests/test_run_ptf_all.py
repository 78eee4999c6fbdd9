"""``scripts/run_ptf.sh --all``: every PTF suite with its own program and options, one
pass/fail line per suite, non-zero exit when a suite fails. The run itself is shared
with the per-suite tests (tests/ptf_suites.py runs it once per session)."""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest
from ptf_suites import ROOT, RUN_PTF, SUITE_DIRS, env, run_all, suite_classes

pytest.importorskip("ptf")
pytest.importorskip("pynng")
pytestmark = pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")


def test_all_runs_every_suite_on_bm() -> None:
    run = run_all("bm")
    for suite in SUITE_DIRS:
        results = run.results(suite)
        assert set(results) == suite_classes(suite), f"{suite}:\n{run.section(suite)}"
        # The PNA NIC skips what PNA cannot do, saying so (test_ptf_mrc_nic_pna.py
        # checks which tests and why).
        failed = {name: status for name, status in results.items() if status != "ok"
                  and not (suite == "mrc_nic_pna" and status.startswith("skipped 'PNA NIC: "))}
        assert not failed, f"{suite}: {failed}"
        assert run.verdict(suite) == "passed", run.output[-3000:]
    summary = re.findall(r"^run_ptf\.sh --all: (\w+): ", run.output, re.MULTILINE)
    assert summary == list(SUITE_DIRS), run.output[-3000:]
    assert run.returncode == 0, run.output[-3000:]
    assert run.output.rstrip().endswith(
        f"run_ptf.sh --all: all {len(SUITE_DIRS)} suites passed on bm"), run.output[-3000:]


def test_all_reports_failed_suites() -> None:
    """A PTF test spec that matches nothing makes every suite's run fail: each suite still
    runs (on its own target) and gets its FAILED line, and the exit status is non-zero."""
    proc = subprocess.run(["bash", str(RUN_PTF), "--all", "--target", "bm", "--",
                           "no_such_module.NoSuchTest"], cwd=ROOT, env=env(),
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                          timeout=300)
    output = proc.stdout
    assert proc.returncode != 0, output
    for suite in SUITE_DIRS:
        assert re.search(rf"^run_ptf\.sh --all: ---- suite {suite} ----$", output,
                         re.MULTILINE), output
        assert re.search(rf"^run_ptf\.sh --all: {suite}: FAILED \(exit [1-9][0-9]*\)$",
                         output, re.MULTILINE), output
    assert f"{len(SUITE_DIRS)} of {len(SUITE_DIRS)} suites FAILED on bm" in output, output


def test_all_help_and_usage_errors() -> None:
    proc = subprocess.run(["bash", str(RUN_PTF), "--help"], capture_output=True, text=True,
                          timeout=30)
    assert proc.returncode == 0
    for word in ("--all", "ptf_tests/mrc_nic", "p4src/mrc_nic.p4", "p4src/srv6_switch.p4",
                 "tests/p4/ptf_smoke.p4", "--priority-queues 8"):
        assert word in proc.stdout, word
    # The suites' own options cannot be combined with --all.
    for extra in (["--p4", "tests/p4/ptf_smoke.p4"], ["--test-dir", "ptf_tests/smoke"],
                  ["--priority-queues", "8"], ["smoke.L2ForwardTest"]):
        bad = subprocess.run(["bash", str(RUN_PTF), "--all", *extra], cwd=ROOT,
                             capture_output=True, text=True, timeout=30)
        assert bad.returncode == 2, (extra, bad.stdout, bad.stderr)
        assert "--all runs each suite with its own" in bad.stderr, bad.stderr
