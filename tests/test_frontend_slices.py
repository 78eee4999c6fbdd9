"""Indexed slices `x[lo +: w]` (P4_16 spec 8.6), which p4c accepts (p4c's slice1.p4,
tuple5.p4, tuple5a.p4, forloop5a.p4): `w` bits of `x` from bit `lo` up. A known `lo` is
the plain slice `x[lo+w-1:lo]`; a run-time `lo` reads `(x >> lo)` masked to `w` bits.
The program below and its STF file (tests/p4/indexed_slice.*) are accepted by p4test
1.2.5; the expected packets come from that reading, not from running bm."""

from __future__ import annotations

from pathlib import Path

import pytest

from behavioral_model.frontend import ast
from behavioral_model.frontend.errors import P4TypeError
from behavioral_model.frontend.preprocess import preprocess_text
from behavioral_model.program import check_source, load_program, load_program_text
from behavioral_model.stf.runner import run_stf_file

P4_DIR = Path(__file__).parent / "p4"

PROG = """
#include <core.p4>
control c(inout bit<32> d, in bit<8> i, out bit<8> r);
package top(c _c);
control C(inout bit<32> d, in bit<8> i, out bit<8> r) {
    apply { BODY }
}
top(C()) main;
"""


def _check(body: str) -> None:
    check_source(preprocess_text(PROG.replace("BODY", body), "t.p4"))


def test_indexed_slice_runs_in_the_pipeline() -> None:
    program = load_program(P4_DIR / "indexed_slice.p4")
    result = run_stf_file(program, P4_DIR / "indexed_slice.stf")
    assert result.passed, "\n" + result.report()


@pytest.mark.parametrize("body", [
    "r = d[i +: 8];",
    "r = d[i & 0xf +: 8];",
    "r = (bit<8>)d[0 +: 4];",
    "r = d[24 +: 8];",
    "const int W = 8; r = d[i +: W];",
    "d[4 +: 8] = r;",
    "r = (bit<8>)d[i +: 40];",  # wider than d: p4c accepts it
    "r = d[(int<8>)i +: 8];",
])
def test_accepted(body: str) -> None:
    _check(body)


@pytest.mark.parametrize(("body", "message"), [
    ("r = d[25 +: 8];", "slice [32:25] out of range for bit<32>"),
    ("r = d[i +: 0];", "slice width must be positive, got 0"),
    ("r = d[i +: i];", "slice width must be a compile-time constant"),
    # p4test 1.2.5 lets a bool through here; bm, reading spec 8.6, wants an integer index.
    ("r = d[true +: 8];", "slice index must be an integer, got bool"),
    ("r = d[i +: 4];", "type mismatch"),
])
def test_rejected(body: str, message: str) -> None:
    with pytest.raises(P4TypeError, match=message.replace("[", r"\[")):
        _check(body)


def test_known_index_is_a_plain_slice() -> None:
    checked = check_source(preprocess_text(PROG.replace("BODY", "r = d[8 +: 8];"), "t.p4"))
    control = next(d for d in checked.program.decls if isinstance(d, ast.ControlDecl))
    slice_expr = control.body.stmts[0].rhs
    assert isinstance(slice_expr.hi, ast.IntLiteral) and slice_expr.hi.value == 15
    assert slice_expr.width is None


@pytest.mark.parametrize(("statement", "message"), [
    ("hdr.h.d[hdr.h.i +: 8] = 0;", "writing to a slice with a run-time index"),
    ("hdr.h.run = hdr.h.d[(int<8>)hdr.h.i +: 8];", "a slice with a signed run-time index"),
])
def test_what_bm_cannot_run_is_refused_at_load(statement: str, message: str) -> None:
    text = (P4_DIR / "indexed_slice.p4").read_text().replace(
        "hdr.h.known = (bit<8>)hdr.h.d[8 +: 4];", statement)
    check_source(preprocess_text(text, "w.p4"))  # the front end accepts it, as p4c does
    with pytest.raises(P4TypeError, match=f"bm does not support {message}"):
        load_program_text(text, "w.p4")
