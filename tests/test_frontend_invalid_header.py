"""`{#}`, the invalid header or header union value (P4_16 spec 8.17), which p4c accepts
(p4c's invalid-header.p4, invalid-union.p4, invalid_header_default_action_arg.p4,
issue3779.p4, issue4625_remove_compile_time_bool_methodcall_of_mcs.p4, issue5653.p4).
Its context (an assignment, a cast, the other side of `==`) gives it its header type.
Every program below gets p4test 1.2.5's verdict; the STF file's expected packets
(tests/p4/invalid_header.*) come from the spec: an invalid header is not emitted, and
two invalid headers are equal."""

from __future__ import annotations

from pathlib import Path

import pytest

from behavioral_model.frontend.errors import P4TypeError
from behavioral_model.frontend.preprocess import preprocess_text
from behavioral_model.program import check_source, load_program
from behavioral_model.stf.runner import run_stf_file

P4_DIR = Path(__file__).parent / "p4"

PROG = """
#include <core.p4>
header h_t { bit<8> f; }
header_union u_t { h_t a; }
struct s_t { bit<8> f; }
control c(inout h_t h, inout u_t u, inout bit<8> x);
package top(c _c);
control C(inout h_t h, inout u_t u, inout bit<8> x) {
    apply { BODY }
}
top(C()) main;
"""


def _check(body: str) -> None:
    check_source(preprocess_text(PROG.replace("BODY", body), "t.p4"))


def test_invalid_header_runs_in_the_pipeline() -> None:
    program = load_program(P4_DIR / "invalid_header.p4")
    result = run_stf_file(program, P4_DIR / "invalid_header.stf")
    assert result.passed, "\n" + result.report()


@pytest.mark.parametrize("body", [
    "h = {#};",
    "u = {#};",
    "h = (h_t){#};",
    "if (h == {#}) { x = 1; }",
    "if ({#} != u) { x = 1; }",
    "x = ((h_t){#}).isValid() ? 8w1 : 8w0;",
    "h_t v = {#}; h = v;",
])
def test_accepted(body: str) -> None:
    _check(body)


@pytest.mark.parametrize(("body", "message"), [
    ("x = {#};", "{#} is the invalid header or header union, not a value of type bit<8>"),
    ("s_t s = {#};", "not a value of type s_t"),
    ("x = (bit<8>){#};", "not a value of type bit<8>"),
    ("if ({#} == {#}) { x = 1; }", "cannot compare two key-value initializers"),
    ("if ({#}.isValid()) { x = 1; }", "{#} has no method 'isValid'"),
])
def test_rejected(body: str, message: str) -> None:
    with pytest.raises(P4TypeError, match=message.replace("{", r"\{").replace("(", r"\(")):
        _check(body)
