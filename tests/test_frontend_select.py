"""A `select` key element that is a list, `{a, b}`, matched by a list in the labels
(p4c's nested_select.p4), and labels that are run-time values (select-struct.p4; no
calls, and bm keeps masks and range bounds constant). The verdicts below are p4test
1.2.5's unless marked; the STF programs' expected packets (tests/p4/select_tuple_key.stf,
tests/p4/select_runtime.stf) are worked out by hand."""

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
extern bit<8> f(in bit<8> v);
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


@pytest.mark.parametrize("name", ["select_tuple_key", "select_runtime"])
def test_runs_in_the_pipeline(name: str) -> None:
    program = load_program(P4_DIR / f"{name}.p4")
    result = run_stf_file(program, P4_DIR / f"{name}.stf")
    assert result.passed, "\n" + result.report()


@pytest.mark.parametrize("label", ["{ 1, 2 }", "default", "_", "{ 8w1, 2 }", "{ x, 1 }",
                                   "{ x + 1, x }"])
def test_accepted(label: str) -> None:
    _check(label)


@pytest.mark.parametrize(("label", "message"), [
    ("{ 1, 2, 3 }", "initializer has 3 elements"),
    ("{ true, 1 }", "type mismatch"),
    ("7", "type mismatch"),
    ("{ f(x), 1 }", "no function calls are allowed in a select label"),
])
def test_rejected(label: str, message: str) -> None:
    with pytest.raises(P4Error, match=message):
        _check(label)


@pytest.mark.parametrize("first", [
    "x .. 5",
    "x &&& 0xF",  # bm's own refusal: p4test 1.2.5 takes a run-time mask value
])
def test_runtime_range_or_mask_is_rejected(first: str) -> None:
    text = PROG.replace("(1, LABEL)", f"({first}, {{ 1, 2 }})")
    with pytest.raises(P4Error, match="select label must be a compile-time constant"):
        check_source(preprocess_text(text, "t.p4"))


def test_struct_key_is_rejected() -> None:
    """p4c's p4_16_errors/select-struct.p4: a select cannot match a struct value."""
    text = """
#include <core.p4>
struct H { bit<12> b; }
parser prs(packet_in p) {
    state start {
        H h1 = { 0 };
        transition select (h1) { { 1 }: accept; _ : reject; }
    }
}
parser P(packet_in p);
package top(P _p);
top(prs()) main;
"""
    with pytest.raises(P4Error, match="select key h1 has type H"):
        check_source(preprocess_text(text, "t.p4"))
