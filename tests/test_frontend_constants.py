"""Constants of struct, header and tuple type (spec 11.1: `const S s = {a = 1}` is
compile-time known when its parts are): the front end folds their fields and elements
(p4c's samples const.p4, struct.p4, tuple3.p4, list-compare.p4, issue3091.p4 ...), and
the pipeline uses them at run time. The STF expectations follow from the program's
arithmetic (spec 8.5: bit<8> addition)."""

from __future__ import annotations

import pytest

from behavioral_model.frontend.errors import P4TypeError
from behavioral_model.frontend.preprocess import preprocess_text
from behavioral_model.program import check_source, load_program_text
from behavioral_model.stf import parse_stf
from behavioral_model.stf.runner import run_stf

DECLS = """
#include <core.p4>
struct pair_t { bit<8> a; bit<8> b; }
struct outer_t { pair_t p; bit<8> c; }
const pair_t P = { a = 3, b = 4 };
const outer_t O = { { 1, 2 }, 7 };
const tuple<bit<8>, bit<8>> T = { 5, 6 };
%s
"""

SWITCH = """
#include <v1model.p4>
header h_t { bit<8> a; bit<8> b; }
struct hs { h_t h; }
struct m_t { pair_t p; }
parser Pr(packet_in pk, out hs h, inout m_t m, inout standard_metadata_t s) {
    state start { pk.extract(h.h); transition accept; } }
control V(inout hs h, inout m_t m) { apply {} }
control I(inout hs h, inout m_t m, inout standard_metadata_t s) {
    apply {
        m.p = P;
        h.h.a = m.p.a + P.b + T[1] + O.p.b;
        if (P == m.p && T != { 5, 7 }) { h.h.b = O.c; }
        s.egress_spec = 1;
    }
}
control E(inout hs h, inout m_t m, inout standard_metadata_t s) { apply {} }
control C(inout hs h, inout m_t m) { apply {} }
control D(packet_out pk, in hs h) { apply { pk.emit(h.h); } }
V1Switch(Pr(), V(), I(), E(), C(), D()) main;
"""


@pytest.mark.parametrize("text", [
    pytest.param("const bit<8> x = P.a + O.p.b;", id="field-of-constant-struct"),
    pytest.param("const bit<8> x = T[1];", id="element-of-constant-tuple"),
    pytest.param("const bool same = T == { 5, 6 };", id="constant-tuple-comparison"),
    pytest.param("const tuple<match_kind> K = { exact };", id="tuple-of-match-kinds"),
    pytest.param("const bit<8> x = 1;\nconst pair_t Q = (pair_t){ a = x, b = x };",
                 id="cast-struct-initializer"),
])
def test_composite_constants_are_known(text: str) -> None:
    check_source(preprocess_text(DECLS % text))


@pytest.mark.parametrize("text", [
    pytest.param("control c(in bit<8> v) { apply { const pair_t Q = { a = v, b = 1 }; } }",
                 id="run-time-field"),
    pytest.param("const pair_t Q = { 3, 4 };\nconst bool same = P == Q;",
                 id="struct-comparison-is-not-folded"),
])
def test_not_compile_time_known(text: str) -> None:
    with pytest.raises(P4TypeError, match="is not a compile-time constant"):
        check_source(preprocess_text(DECLS % text))


def test_composite_constants_run_in_the_pipeline() -> None:
    program = load_program_text(DECLS % SWITCH, "consts.p4")
    # a = 3 + 4 + 6 + 2 = 15; P equals m.p and T differs from {5, 7}, so b = O.c = 7.
    stf = "packet 0 00 00\nexpect 1 0f 07\n"
    result = run_stf(program, parse_stf(stf, "consts.stf"), "consts.stf")
    assert result.passed, "\n".join(result.failures)
