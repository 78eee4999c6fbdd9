"""Type inference as p4c does it, where bm used to accept what p4c rejects (found by
scripts/compare_p4test.py on p4c's p4_16_errors: call-on-extern-function-parameter-
type-illformed-after-specialization, equate-type-specialized-and-non-specialized,
issue3045-2, issue2441, equate-type-package-and-package-with-incompatible-type).
Each rejected program below is rejected by p4test 1.2.5 too; each accepted one is
accepted by it."""

from __future__ import annotations

import pytest
from frontend_cases import assert_rejected, check

REGISTER = """
#include <core.p4>
extern register<T> { register(bit<32> size); void write(in bit<32> i, in T v); }
void f<T>(register<T> r, in T t) { r.write(0, t); }
control c<T>(in T v)() { register<T>(1) r; apply { f(r, %s); } }
"""

PACKAGES = """
parser Parser<IH>(out IH parsedHeaders);
package Ingress<IH>(Parser<IH> p);
package Switch<IH>(Ingress<IH> ingress);
struct H {}
parser ing_parse(out H hdr) { state start { transition accept; } }
Ingress(ing_parse()) ig1;
Switch<%s>(ig1) main;
"""

DEFAULTED = """
control C<H>(inout H h);
control nothing<H>(inout H h) { apply {} }
struct h_t { bit<8> f; }
control mine(inout h_t h) { apply {} }
package P<H>(C<H> c = nothing<H>());
P(%s) main;
"""

REJECTED = [
    pytest.param("#include <core.p4>\nextern void f<T>(in tuple<T> x);\n"
                 "control c()() { apply { f<match_kind>({ 32w2 }); } }",
                 "expected match_kind, got bit<32>", id="tuple-element-after-specialization"),
    pytest.param("T f<T>(tuple<> x) { return x; }",
                 "a value of type tuple<> cannot be returned as T", id="return-into-T"),
    pytest.param(REGISTER % "exact", "does not convert to T, a type parameter",
                 id="callers-type-variable-is-rigid"),
    pytest.param(PACKAGES % "tuple<>", "Ingress with type argument H given where tuple<> is",
                 id="package-type-arguments-differ"),
    pytest.param(DEFAULTED % "", "could not infer a type for type variable H",
                 id="default-argument-fixes-no-type"),
]

ACCEPTED = [
    pytest.param("#include <core.p4>\nextern void f<T>(in tuple<T> x);\n"
                 "control c()() { apply { f<bit<32>>({ 32w2 }); } }",
                 id="tuple-element-matches"),
    pytest.param("T f<T>(in T x) { return x; }", id="return-a-T"),
    pytest.param(REGISTER % "v", id="callers-type-variable-given-itself"),
    pytest.param(PACKAGES % "H", id="package-type-arguments-agree"),
    pytest.param(DEFAULTED % "mine()", id="argument-fixes-the-type"),
]


@pytest.mark.parametrize("text, message", REJECTED)
def test_rejected_like_p4c(text: str, message: str) -> None:
    assert_rejected(text, message)


@pytest.mark.parametrize("text", ACCEPTED)
def test_accepted_like_p4c(text: str) -> None:
    check(text)
