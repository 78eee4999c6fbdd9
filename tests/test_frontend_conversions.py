"""p4c's implicit conversions that bm applied too strictly (p4c's enumCast.p4,
issue3056.p4, issue3635.p4, issue2726-bmv2.p4, issue2444.p4, issue3238.p4, issue3283.p4,
extern-int-arg1.p4, issue4932.p4): every operator takes a serializable enum operand as
its underlying type; a declared `int` takes a compile-time known bit<W>/int<W> value;
`++` joins strings. Each verdict below is p4test 1.2.5's; the STF file's expected
packets (tests/p4/implicit_conversions.*) are worked out by hand in its comments."""

from __future__ import annotations

from pathlib import Path

import pytest
from frontend_cases import assert_rejected, check

from behavioral_model.program import load_program
from behavioral_model.stf.runner import run_stf_file

P4_DIR = Path(__file__).parent / "p4"

PROG = """
#include <core.p4>
enum bit<8> E1 { x = 1, y = 2 }
enum bit<8> E2 { x = 1, y = 10 }
enum bit<4> E4 { x = 1 }
enum P { a, b }
extern Counter { Counter(int size); void count(int idx); }
header h_t { bit<8> a; bit<8> b; int<8> s; bit<16> w; }
struct hs { h_t h; h_t[3] st; }
control c(inout hs hdr);
package top(c _c);
BODY
top(C()) main;
"""


def _prog(body: str) -> str:
    return PROG.replace("BODY", body)


def _control(apply: str, decls: str = "") -> str:
    return _prog(f"control C(inout hs hdr) {{ {decls} apply {{ {apply} }} }}")


def test_conversions_run_in_the_pipeline() -> None:
    program = load_program(P4_DIR / "implicit_conversions.p4")
    result = run_stf_file(program, P4_DIR / "implicit_conversions.stf")
    assert result.passed, "\n" + result.report()


@pytest.mark.parametrize("text", [
    _control("E1 e = E1.x; hdr.h.a = e + E2.y;"),
    _control("E1 e = E1.x; hdr.h.a = e; hdr.h.b = e + 1;"),
    _control("E1 e = E1.x; E2 f = E2.x; hdr.h.a = e == f ? 8w1 : 8w0;"),
    _control("E4 e = E4.x; hdr.h.a = e ++ e;"),
    _control("E1 e = E1.x; hdr.h.a = ~e; hdr.h.b = -e;"),
    _control("E1 e = E1.x; hdr.h.a = e << 1; hdr.h.b = e >> e;"),
    _control("E1 e = E1.x; hdr.st[e].a = 1;"),
    _control("E1 e = E1.y; bool b = e > E1.x; hdr.h.a = b ? e : E1.x;"),
    _control("E1 e = E1.y; hdr.h.a = e & 8w3 | E2.y;"),
    _control("E1 e = E1.y; hdr.h.a = e[3:0] ++ e[7:4];"),
    _prog("const int K = 8w7; control C(inout hs hdr) { apply { hdr.h.a = K; } }"),
    _prog("const int K = 8w7 + 8w1; const bit<4> J = K;"
          "control C(inout hs hdr) { apply { hdr.h.a = (bit<8>)J; } }"),
    _prog("const tuple<int, bit<8>> T = {8w3, 8w4};"
          "control C(inout hs hdr) { apply { hdr.h.a = T[0]; } }"),
    _control("ctr.count(8w1);", "Counter(8w4) ctr;"),
    # an action's directionless parameter is known: it binds the extern's `int`
    _control("t.apply();", "Counter(4) ctr; action a(bit<8> i) { ctr.count(i); } "
             "table t { key = { hdr.h.a : exact; } actions = { a; } }"),
    _prog('const string s = "a" ++ "b"; control C(inout hs hdr) { apply { } }'),
    _prog("const int a1 = 4w1; const bool b1 = (bool)a1; const int t = 0w0;"
          "control C(inout hs hdr) { apply { } }"),
    _control('bool b = "a" ++ "b" == "ab";'),
])
def test_accepted(text: str) -> None:
    check(text)


@pytest.mark.parametrize(("text", "message"), [
    (_control("E1 e = E1.x; hdr.h.w = e + 16w1;"),
     "operands of '+' have different types: bit<8> and bit<16>"),
    (_control("E1 e = E1.y; hdr.h.s = e + hdr.h.s;"),
     "operands of '+' have different types: bit<8> and int<8>"),
    (_control("E1 e = E1.x; hdr.h.a = e == P.a ? 8w1 : 8w0;"),
     "operands of '==' have different types: bit<8> and P"),
    (_control("P p = P.a; hdr.h.a = p + 1;"), "'+' needs numeric operands, got P"),
    # the conversion is for operators only: an enum is not assigned a number or
    # another enum's value
    (_control("E1 e = hdr.h.a;"), "type mismatch: expected E1, got bit<8>"),
    (_control("E1 e = E2.x;"), "type mismatch: expected E1, got E2"),
    (_control("E4 e = E4.x; hdr.h.a = e ++ 4w1 ++ e;"), "expected bit<8>, got bit<12>"),
    # a run-time value does not bind `int` (p4c: a directionless argument must be known)
    (_control("ctr.count(hdr.h.a);", "Counter(8w4) ctr;"),
     "type mismatch in argument 'idx' of count: expected int, got bit<8>"),
    (_control("int x = 8w3;"), "cannot declare variables with type int"),
    # p4c folds the known value first (p4_16_errors/issue2444-1.p4, issue3285.p4)
    (_prog("const int a1 = 4w2; const bool b1 = (bool)a1;"),
     "only 0 and 1 can be cast to bool"),
    (_prog("const bool b = (bool)-1;"), "only 0 and 1 can be cast to bool"),
    (_prog("const int t = 0s0;"), "width of a signed type cannot be zero"),
    (_control('hdr.h.a = "a" ++ 8w1;'), "'++' needs bit<W> or int<W> operands"),
    (_control('hdr.h.a = "a" + "b";'), "'+' needs numeric operands, got string"),
])
def test_rejected(text: str, message: str) -> None:
    assert_rejected(text, message)
