"""Our STF suite: every ``tests/stf/NAME.stf`` runs against ``tests/stf/NAME.p4``.

To add a test, drop a ``NAME.p4`` + ``NAME.stf`` pair into ``tests/stf/`` (the P4 file
may ``#include`` files next to it). Expected packets are derived by hand from the P4
spec and v1model/BMv2 semantics, not by running our target. A test that fails
because of a known bug of the target goes into ``KNOWN_BUGS`` with the reason; it
is then a strict xfail, so fixing the bug turns it into a reminder to delete the line.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest

from behavioral_model.program import P4Program, load_program
from behavioral_model.stf.runner import run_stf_file

STF_DIR = Path(__file__).parent / "stf"
STF_FILES = sorted(STF_DIR.glob("*.stf"))

# test name -> why it fails today (a bug in the frontend or pipeline).
KNOWN_BUGS: dict[str, str] = {}


@cache
def _program(p4_file: Path) -> P4Program:
    return load_program(p4_file, include_dirs=[STF_DIR])


def _params() -> list[object]:
    params: list[object] = []
    for stf in STF_FILES:
        marks = []
        if stf.stem in KNOWN_BUGS:
            marks.append(pytest.mark.xfail(reason=KNOWN_BUGS[stf.stem], strict=True))
        params.append(pytest.param(stf, id=stf.stem, marks=marks))
    return params


def test_suite_is_not_empty() -> None:
    assert len(STF_FILES) >= 3
    assert set(KNOWN_BUGS) <= {stf.stem for stf in STF_FILES}


@pytest.mark.parametrize("stf", _params())
def test_stf(stf: Path) -> None:
    p4_file = stf.with_suffix(".p4")
    assert p4_file.is_file(), f"{stf.name} needs a program {p4_file.name} next to it"
    result = run_stf_file(_program(p4_file), stf)
    assert result.passed, "\n" + result.report()
