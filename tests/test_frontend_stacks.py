"""A header stack built from a list (spec 8.18; p4c's stack-init.p4,
header-stack-cast-init.p4): `H[2] s = {h, {1}}`, `(H[2]){...}`, one value per element.
The verdicts below are p4test 1.2.5's; the STF program's expected packets
(tests/p4/stack_init.stf) are worked out by hand."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from behavioral_model.frontend.errors import P4Error
from behavioral_model.frontend.preprocess import preprocess_text
from behavioral_model.program import check_source, load_program
from behavioral_model.stf.runner import run_stf_file

P4_DIR = Path(__file__).parent / "p4"

PROG = """
#include <core.p4>
header h_t { bit<8> x; }
control c(inout h_t h) {
    apply { BODY }
}
control C(inout h_t h);
package top(C _c);
top(c()) main;
"""


def _check(body: str) -> None:
    check_source(preprocess_text(PROG.replace("BODY", body), "t.p4"))


def test_stack_from_a_list_runs_in_the_pipeline() -> None:
    program = load_program(P4_DIR / "stack_init.p4")
    result = run_stf_file(program, P4_DIR / "stack_init.stf")
    assert result.passed, "\n" + result.report()


@pytest.mark.parametrize("body", [
    "h_t[2] s = { h, h };",
    "h_t[2] s = (h_t[2]){ {1}, {#} };",
    "h_t[2] s; s = { h, {#} };",
])
def test_accepted(body: str) -> None:
    _check(body)


@pytest.mark.parametrize(("body", "message"), [
    ("h_t[2] s = { h };", "initializer has 1 elements, h_t[2] has 2"),
    ("h_t[2] s = { {1}, {2}, {3} };", "initializer has 3 elements, h_t[2] has 2"),
    ("h_t[2] s = { h, 1 };", "type mismatch: expected h_t, got int"),
])
def test_rejected(body: str, message: str) -> None:
    with pytest.raises(P4Error, match=re.escape(message)):
        _check(body)
