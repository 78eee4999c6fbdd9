"""More of p4c's rules that bm's `check` applies (found by scripts/compare_p4test.py on
p4c's p4_16_errors: issue2373, issue818, issue819, unknown-struct1, issue2545, issue532,
issue1777-bmv2, issue5703_header_union_stack, issue2267): a parser that can end, what
an extern's constructor takes, self-containing type arguments, struct initializers
given to a type variable, the mid end's rules on externs writing structs, and a table
key that names its own table. Each rejected program
below is rejected by p4test 1.2.5 too; each accepted one is accepted by it."""

from __future__ import annotations

import pytest
from frontend_cases import assert_rejected, check

PARSER = """
#include <core.p4>
parser P(packet_in b, out bit<8> x);
package Top(P p);
parser Prs(packet_in b, out bit<8> x) {
    state start { x = 0; transition s1; }
    %s
}
Top(Prs()) main;
"""

EXTERN_WRITES = """
#include <core.p4>
header h_t { bit<8> f; }
struct inner_t { bit<8> a; }
struct meta_t { inner_t s; bit<8> b; }
struct hdrs_t { h_t h; }
extern inner_t make();
extern void fill(out inner_t v);
extern void touch(inout hdrs_t v);
%s
control Ctl(inout meta_t m, inout hdrs_t h) {
    apply { %s }
}
Top(Ctl()) main;
"""
# p4c flattens the structs a generic package takes as type arguments, not a plain one's.
GENERIC = "control C<M, H>(inout M m, inout H h);\npackage Top<M, H>(C<M, H> c);"
PLAIN = "control C(inout meta_t m, inout hdrs_t h);\npackage Top(C c);"

UNION_STACK = """
#include <core.p4>
%s
header h1 { bit<8> a; }
header h2 { bit<16> b; }
header_union U { h1 x; h2 y; }
struct hs_t { U[2] us; }
parser P(packet_in b, out hs_t h, inout bit<8> i);
package Top(P p);
parser Prs(packet_in b, out hs_t h, inout bit<8> i) {
    state start { b.extract(h.us[%s].x); transition accept; }
}
Top(Prs()) main;
"""

REJECTED = [
    pytest.param(PARSER % "state s1 { transition s2; } state s2 { transition s1; }",
                 "parser Prs never reaches the accept or reject state", id="parser-loops"),
    pytest.param("control C(); package S(C c);\n"
                 "extern Wrap { Wrap(C c); void run(); }\n"
                 "control Impl() { apply {} }\n"
                 "control Top() { Wrap(Impl()) w; apply { w.run(); } }\nS(Top()) main;",
                 "constructor of extern Wrap cannot have type C", id="extern-takes-control"),
    pytest.param("extern Pair<A> { Pair(A a); void run(); }\n"
                 "control One(Pair<_> p) { apply {} }\n"
                 "control Top() { One() o; Pair<One>(o) w; apply { o.apply(w); } }",
                 "contains self 'Pair'", id="type-argument-control-takes-self"),
    pytest.param("extern void f<T>(in T x);\n"
                 "control Ctl(inout bit<8> v) { apply { f({ a = v }); } }",
                 "cannot infer a type for the struct initializer", id="untyped-struct-to-T"),
    pytest.param(EXTERN_WRITES % (GENERIC, "touch(h);"),
                 "cannot take the nested struct hdrs_t through its inout parameter",
                 id="extern-inout-nested-struct"),
    pytest.param(EXTERN_WRITES % (GENERIC, "m.s = make();"),
                 "an extern cannot write the struct inner_t inside parameter 'm'",
                 id="extern-result-into-parameter-struct"),
    pytest.param(EXTERN_WRITES % (GENERIC, "fill(m.s);"),
                 "an extern cannot write the struct inner_t inside parameter 'm'",
                 id="extern-out-into-parameter-struct"),
    pytest.param(UNION_STACK % ('@command_line("--loopsUnroll")', "i"),
                 "must be a compile-time constant in a parser", id="union-stack-variable-index"),
    pytest.param("#include <core.p4>\ncontrol MyC(bit<8> t) {\n"
                 "  table t { key = { t : exact; } actions = {} }\n  apply {}\n}",
                 "a key cannot refer to the containing table t", id="key-names-its-table"),
]

ACCEPTED = [
    pytest.param(PARSER % "state s1 { transition select(x) { 1: s1; default: accept; } }",
                 id="parser-loop-with-exit"),
    pytest.param(PARSER % "state s1 { }", id="parser-implicit-reject"),
    pytest.param("extern void f<T>(in T x);\nstruct S { bit<8> a; }\n"
                 "control Ctl(inout bit<8> v) { apply { f((S){ a = v }); } }",
                 id="typed-struct-to-T"),
    pytest.param(EXTERN_WRITES % (GENERIC, "inner_t t = make(); m.s = t; fill(t); m.s = t;"),
                 id="extern-writes-a-local"),
    pytest.param(EXTERN_WRITES % (PLAIN, "m.s = make();"),
                 id="extern-writes-parameter-struct-of-plain-package"),
    pytest.param(UNION_STACK % ('@command_line("--loopsUnroll")', "1"),
                 id="union-stack-constant-index"),
    pytest.param(UNION_STACK % ("", "i"), id="union-stack-variable-index-no-unrolling"),
]


@pytest.mark.parametrize("text, message", REJECTED)
def test_rejected_like_p4c(text: str, message: str) -> None:
    assert_rejected(text, message)


@pytest.mark.parametrize("text", ACCEPTED)
def test_accepted_like_p4c(text: str) -> None:
    check(text)


OPASSIGN = """
#include <core.p4>
control generic<M>(inout M m);
package top<M>(generic<M> c);
%s header t1 { bit<32> f1; bit<32> f4; }
struct headers_t { t1 head; }
control c(inout headers_t hdrs) {
    apply { %s }
}
top(c()) main;
"""


@pytest.mark.parametrize(("pragma", "statement", "accepted"), [
    ("", "hdrs.head.f1 %= hdrs.head.f4;", False),
    ("@test_keep_opassign", "hdrs.head.f1 %= hdrs.head.f4;", True),
    ("@test_keep_opassign", "hdrs.head.f1 /= hdrs.head.f4;", True),
    ("@test_keep_opassign", "hdrs.head.f1 = hdrs.head.f1 % hdrs.head.f4;", False),
    ("@test_keep_opassign", "hdrs.head.f1 %= 0;", True),
    ("", "hdrs.head.f1 %= 0;", False),
], ids=["plain", "kept-modulo", "kept-division", "kept-not-compound", "kept-by-zero",
         "by-zero"])
def test_p4tests_keep_opassign_pragma(pragma: str, statement: str, accepted: bool) -> None:
    """p4test's option pragma @test_keep_opassign (on any declaration, as in p4c's
    opassign1.p4) keeps `a %= b` whole, so its mid end's refusal of a run-time modulo
    or division sees only the ones written as `a = a % b`; nor does it fold `a %= 0`
    into an error (p4test 1.2.5 accepts each accepted case, rejects each rejected one)."""
    text = OPASSIGN % (pragma, statement)
    if accepted:
        check(text)
    else:
        assert_rejected(text, "by zero" if "0;" in statement else "could not be evaluated")
