"""Each PTF test's outcome as a line of JSON in a file of its own.

PTF prints its verdicts ("smoke.PacketInTest ... ok") on standard error, where
anything else the process writes there (a warning, a thread's traceback) can land in
the middle of a verdict line. ``scripts/run_ptf.sh --results-dir DIR`` passes the test
parameter ``results_file``; :class:`base_test.P4RuntimeTest` then appends one object
per test to it, which callers read instead of PTF's console text:

    {"test": "smoke.PacketInTest", "outcome": "ok", "detail": ""}

``outcome`` is what unittest's verbose runner prints: ``ok``, ``FAIL``, ``ERROR``,
``skipped`` (``detail``: the reason), ``expected failure`` or ``unexpected success``;
``detail`` holds the traceback of a failure or an error.
"""

from __future__ import annotations

import json
import unittest
from pathlib import Path

__all__ = ["outcome_of", "record_outcome", "test_name"]


def test_name(test: unittest.TestCase) -> str:
    """``module.Class``, as PTF names a test on its command line and in its output."""
    return f"{type(test).__module__}.{type(test).__name__}"


def _is(case: unittest.TestCase, test: unittest.TestCase) -> bool:
    # A failing subTest is reported as a _SubTest that points to its test.
    return case is test or getattr(case, "test_case", None) is test


def outcome_of(test: unittest.TestCase, result: unittest.TestResult) -> tuple[str, str]:
    """``(outcome, detail)`` of ``test`` in ``result``, after the test has run."""
    for outcome, entries in (("ERROR", result.errors), ("FAIL", result.failures),
                             ("skipped", result.skipped),
                             ("expected failure", result.expectedFailures)):
        for case, detail in entries:
            if _is(case, test):
                return outcome, detail
    if any(_is(case, test) for case in result.unexpectedSuccesses):
        return "unexpected success", ""
    return "ok", ""


def record_outcome(path: str | Path, test: unittest.TestCase,
                   result: unittest.TestResult) -> None:
    """Append ``test``'s outcome in ``result`` to the JSON-lines file ``path``."""
    outcome, detail = outcome_of(test, result)
    line = json.dumps({"test": test_name(test), "outcome": outcome, "detail": detail})
    with open(path, "a", encoding="utf-8") as out:
        out.write(line + "\n")
