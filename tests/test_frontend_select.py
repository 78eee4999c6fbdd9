"""A `select` key element that is a list, `{a, b}`, matched by a list of constants in
the labels (p4c's nested_select.p4). The verdicts below are p4test 1.2.5's; the STF
program's expected packets (tests/p4/select_tuple_key.stf) are worked out by hand."""

from __future__ import annotations

from pathlib import Path

import pytest

from behavioral_model.frontend.errors import P4Error
from behavioral_model.frontend.preprocess import preprocess_text
from behavioral_model.program import check_source, load_program
from behavioral_model.stf.runner import run_stf_file

P4_DIR = Path(__file__).parent / "p4"

PROG = """
#include <core.p4>
parser p(in bit<8> x) {
    state start {
        transition select(x, { x, x }) {
            (0, { 0, 0 }): accept;
            (1, LABEL): accept;
            default: reject;
        }
    }
}
parser s(in bit<8> x);
package top(s _s);
top(p()) main;
"""


def _check(label: str) -> None:
    check_source(preprocess_text(PROG.replace("LABEL", label), "t.p4"))


def test_tuple_key_runs_in_the_pipeline() -> None:
    program = load_program(P4_DIR / "select_tuple_key.p4")
    result = run_stf_file(program, P4_DIR / "select_tuple_key.stf")
    assert result.passed, "\n" + result.report()


@pytest.mark.parametrize("label", ["{ 1, 2 }", "default", "_", "{ 8w1, 2 }"])
def test_accepted(label: str) -> None:
    _check(label)


@pytest.mark.parametrize(("label", "message"), [
    ("{ 1, 2, 3 }", "initializer has 3 elements"),
    ("{ true, 1 }", "type mismatch"),
    ("7", "type mismatch"),
])
def test_rejected(label: str, message: str) -> None:
    with pytest.raises(P4Error, match=message):
        _check(label)
