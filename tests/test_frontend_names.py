"""Name resolution as p4c's ResolveReferences does it, where bm was stricter (p4c's
issue1541.p4, issue3616.p4, issue304-1.p4, bfd_offload.p4): inside a declaration its own
name is not visible (`action hash() { hash(...); }` calls the extern function); a
serializable enum's value may name the members before it; the methods of an instance's
initializer name their instance `this`. Each verdict below is p4test 1.2.5's; the STF
file's expected packets (tests/p4/self_names.*) are worked out by hand in its
comments."""

from __future__ import annotations

from pathlib import Path

import pytest
from frontend_cases import assert_rejected, check

from behavioral_model.program import load_program
from behavioral_model.stf.runner import run_stf_file

P4_DIR = Path(__file__).parent / "p4"

V1 = """
#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> a; bit<8> b; }
struct hs { h_t h; }
struct m_t { bit<3> x; }
"""

X = "extern X { X(); bit<32> b(); abstract void a(inout bit<32> arg); }\n"


def test_self_names_run_in_the_pipeline() -> None:
    program = load_program(P4_DIR / "self_names.p4")
    result = run_stf_file(program, P4_DIR / "self_names.stf")
    assert result.passed, "\n" + result.report()


@pytest.mark.parametrize("text", [
    V1 + "control C(inout hs hdr, inout m_t meta) { action hash() { hash(meta.x, "
         "HashAlgorithm.crc16, 3w0, { }, 3w7); } apply { hash(); } }",
    V1 + "action a() { } control C(inout hs hdr, inout m_t meta) { action a() { a(); } "
         "apply { a(); } }",
    V1 + "bit<8> f() { return 1; } control C(inout hs hdr, inout m_t meta) { "
         "action f() { hdr.h.a = f(); } apply { f(); } }",
    V1 + "control C(inout hs hdr, inout m_t meta) { action a() { bit<8> a = 1; "
         "hdr.h.a = a; } apply { a(); } }",
    "enum bit<4> e { a = 0, b = 0, c = (bit<4>)a, d = a }",
    "enum bit<4> e { a = 1, c = a + 1 }",
    "const bit<4> K = 3; enum bit<4> e { a = K, c = a }",
    X + "control c(inout bit<32> y) { X() x = { void a(inout bit<32> arg) { "
        "arg = arg + this.b(); } }; apply { x.a(y); } }",
])
def test_accepted(text: str) -> None:
    check(text)


@pytest.mark.parametrize(("text", "message"), [
    # not visible in itself, and nothing else of that name
    (V1 + "control C(inout hs hdr, inout m_t meta) { action a() { a(); } apply { a(); } }",
     "'a' is not declared"),
    ("enum bit<4> e { a = 1, c = b, b = 2 }", "'b' is not declared"),
    ("enum bit<4> e { a = 1 } enum bit<4> f { x = a }", "'a' is not declared"),
    ("enum bit<4> e { a = 1, c = e.a }", "self-referencing types not supported: 'e'"),
    # a serializable enum casts to its own underlying type only
    ("enum bit<4> e { a = 1, c = (bit<8>)a }", "cannot cast e to bit<8>"),
    (X + "control c(inout bit<32> y) { X() x = { void a(inout bit<32> arg) { "
         "arg = arg + this.c(); } }; apply { x.a(y); } }", "extern X has no method 'c'"),
    ("extern X { X(); bit<32> b(); }\ncontrol c(inout bit<32> y) { X() x; "
     "apply { y = this.b(); } }", "'this' is not declared"),
])
def test_rejected(text: str, message: str) -> None:
    assert_rejected(text, message)
