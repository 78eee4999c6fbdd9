"""Arrays of any data type (P4_16 1.2.5; p4c's array1.p4 ... array5.p4): `T[N]` and the
declarator `T name[N]`, the same type as a header stack, indexed only (no next, size,
push_front: those are a header stack's). Every verdict below is p4test 1.2.5.16's on the
same program. bm's pipeline holds stacks of headers only, so loading a program with an
array of another type fails with a one-line refusal, never a wrong result."""

from __future__ import annotations

import re

import pytest
from frontend_cases import v1model_program

from behavioral_model.frontend.errors import P4Error
from behavioral_model.frontend.p4info import generate_p4info
from behavioral_model.frontend.preprocess import preprocess_text
from behavioral_model.program import check_source, load_program_text

PROG = """
#include <core.p4>
struct S { bit<8> a; bit<8>[2] b; }
header H { bit<8> x; }
enum E { A, B }
DECLS
control c(inout bit<8> r) {
    apply { BODY }
}
control C(inout bit<8> r);
package top(C _c);
top(c()) main;
"""


def _check(body: str, decls: str = "") -> None:
    check_source(preprocess_text(PROG.replace("DECLS", decls).replace("BODY", body), "t.p4"))


@pytest.mark.parametrize(("body", "decls"), [
    ("bit<8>[4] a; a[0] = r; r = a[1];", ""),
    ("bit<8> a[4] = {1, 2, 3, 4}; r = a[r];", ""),
    ("bool[2] a; a[0] = true; E[2] e; e[1] = E.B; error[2] x;", ""),
    ("bit<8>[2] a; bit<8>[2] b = a; if (a == b) { r = b[0]; }", ""),
    ("bit<8>[2] a; a = {1, 2}; a = (bit<8>[2]){3, 4};", ""),
    # `T[2][3]` is three arrays of two: the first index is below 3, the second below 2.
    ("bit<8>[2][3] a; a[2][1] = r;", ""),
    ("bit<8> a[2][3]; a[2][1] = r;", ""),
    ("S[2] a; a[1].b[0] = r; S s = a[0]; a[1] = s;", ""),
    ("S[2] a = {{1, {2, 3}}, {4, {5, 6}}}; r = a[1].b[0];", ""),
    ("G g; g.a[0] = r; g.s[1].b[1] = r; g.setValid();",
     "header G { bit<8>[2] a; S[2] s; bool[2] f; int<8> i[3]; }"),
    ("bit<8>[2] a; f(a);", "action f(inout bit<8>[2] a) { a[0] = 1; }"),
    ("T t; t[1] = r;", "typedef bit<8> T[2];"),
    ("bit<8>[2] a; r = a[0][7:4] ++ a[1][3:0];", ""),
])
def test_accepted(body: str, decls: str) -> None:
    _check(body, decls)


@pytest.mark.parametrize(("body", "decls", "message"), [
    # p4test: "Array index 4 larger or equal to array size 4".
    ("bit<8>[4] a; r = a[4];", "", "index 4 out of bounds for stack of size 4"),
    ("bit<8>[2][3] a; a[1][2] = r;", "", "index 2 out of bounds for stack of size 2"),
    ("bit<8> a[2][3]; a[1][2] = r;", "", "index 2 out of bounds for stack of size 2"),
    # p4test: "'size' can only be used on header stacks" (and next, lastIndex, ...).
    ("bit<8>[2] a; r = (bit<8>)a.size;", "", "'size' can only be used on header stacks"),
    ("bit<8>[2] a; r = a.next;", "", "'next' can only be used on header stacks"),
    ("bit<8>[2] a; a.push_front(1);", "", "has no method 'push_front'"),
    ("bit<8>[2] a = {1, 2, 3};", "", "initializer has 3 elements, bit<8>[2] has 2"),
    ("bit<8>[2] a; bit<8>[3] b; a = b;", "", "expected bit<8>[2], got bit<8>[3]"),
    ("bit<8>[2] a; if (a[0].isValid()) { r = 1; }", "", "bit<8> has no method 'isValid'"),
    # p4test: "Field 'a' of 'header G' cannot have type 'header H[2]'" (also varbit, enum).
    ("", "header G { H[2] a; }", "field 'a' of header G has type H[2]"),
    ("", "header G { varbit<8>[2] a; }", "field 'a' of header G has type varbit<8>[2]"),
    ("", "header G { E[2] a; }", "field 'a' of header G has type E[2]"),
    # p4test: "Cannot evaluate initializer for constant", for a stack too.
    ("", "const bit<8>[2] K = {1, 2};", "cannot evaluate the initializer of constant 'K'"),
    ("", "const H[2] K = {{1}, {2}};", "cannot evaluate the initializer of constant 'K'"),
    ("", "const S K = {1, {2, 3}};", "cannot evaluate the initializer of constant 'K'"),
])
def test_rejected(body: str, decls: str, message: str) -> None:
    with pytest.raises(P4Error, match=re.escape(message)):
        _check(body, decls)


EXPAND = """
control proto<P>(inout P pkt);
package top<P>(proto<P> p);
struct S { bit<16> f1; bit<8>[16] n; }
header data_t { S[16] arr; bit<4> x; bit<4> y; bit<4> z; bit<8> t; }
struct headers { data_t data; }
control c(inout headers hdr) {
    apply { BODY }
}
top(c()) main;
"""

_TWO_LEVELS = "hdr.data.arr[hdr.data.x].n[hdr.data.y] = 1;"


@pytest.mark.parametrize("body", [
    _TWO_LEVELS * 3,  # 3 * (16 * 16 - 1) = 765 expansions
    "hdr.data.arr[hdr.data.x].f1 = 1;" * 66,  # 66 * 15 = 990
    # t1 is dead: only its own index expands.
    "bit<8>[16] t1 = hdr.data.arr[hdr.data.z].n; " + _TWO_LEVELS,
])
def test_run_time_indexes_within_p4cs_bound(body: str) -> None:
    check_source(preprocess_text(EXPAND.replace("BODY", body), "t.p4"))


@pytest.mark.parametrize("body", [
    _TWO_LEVELS * 4,  # 1020 > 1000
    "hdr.data.arr[hdr.data.x].f1 = 1;" * 67,  # 1005
    # Copy propagation moves t1's index into the last statement: 16 * 16 * 16 - 1.
    "bit<8>[16] t1 = hdr.data.arr[hdr.data.z].n; "
    "hdr.data.arr[hdr.data.x].n[hdr.data.y] = t1[0];",
])
def test_run_time_indexes_past_p4cs_bound(body: str) -> None:
    with pytest.raises(P4Error, match="too much expansion from non-const array indexes"):
        check_source(preprocess_text(EXPAND.replace("BODY", body), "t.p4"))


V1 = v1model_program("bit<8> a; bit<8>[2] arr;", "    apply { hdr.h.arr[0] = hdr.h.a; }")


def test_the_pipeline_refuses_an_array_at_load() -> None:
    check_source(preprocess_text(V1, "arr.p4"))  # p4test accepts it
    with pytest.raises(P4Error) as info:
        load_program_text(V1, "arr.p4")
    assert str(info.value).splitlines() == [
        "arr.p4:4:24: bm does not support arrays of non-header types yet: bit<8>[2]"]


EXTERNS = """
#include <core.p4>
extern X { X(); bit<8> get(); }
extern Y<T> { Y(T v); T get(); }
control c(inout bit<8> r) {
    DECLS
    apply { BODY }
}
control C(inout bit<8> r);
package top(C _c);
top(c()) main;
"""


def _check_instances(decls: str, body: str) -> None:
    check_source(preprocess_text(EXTERNS.replace("DECLS", decls).replace("BODY", body), "t.p4"))


@pytest.mark.parametrize(("decls", "body"), [
    # p4c's externArray1.p4 and generic-extern-inference.p4: `E(args) name[N]`.
    ("X() x[2];", "r = x[1].get() + x[r].get();"),
    ("X() x[3][2];", "r = x[1][2].get();"),  # X[3][2]: the first index is below 2
    ("Y(8w1) y[2];", "r = y[1].get();"),  # Y's T is inferred from the argument
    ("Y<bit<8>>(1) y[2];", "r = y[0].get();"),
])
def test_instance_arrays_accepted(decls: str, body: str) -> None:
    _check_instances(decls, body)


@pytest.mark.parametrize(("decls", "body", "message"), [
    # p4test: "Array index 2 larger or equal to array size 2".
    ("X() x[3][2];", "r = x[2][1].get();", "index 2 out of bounds for stack of size 2"),
    # p4test: "'get' can only be used on header stacks".
    ("X() x[2];", "r = x.get();", "X[2] has no method 'get'"),
    # p4test: "Illegal array size: -1", "Size of header stack type should be a constant".
    ("X() x[-1];", "", "instance array size must not be negative"),
    ("X() x[r];", "", "instance array size must be a compile-time constant"),
    # p4test: "2: could not infer a width".
    ("Y(1) y[2];", "", "could not infer a width"),
])
def test_instance_arrays_rejected(decls: str, body: str, message: str) -> None:
    with pytest.raises(P4Error, match=re.escape(message)):
        _check_instances(decls, body)


def test_a_control_array_is_rejected() -> None:
    # p4test: "q: can't create arrays of control d".
    text = EXTERNS.replace("DECLS", "d() q[2];").replace("BODY", "").replace(
        "control c(", "control d() { apply { } }\ncontrol c(")
    with pytest.raises(P4Error, match="only extern instances come in arrays"):
        check_source(preprocess_text(text, "t.p4"))


def test_an_instance_array_is_refused_at_load_and_in_p4info() -> None:
    text = V1.replace("apply { hdr.h.arr[0] = hdr.h.a; }",
                      "register<bit<8>>(4) regs[2]; apply { regs[1].write(0, hdr.h.a); }"
                      ).replace("bit<8>[2] arr;", "")
    checked = check_source(preprocess_text(text, "regs.p4"))
    with pytest.raises(P4Error, match=r"regs.p4:12:5: bm does not support arrays of "
                                      r"non-header types yet: register<bit<8>>\[2\]"):
        load_program_text(text, "regs.p4")
    with pytest.raises(P4Error, match=r"P4Info of an array of extern instances \('regs'"):
        generate_p4info(checked)
