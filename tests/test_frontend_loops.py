"""The loop forms of P4_16 1.2.5 as p4c's forloop*.p4 write them: `@unroll`/`@no_unroll`
before `for`, a for-in over a header stack, C-style loops with several declarations and
updates or none, and a struct field named like its type (forloop12.p4: it hides no type).
Each verdict below is p4test 1.2.5's; the STF program's expected packets are worked out
by hand in tests/p4/for_forms.stf."""

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
struct st_t { h_t h_t; h_t[2] s; }
control c(inout bit<8> d, inout h_t[2] s);
package top(c _c);
control C(inout bit<8> d, inout h_t[2] s) {
    apply { BODY }
}
top(C()) main;
"""


def _check(body: str) -> None:
    check_source(preprocess_text(PROG.replace("BODY", body), "t.p4"))


def test_loop_forms_run_in_the_pipeline() -> None:
    program = load_program(P4_DIR / "for_forms.p4")
    result = run_stf_file(program, P4_DIR / "for_forms.stf")
    assert result.passed, "\n" + result.report()


@pytest.mark.parametrize("body", [
    "for (h_t v in s) { d = d + v.x; }",
    "for (h_t v in s) { v = {#}; }",
    "@unroll for (bit<8> i = 0, bit<8> j = 1; i < 4; i = i + 1, j = j + 2) { d = d + j; }",
    "@unroll for (; d < 4;) { d = d + 1; }",
    "@no_unroll for (bit<8> i = 0; i < 4; i += 1) { d = d + 1; }",
    "@unroll for (bit<8> i in 1 .. 3) { d = d + i; }",
])
def test_accepted(body: str) -> None:
    _check(body)


@pytest.mark.parametrize(("body", "message"), [
    ("for (bit<8> v in s) { d = d + v; }",
     "the loop variable of type bit<8> cannot hold the elements of s (h_t)"),
    ("for (h_t v in s[0]) { d = d + v.x; }",
     "a for-in loop iterates over 'lo .. hi', a list {a, b, ...} or a header stack"),
    ("@unroll d = 1;", "unexpected identifier 'd'"),
])
def test_rejected(body: str, message: str) -> None:
    with pytest.raises(P4Error, match=re.escape(message)):
        _check(body)
