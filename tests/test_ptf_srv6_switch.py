"""The PTF suite of the fabric switch (ptf_tests/srv6_switch/) through
``scripts/run_ptf.sh --all`` on bm, which runs it with ``--priority-queues 8``: every
test class must run and pass, none skipped. (The program sends control and trimmed
packets at priority 7, which needs 8 priority queues per port, as on simple_switch.)
"""

from __future__ import annotations

import ast
import re
import shutil
from pathlib import Path

import pytest
from ptf_suites import run_all

ROOT = Path(__file__).resolve().parent.parent
SUITE = ROOT / "ptf_tests" / "srv6_switch" / "srv6_switch.py"
MODULE = SUITE.stem

# One class per behaviour of p4src/srv6_switch.p4 (issue 4, item 3).
TEST_CLASSES = {
    "UsidShiftTest", "LastUsidToNicTest", "EndOfCarrierWithSrhTest",
    "EndOfCarrierWithoutSrhTest", "SrhEndFullSidTest", "BadSrhTest", "HopLimitTest",
    "UnknownSidTest", "Ipv6LpmTest", "EcnMarkAboveHighTest", "EcnBelowLowTest",
    "EcnLastHopTest", "EcnCeKeptTest", "EcnNotEctTest", "TrimFabricPortTest",
    "TrimLastHopTest", "NotTrimmedTest", "ControlNeverTrimmedTest", "PacketOutTest",
    "PacketInTest",
}

pytest.importorskip("ptf")
pytest.importorskip("pynng")
pytestmark = pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")


def _suite_classes() -> set[str]:
    """The test classes (those with a runTest) as written in the suite."""
    tests = set()
    for node in ast.parse(SUITE.read_text()).body:
        if isinstance(node, ast.ClassDef) and any(
                isinstance(item, ast.FunctionDef) and item.name == "runTest"
                for item in node.body):
            tests.add(node.name)
    return tests


def test_suite_lists_every_behaviour() -> None:
    assert _suite_classes() == TEST_CLASSES


def test_srv6_switch_ptf_suite_on_bm() -> None:
    # The suite runs in the session's shared `run_ptf.sh --all` (tests/ptf_suites.py):
    # p4src/srv6_switch.p4 -I p4src/include --priority-queues 8.
    run = run_all("bm")
    output = run.section("srv6_switch")
    results = {name.removeprefix(f"{MODULE}."): status
               for name, status in run.results("srv6_switch").items()}
    assert set(results) == TEST_CLASSES, output
    for name, status in results.items():
        assert status == "ok", f"{name}: {status!r}\n{output}"
    assert re.search(rf"^Ran {len(TEST_CLASSES)} tests in ", output, re.MULTILINE), output
    assert "skipped" not in output.lower(), output
    assert "unexpected success" not in output, output
    assert "all tests passed on bm" in output, output
    assert run.verdict("srv6_switch") == "passed", run.output[-3000:]
